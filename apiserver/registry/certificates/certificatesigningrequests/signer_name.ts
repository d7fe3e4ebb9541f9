/**
 * validateSignerName: a signer name is `<domain>/<path>`, as Kubernetes' `ValidateSignerName`
 * checks it: a domain of DNS-1123 labels with at least one dot (at most 253 characters) and a
 * path of dot-separated DNS-1123 subdomains (at most 571 characters).
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, required, tooLong } from "../../../../shared/api/validation/field_errors.ts";
import {
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  isDNS1123Label,
  isDNS1123Subdomain,
} from "../../../../shared/api/validation/identifiers.ts";

const MAX_PATH_LENGTH = 571;

function firstErrors(
  field: string,
  whole: string,
  parts: string[],
  check: (s: string) => string[],
): FieldError[] {
  for (const part of parts) {
    const errs = check(part);
    if (errs.length > 0) {
      return errs.map((e) => invalid(field, whole, `validating label "${part}": ${e}`));
    }
  }
  return [];
}

/** The field errors of a signer name at `field`. */
export function validateSignerName(field: string, signerName: string): FieldError[] {
  if (signerName === "") return [required(field)];
  const segments = signerName.split("/");
  if (segments.length !== 2) {
    return [
      invalid(
        field,
        signerName,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    ];
  }
  const [domain, path] = segments;
  const errs: FieldError[] = [];
  if (domain.length > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    errs.push(tooLong(field, domain, `may not be more than ${DNS1123_SUBDOMAIN_MAX_LENGTH} bytes`));
  }
  const labels = domain.split(".");
  errs.push(...firstErrors(field, domain, labels, isDNS1123Label));
  if (labels.length < 2) {
    errs.push(
      invalid(field, domain, "should be a domain with at least two segments separated by dots"),
    );
  }
  if (path.length > MAX_PATH_LENGTH) {
    errs.push(tooLong(field, path, `may not be more than ${MAX_PATH_LENGTH} bytes`));
  }
  errs.push(...firstErrors(field, path, path.split("."), isDNS1123Subdomain));
  return errs;
}
