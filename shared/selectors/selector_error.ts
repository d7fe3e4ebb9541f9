/**
 * The error a malformed or unsupported selector raises. It is a 400 BadRequest StatusError, so
 * the HTTP layer renders it as Kubernetes does without translating it.
 *
 * @module
 */
import { StatusError } from "../errors/status_error.ts";

/** A selector that cannot be parsed or uses an unsupported field; renders as 400 BadRequest. */
export class SelectorError extends StatusError {
  constructor(message: string) {
    super({ code: 400, reason: "BadRequest", message });
    this.name = "SelectorError";
  }
}
