/**
 * The Date field's value (RFC 9110 section 5.6.7) for responses, formatted once per second.
 *
 * @module
 */

let second = -1;
let value = "";

/** The current time as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), formatted once per second. */
export function currentHttpDate(): string {
  const now = Math.floor(Date.now() / 1000);
  if (now !== second) {
    second = now;
    value = new Date(now * 1000).toUTCString();
  }
  return value;
}
