/**
 * An incremental decoder of the chunked transfer coding (RFC 9112 section 7.1) for request
 * bodies: bytes go in as they arrive, body data comes out, and it reports where the body ends
 * so the bytes after it (a pipelined request) stay with the connection.
 *
 * @module
 */

/** Longest chunk-size line (size, extensions) and longest trailer section accepted. */
const MAX_LINE_BYTES = 4096;
const MAX_TRAILER_BYTES = 64 * 1024;

type State = "size" | "data" | "dataEnd" | "trailer" | "done";

/** Thrown for bytes that are not a well-formed chunked body. */
export class ChunkedBodyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChunkedBodyError";
  }
}

/** See the module documentation. */
export class ChunkedDecoder {
  #state: State = "size";
  #remaining = 0;
  #line = "";
  #trailerBytes = 0;

  /** Whether the last chunk and the trailer section have been read. */
  get done(): boolean {
    return this.#state === "done";
  }

  /**
   * Decodes `input`: calls `onData` with each piece of body data (views of `input`) and
   * returns how many bytes of `input` belong to the body; once {@link done}, the rest of
   * `input` is not part of it. Throws {@link ChunkedBodyError}.
   */
  push(input: Uint8Array, onData: (data: Uint8Array) => void): number {
    let i = 0;
    while (i < input.length && this.#state !== "done") {
      switch (this.#state) {
        case "data": {
          const n = Math.min(this.#remaining, input.length - i);
          onData(input.subarray(i, i + n));
          i += n;
          this.#remaining -= n;
          if (this.#remaining === 0) this.#state = "dataEnd";
          break;
        }
        case "size":
        case "dataEnd":
        case "trailer": {
          const nl = input.indexOf(0x0a, i);
          const end = nl < 0 ? input.length : nl + 1;
          for (let j = i; j < end; j++) this.#line += String.fromCharCode(input[j]);
          if (this.#state === "trailer") this.#trailerBytes += end - i;
          i = end;
          if (this.#line.length > MAX_LINE_BYTES || this.#trailerBytes > MAX_TRAILER_BYTES) {
            throw new ChunkedBodyError("chunk line or trailer section too long");
          }
          if (nl < 0) break;
          if (!this.#line.endsWith("\r\n")) throw new ChunkedBodyError("line not ended by CRLF");
          const line = this.#line.slice(0, -2);
          this.#line = "";
          this.#lineDone(line);
          break;
        }
      }
    }
    return i;
  }

  #lineDone(line: string): void {
    switch (this.#state) {
      case "size": {
        const semi = line.indexOf(";");
        const hex = (semi < 0 ? line : line.slice(0, semi)).replace(/[ \t]+$/, "");
        if (!/^[0-9A-Fa-f]{1,12}$/.test(hex)) throw new ChunkedBodyError("malformed chunk size");
        this.#remaining = parseInt(hex, 16);
        this.#state = this.#remaining === 0 ? "trailer" : "data";
        return;
      }
      case "dataEnd":
        if (line !== "") throw new ChunkedBodyError("chunk data not followed by CRLF");
        this.#state = "size";
        return;
      case "trailer":
        if (line === "") this.#state = "done";
        return;
    }
  }
}
