/**
 * The one decoder of a failed HTTP response into a StatusError, for every client of the API
 * server: a `Status` body is taken as it is; anything else becomes client-go's generic server
 * error (`NewGenericServerResponse`): a reason and message chosen by the code, the response's
 * text as an `UnexpectedServerResponse` cause, and its Retry-After.
 *
 * @module
 */
import type { Status, StatusCause } from "../api/meta/v1/types.ts";
import { goQuote } from "../api/validation/go_quote.ts";
import { StatusError } from "./status_error.ts";

/** A failed response as a client holds it. */
export interface FailedResponse {
  /** The HTTP status code. */
  status: number;
  /** The body as text ("" when empty). */
  body: string;
  /** The response headers (Content-Type and Retry-After are read). */
  headers?: Headers;
}

/** client-go keeps at most this many bytes of an unstructured error body. */
const MAX_UNSTRUCTURED_BYTES = 2048;

function isStatus(v: unknown): v is Status {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "Status";
}

/** Whether client-go reads the body as text: no Content-Type, or a `text/*` one. */
function isText(headers: Headers | undefined): boolean {
  const type = headers?.get("content-type");
  if (!type) return true;
  return type.split(";")[0].trim().toLowerCase().startsWith("text/");
}

/** The reason and message client-go gives a response without a Status body. */
function generic(code: number, method: string, server: string): [string, string] {
  switch (code) {
    case 409:
      return [method === "POST" ? "AlreadyExists" : "Conflict", "the server reported a conflict"];
    case 404:
      return ["NotFound", "the server could not find the requested resource"];
    case 400:
      return ["BadRequest", "the server rejected our request for an unknown reason"];
    case 401:
      return ["Unauthorized", "the server has asked for the client to provide credentials"];
    case 403:
      return ["Forbidden", server];
    case 406:
      return [
        "NotAcceptable",
        server === "" || server === "unknown"
          ? "the server was unable to respond with a content type that the client supports"
          : server,
      ];
    case 415:
      return ["UnsupportedMediaType", server];
    case 405:
      return [
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
      ];
    case 422:
      return ["Invalid", "the server rejected our request due to an error in our request"];
    case 503:
      return ["ServiceUnavailable", "the server is currently unable to handle the request"];
    case 504:
      return [
        "Timeout",
        "the server was unable to return a response in the time allotted, but may still be processing the request",
      ];
    case 429:
      return [
        "TooManyRequests",
        "the server has received too many requests and has asked us to try again later",
      ];
  }
  if (code >= 500) {
    return [
      "InternalError",
      `an error on the server (${goQuote(server)}) has prevented the request from succeeding`,
    ];
  }
  return [
    "",
    `the server responded with the status code ${code} but did not return more information`,
  ];
}

/**
 * The StatusError a failed response carries: its `Status` body (the code falling back to the
 * response's), or client-go's generic error for the code when the body is not a Status.
 * `method` picks AlreadyExists over Conflict for a 409 to a POST.
 */
export function statusErrorFromResponse(res: FailedResponse, method = ""): StatusError {
  try {
    const s = JSON.parse(res.body);
    if (isStatus(s)) {
      return new StatusError({
        code: s.code || res.status,
        reason: s.reason,
        message: s.message,
        details: s.details,
        metadata: s.metadata,
      });
    }
  } catch { /* not JSON: an unstructured answer */ }
  let server = "unknown";
  if (isText(res.headers)) {
    const bytes = new TextEncoder().encode(res.body).subarray(0, MAX_UNSTRUCTURED_BYTES);
    server = new TextDecoder().decode(bytes).trim();
  }
  const [reason, message] = generic(res.status, method.toUpperCase(), server);
  const causes: StatusCause[] = [{ reason: "UnexpectedServerResponse", message: server }];
  const retry = Number(res.headers?.get("retry-after") ?? "");
  return new StatusError({
    code: res.status,
    reason,
    message,
    details: Number.isInteger(retry) && retry > 0
      ? { causes, retryAfterSeconds: retry }
      : { causes },
  });
}
