/**
 * StatusError: the one error type of the project. It carries a Kubernetes Status and renders
 * itself; every failure that reaches a client is one of these.
 *
 * @module
 */
import type { Status, StatusCause, StatusDetails } from "../api/meta/v1/types.ts";

/** Identifies the resource an error is about, as Kubernetes' error constructors take it. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** One field error, the unit of validation results. */
export interface FieldError {
  /** Cause reason, e.g. `FieldValueRequired`. */
  type:
    | "FieldValueRequired"
    | "FieldValueInvalid"
    | "FieldValueNotSupported"
    | "FieldValueDuplicate"
    | "FieldValueForbidden"
    | "FieldValueTooLong"
    | "FieldValueTooMany"
    | "FieldValueTypeInvalid"
    | "FieldValueNotFound"
    | "InternalError";
  /** Field path such as `metadata.name` or `spec.containers[0].image`. */
  field: string;
  /** Human readable detail. */
  detail: string;
  /** The offending value, rendered into the message where Kubernetes does. */
  value?: unknown;
}

function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** A value as field errors render it: JSON, except bytes as Go's `%#v` prints a `[]byte`. */
function renderValue(v: unknown): string {
  if (!(v instanceof Uint8Array)) return JSON.stringify(v ?? "");
  const hex = Array.from(v, (b) => `0x${b.toString(16).padStart(2, "0")}`);
  return v.length === 0 ? "[]byte(nil)" : `[]byte{${hex.join(", ")}}`;
}

/** Renders one field error the way apimachinery's field.Error.Error() does. */
export function fieldErrorMessage(e: FieldError): string {
  switch (e.type) {
    case "FieldValueRequired":
      return `${e.field}: Required value${e.detail ? `: ${e.detail}` : ""}`;
    case "FieldValueForbidden":
      return `${e.field}: Forbidden${e.detail ? `: ${e.detail}` : ""}`;
    case "FieldValueTooLong":
      return `${e.field}: Too long: ${e.detail}`;
    case "FieldValueTooMany":
      return `${e.field}: Too many: ${e.detail}`;
    case "FieldValueNotFound":
      return `${e.field}: Not found: ${JSON.stringify(e.value ?? "")}`;
    case "FieldValueDuplicate":
      return `${e.field}: Duplicate value: ${JSON.stringify(e.value ?? "")}`;
    case "FieldValueNotSupported":
      return `${e.field}: Unsupported value: ${JSON.stringify(e.value ?? "")}${
        e.detail ? `: ${e.detail}` : ""
      }`;
    case "FieldValueTypeInvalid":
      return `${e.field}: Invalid value: ${JSON.stringify(e.value ?? "")}: ${e.detail}`;
    case "InternalError":
      return `${e.field}: Internal error: ${e.detail}`;
    default:
      return `${e.field}: Invalid value: ${renderValue(e.value)}${e.detail ? `: ${e.detail}` : ""}`;
  }
}

/**
 * Details as kube renders them: `group` is `omitempty`, so the core group's "" is left out, as
 * is a missing name.
 */
function withoutEmptyGroup(details: StatusDetails): StatusDetails {
  const out = { ...details };
  if (!out.group) delete out.group;
  if (out.name === undefined) delete out.name;
  return out;
}

/** An error that renders as a Kubernetes Status object with an HTTP code. */
export class StatusError extends Error {
  /** The full Status body. */
  readonly status: Status;
  /** Extra response headers (for example Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    status: Omit<Status, "kind" | "apiVersion" | "metadata" | "status"> & {
      metadata?: Status["metadata"];
    },
    headers: Record<string, string> = {},
  ) {
    super(status.message ?? status.reason ?? "error");
    this.name = "StatusError";
    this.status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: status.metadata ?? {},
      status: "Failure",
      message: status.message,
      reason: status.reason,
      details: status.details && withoutEmptyGroup(status.details),
      code: status.code,
    };
    if (!this.status.details) delete this.status.details;
    this.headers = headers;
    const retry = status.details?.retryAfterSeconds;
    if (retry && !this.headers["Retry-After"]) this.headers["Retry-After"] = String(retry);
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code;
  }

  /** The Status reason, e.g. `NotFound`. */
  get reason(): string {
    return this.status.reason ?? "";
  }

  /** 400 BadRequest. */
  static badRequest(message: string, causes?: StatusCause[]): StatusError {
    return new StatusError({
      code: 400,
      reason: "BadRequest",
      message,
      ...(causes ? { details: { causes } } : {}),
    });
  }

  /** 401 Unauthorized. */
  static unauthorized(message = "Unauthorized"): StatusError {
    return new StatusError({ code: 401, reason: "Unauthorized", message });
  }

  /** 403 Forbidden about a named resource. */
  static forbidden(gr: GroupResource, name: string, reason: string): StatusError {
    const subject = name ? `${qualified(gr)} "${name}"` : qualified(gr);
    return new StatusError({
      code: 403,
      reason: "Forbidden",
      message: `${subject} is forbidden: ${reason}`,
      details: { name: name || undefined, group: gr.group, kind: gr.resource },
    });
  }

  /** 404 NotFound about a named resource. */
  static notFound(gr: GroupResource, name: string): StatusError {
    return new StatusError({
      code: 404,
      reason: "NotFound",
      message: `${qualified(gr)} "${name}" not found`,
      details: { name, group: gr.group, kind: gr.resource },
    });
  }

