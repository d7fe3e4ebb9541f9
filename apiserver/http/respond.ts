/**
 * Writes responses: objects and lists in the negotiated format, Status errors, and the
 * Warning headers collected while handling a request.
 *
 * @module
 */
import { stringify } from "yaml";
import type { Status } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { contentTypeOf, type OutputFormat } from "./negotiation.ts";

/** Encodes a value in a format. */
export function encode(value: unknown, format: OutputFormat, pretty = false): string {
  if (format === "yaml") return stringify(value, { aliasDuplicateObjects: false });
  return pretty ? JSON.stringify(value, null, 2) + "\n" : JSON.stringify(value) + "\n";
}

/** A response holding an object, list or Status. */
export function objectResponse(
  status: number,
  value: unknown,
  format: OutputFormat,
  opts: { warnings?: string[]; head?: boolean; pretty?: boolean } = {},
): Response {
  const headers = new Headers({ "Content-Type": contentTypeOf(format) });
  for (const w of opts.warnings ?? []) headers.append("Warning", w);
  const body = opts.head ? null : encode(value, format, opts.pretty);
  return new Response(body, { status, headers });
}

/** The Status response of an error (JSON unless YAML was negotiated). */
export function errorResponse(err: StatusError, format: OutputFormat = "json"): Response {
  const headers = new Headers({ "Content-Type": contentTypeOf(format) });
  for (const [k, v] of Object.entries(err.headers)) headers.set(k, v);
  return new Response(encode(err.status, format), { status: err.code, headers });
}

/** A Success Status (deletecollection, some deletes). */
export function successStatus(details?: Status["details"]): Status {
  const s: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    code: 200,
  };
  if (details) s.details = details;
  return s;
}

/** Formats a Warning header value as Kubernetes does (`299 - "text"`). */
export function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}
