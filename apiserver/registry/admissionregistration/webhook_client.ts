/**
 * A webhook's client configuration (k8s.io/apiserver/pkg/util/webhook validation): an https URL
 * with a host and without user information, query or fragment, or a Service reference with a
 * name, a namespace, a valid port and a path of DNS-subdomain segments.
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import { invalid, required } from "../../../shared/api/validation/field_errors.ts";
import { isDNS1123Subdomain } from "../../../shared/api/validation/identifiers.ts";

const FORM = "; desired format: https://host[/path]";

/** The parts of a URL as Go's url.Parse splits them (scheme, user, host, query, fragment). */
function splitURL(raw: string) {
  let rest = raw;
  let fragment = "", query = "", scheme = "", user: string | undefined, host = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) [rest, fragment] = [rest.slice(0, hash), rest.slice(hash + 1)];
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (m) [scheme, rest] = [m[1].toLowerCase(), rest.slice(m[0].length)];
  const q = rest.indexOf("?");
  if (q >= 0) [rest, query] = [rest.slice(0, q), rest.slice(q + 1)];
  if (rest.startsWith("//")) {
    const end = rest.indexOf("/", 2);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    const at = authority.lastIndexOf("@");
    if (at >= 0) user = authority.slice(0, at);
    host = at >= 0 ? authority.slice(at + 1) : authority;
  }
  return { scheme, user, host, query, fragment };
}

/** ValidateWebhookURL with https required. */
export function validateWebhookURL(field: string, raw: string): FieldError[] {
  const u = splitURL(raw);
  const errs: FieldError[] = [];
  if (u.scheme !== "https") {
    errs.push(invalid(field, u.scheme, "'https' is the only allowed URL scheme" + FORM));
  }
  if (u.host === "") errs.push(invalid(field, u.host, "host must be specified" + FORM));
  if (u.user !== undefined) {
    errs.push(invalid(field, u.user, "user information is not permitted in the URL"));
  }
  if (u.fragment !== "") {
    errs.push(invalid(field, u.fragment, "fragments are not permitted in the URL"));
  }
  if (u.query !== "") {
    errs.push(invalid(field, u.query, "query parameters are not permitted in the URL"));
  }
  return errs;
}

function validatePath(field: string, path: string): FieldError[] {
  if (path === "/" || path === "") return [];
  if (path === "//") return [invalid(field, path, "segment[0] may not be empty")];
  const errs: FieldError[] = [];
  if (!path.startsWith("/")) errs.push(invalid(field, path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith("/")) check = check.slice(0, -1);
  for (const [i, step] of check.split("/").entries()) {
    if (step === "") {
      errs.push(invalid(field, path, `segment[${i}] may not be empty`));
      continue;
    }
    for (const msg of isDNS1123Subdomain(step)) {
      errs.push(invalid(field, path, `segment[${i}]: ${msg}`));
    }
  }
  return errs;
}

/** ValidateWebhookService (the port is defaulted to 443 before). */
export function validateWebhookService(
  field: string,
  svc: Record<string, unknown>,
): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof svc.name !== "string" || svc.name === "") {
    errs.push(required(`${field}.name`, "service name is required"));
  }
  if (typeof svc.namespace !== "string" || svc.namespace === "") {
    errs.push(required(`${field}.namespace`, "service namespace is required"));
  }
  const port = svc.port;
  if (typeof port === "number" && (port < 1 || port > 65535)) {
    errs.push(
      invalid(`${field}.port`, port, "port is not valid: must be between 1 and 65535, inclusive"),
    );
  }
  if (typeof svc.path === "string") errs.push(...validatePath(`${field}.path`, svc.path));
  return errs;
}
