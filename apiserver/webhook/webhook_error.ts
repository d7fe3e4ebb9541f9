/**
 * The typed failures of an outbound webhook call, worded as Kubernetes' REST client and Go's
 * net/http word them (`Post "<url>": context deadline exceeded`), so the messages the callers
 * wrap (`failed calling webhook "<name>": failed to call webhook: ...`) read as kube's.
 *
 * @module
 */

/** Why a webhook call failed. */
export type WebhookErrorKind =
  /** The address could not be resolved or connected to, or TLS failed. */
  | "unreachable"
  /** The call did not complete within its timeout. */
  | "timeout"
  /** The webhook answered with a non-2xx HTTP status. */
  | "status"
  /** The answer was not JSON, or larger than allowed. */
  | "body";

/** A failed webhook call. The message never contains a credential or the request body. */
export class WebhookError extends Error {
  /**
   * @param kind why the call failed
   * @param message kube's wording of the failure
   * @param httpStatus the webhook's HTTP status (kind `status`)
   * @param statusBody the webhook's answer when it is a Kubernetes Status object (kind `status`)
   */
  constructor(
    readonly kind: WebhookErrorKind,
    message: string,
    readonly httpStatus?: number,
    readonly statusBody?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "WebhookError";
  }
}

/** `Post "<url>": <detail>`, as Go's url.Error renders a failed request. */
export function postError(kind: WebhookErrorKind, url: string, detail: string): WebhookError {
  return new WebhookError(kind, `Post ${JSON.stringify(url)}: ${detail}`);
}

/** Messages of k8s.io/apimachinery's NewGenericServerResponse for answers without a Status. */
function genericStatusMessage(code: number, body: string): string {
  switch (code) {
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return "the server does not allow access to the requested resource";
    case 404:
      return "the server could not find the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 409:
      return "the server reported a conflict";
    case 413:
      return "the server has rejected the request because the request entity is too large";
    case 415:
      return "the server responded with the status code 415 but did not return more information";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing the request";
  }
  if (code >= 500 && body.trim() !== "") {
    const shown = body.length > 1024 ? body.slice(0, 1024) : body;
    return `an error on the server (${
      JSON.stringify(shown)
    }) has prevented the request from succeeding`;
  }
  return `the server responded with the status code ${code} but did not return more information`;
}

/**
 * The error of a non-2xx answer: the message of a Kubernetes Status in the body when there
 * is one (as the REST client decodes it), otherwise kube's generic wording for the code.
 */
export function statusError(code: number, body: string): WebhookError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (
    typeof parsed === "object" && parsed !== null &&
    (parsed as Record<string, unknown>).kind === "Status" &&
    typeof (parsed as Record<string, unknown>).message === "string"
  ) {
    const status = parsed as Record<string, unknown>;
    return new WebhookError("status", status.message as string, code, status);
  }
  return new WebhookError("status", genericStatusMessage(code, body), code);
}
