/**
 * listError: a storage error of a list, as the StatusError the client gets.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import { CompactedError, FutureRevisionError } from "../../storage/interface.ts";
import { encodeContinue } from "./continue_token.ts";

/**
 * The error to throw for `err`: 410 Expired for compacted history (with a fresh continue token
 * when the list continued from `continueKeySuffix`), 504 for a future revision, anything else
 * as it is.
 */
export function listError(err: unknown, continueKeySuffix: string | undefined): unknown {
  if (err instanceof CompactedError) {
    if (continueKeySuffix !== undefined) {
      return StatusError.expired(
        "The provided continue parameter is too old to display a consistent list result. " +
          "You can start a new list without the continue parameter, or use the continue " +
          "token in this response to retrieve the remainder of the results. Continuing with " +
          "the provided token results in an inconsistent list - objects that were created, " +
          "modified, or deleted between the time the first chunk was returned and now may " +
          "show up in the list.",
        encodeContinue(-1, continueKeySuffix),
      );
    }
    return StatusError.expired("The resourceVersion for the provided list is too old.");
  }
  if (err instanceof FutureRevisionError) {
    return StatusError.tooLargeResourceVersion(err.requested, err.current);
  }
  return err;
}
