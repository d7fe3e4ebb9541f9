/**
 * An HTTP/1.1 chunked body decoder for the watch benchmark's client ({@link ./watch_client.ts}).
 *
 * @module
 */

/** Decodes an HTTP/1.1 chunked body fed in pieces, passing each piece of data on as text. */
export class ChunkedBody {
  /** The last (empty) chunk was read. */
  finished = false;
  #decoder = new TextDecoder();
  /** Bytes of the current chunk still to come; -1 while reading a size line. */
  #remaining = -1;
  /** The size line read so far. */
  #sizeLine = "";
  /** CRLF bytes after a chunk's data still to skip. */
  #skip = 0;

  /** `onText` is given the data of each {@link feed} as text, with the time it was read. */
  constructor(readonly onText: (text: string, at: number) => void) {}

  /** Decodes `bytes`, read at `at` (ms since the epoch). */
  feed(bytes: Uint8Array, at: number): void {
    let i = 0;
    let text = "";
    while (i < bytes.length && !this.finished) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, bytes.length - i);
        this.#skip -= n;
        i += n;
      } else if (this.#remaining < 0) {
        const lf = bytes.indexOf(10, i);
        const end = lf < 0 ? bytes.length : lf;
        this.#sizeLine += String.fromCharCode(...bytes.subarray(i, end));
        i = lf < 0 ? bytes.length : lf + 1;
        if (lf >= 0) {
          const size = parseInt(this.#sizeLine.trim().split(";")[0], 16);
          this.#sizeLine = "";
          if (!Number.isFinite(size) || size < 0) throw new Error("malformed chunk size");
          if (size === 0) this.finished = true;
          else this.#remaining = size;
        }
      } else {
        const n = Math.min(this.#remaining, bytes.length - i);
        text += this.#decoder.decode(bytes.subarray(i, i + n), { stream: true });
        this.#remaining -= n;
        i += n;
        if (this.#remaining === 0) {
          this.#remaining = -1;
          this.#skip = 2;
        }
      }
    }
    if (text) this.onText(text, at);
  }
}