  /** 404 NotFound for a path no route serves. */
  static pathNotFound(): StatusError {
    return new StatusError({
      code: 404,
      reason: "NotFound",
      message: "the server could not find the requested resource",
      details: {},
    });
  }

  /** 405 MethodNotAllowed. */
  static methodNotSupported(gr: GroupResource, action: string): StatusError {
    return new StatusError({
      code: 405,
      reason: "MethodNotAllowed",
      message: `${action} is not supported on resources of kind "${qualified(gr)}"`,
      details: { group: gr.group, kind: gr.resource },
    });
  }

  /** 406 NotAcceptable. */
  static notAcceptable(accepted: string[]): StatusError {
    return new StatusError({
      code: 406,
      reason: "NotAcceptable",
      message: `only the following media types are accepted: ${accepted.join(", ")}`,
    });
  }

  /** 415 UnsupportedMediaType. */
  static unsupportedMediaType(contentType: string, supported: string[]): StatusError {
    return new StatusError({
      code: 415,
      reason: "UnsupportedMediaType",
      message: `the body of the request was in an unknown format - accepted media types include: ${
        supported.join(", ")
      }`,
      details: { causes: [{ reason: "UnexpectedServerResponse", message: contentType }] },
    });
  }

  /** 409 AlreadyExists. */
  static alreadyExists(gr: GroupResource, name: string): StatusError {
    return new StatusError({
      code: 409,
      reason: "AlreadyExists",
      message: `${qualified(gr)} "${name}" already exists`,
      details: { name, group: gr.group, kind: gr.resource },
    });
  }

  /** 409 Conflict: a write based on a stale resourceVersion, or a failed precondition. */
  static conflict(gr: GroupResource, name: string, detail?: string): StatusError {
    return new StatusError({
      code: 409,
      reason: "Conflict",
      message: `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${
        detail ??
          "the object has been modified; please apply your changes to the latest version and try again"
      }`,
      details: { name, group: gr.group, kind: gr.resource },
    });
  }

  /** 410 Expired (Gone). */
  static expired(message: string, continueToken?: string): StatusError {
    return new StatusError({
      code: 410,
      reason: "Expired",
      message,
      ...(continueToken ? { metadata: { continue: continueToken } } : {}),
    });
  }

  /** 422 Invalid with one cause per field error. */
  static invalid(
    kind: { group: string; kind: string },
    name: string,
    errors: FieldError[],
  ): StatusError {
    const msgs = errors.map(fieldErrorMessage);
    const q = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
    const list = msgs.length === 1 ? msgs[0] : `[${msgs.join(", ")}]`;
    return new StatusError({
      code: 422,
      reason: "Invalid",
      message: `${q} "${name}" is invalid: ${list}`,
      details: {
        name,
        group: kind.group,
        kind: kind.kind,
        // A cause's message is the error without its field (kube's ErrorBody): clients such
        // as kubectl print `<field>: <message>` from each cause.
        causes: errors.map((e, i) => ({
          reason: e.type,
          message: msgs[i].startsWith(`${e.field}: `) ? msgs[i].slice(e.field.length + 2) : msgs[i],
          field: e.field,
        })),
      },
    });
  }

  /** 413 RequestEntityTooLarge; the message follows "Request entity too large: ". */
  static requestEntityTooLarge(message: string): StatusError {
    return new StatusError({
      code: 413,
      reason: "RequestEntityTooLarge",
      message: `Request entity too large: ${message}`,
    });
  }

  /** 429 TooManyRequests. */
  static tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
    return new StatusError({
      code: 429,
      reason: "TooManyRequests",
      message,
      details: { retryAfterSeconds },
    });
  }

  /** 503 ServiceUnavailable: the server cannot serve this now; retry after the given time. */
  static serviceUnavailable(message: string, retryAfterSeconds: number): StatusError {
    return new StatusError({
      code: 503,
      reason: "ServiceUnavailable",
      message,
      details: { retryAfterSeconds },
    });
  }

  /** 500 InternalError. The detail is shown to the client: never put secrets in it. */
  static internal(detail: string): StatusError {
    return new StatusError({
      code: 500,
      reason: "InternalError",
      message: `Internal error occurred: ${detail}`,
      details: { causes: [{ message: detail }] },
    });
  }

  /** 504 Timeout, e.g. "Too large resource version". */
  static timeout(message: string, retryAfterSeconds: number, causes?: StatusCause[]): StatusError {
    const details: StatusDetails = { retryAfterSeconds };
    if (causes) details.causes = causes;
    return new StatusError({
      code: 504,
      reason: "Timeout",
      message: `Timeout: ${message}`,
      details,
    });
  }

  /** 504 for a resourceVersion the server has not reached in time. */
  static tooLargeResourceVersion(requested: number, current: number): StatusError {
    return StatusError.timeout(
      `Too large resource version: ${requested}, current: ${current}`,
      1,
      [{
        reason: "ResourceVersionTooLarge",
        message: `Too large resource version`,
      }],
    );
  }
}

/** Returns the error as a StatusError, wrapping anything unexpected as a 500. */
export function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return StatusError.internal(msg);
}
