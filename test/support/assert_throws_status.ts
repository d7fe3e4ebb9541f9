/**
 * Assertions that code fails with a {@linkcode StatusError}: its HTTP code, and optionally its
 * message (exact or a pattern) and reason.
 *
 * @module
 */
import assert from "node:assert/strict";
import { StatusError } from "../../shared/errors/status_error.ts";

function checkStatus(
  err: unknown,
  code: number,
  message: string | RegExp | undefined,
  reason: string | undefined,
): StatusError {
  assert.ok(err instanceof StatusError, `expected a StatusError ${code}, got ${err}`);
  assert.equal(err.code, code, err.message);
  if (reason !== undefined) assert.equal(err.reason, reason);
  if (typeof message === "string") assert.equal(err.message, message);
  else if (message !== undefined) assert.match(err.message, message);
  return err;
}

/**
 * Asserts that `fn` throws a StatusError of `code`, with `message` (equal to a string or
 * matching a pattern) and `reason` where given.
 */
export function assertThrowsStatus(
  fn: () => unknown,
  code: number,
  message?: string | RegExp,
  reason?: string,
): void {
  try {
    fn();
  } catch (err) {
    checkStatus(err, code, message, reason);
    return;
  }
  assert.fail(`expected a StatusError ${code}, nothing was thrown`);
}

/** Asserts that `p` rejects with a StatusError of `code` (and `reason`); returns the error. */
export async function assertRejectsStatus(
  p: Promise<unknown>,
  code: number,
  reason?: string,
): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    return checkStatus(err, code, undefined, reason);
  }
  assert.fail(`expected a StatusError ${code}, the promise resolved`);
}
