/**
 * parseResourceVersion: a resourceVersion from a request, parsed as Kubernetes' storage parses
 * it (`strconv.ParseUint`).
 *
 * @module
 */
import { goQuote } from "../../../shared/api/validation/go_quote.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

const UINT64_MAX = 18446744073709551615n;

/**
 * Parses a resourceVersion; "" and "0" are 0. Throws a 400 whose message is Kubernetes'
 * `resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax`
 * (`value out of range` above the uint64 range), prefixed with `prefix` when given.
 * (Kubernetes answers some of these with a 500; a client error is what they are.)
 */
export function parseResourceVersion(rv: string, prefix = ""): number {
  if (rv === "" || rv === "0") return 0;
  let problem: string | undefined;
  if (!/^[0-9]+$/.test(rv)) problem = "invalid syntax";
  else if (BigInt(rv) > UINT64_MAX) problem = "value out of range";
  if (problem) {
    throw StatusError.badRequest(
      `${prefix}resourceVersion: Invalid value: ${goQuote(rv)}: strconv.ParseUint: parsing ${
        goQuote(rv)
      }: ${problem}`,
    );
  }
  return Number(rv);
}
