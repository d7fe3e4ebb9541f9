/**
 * Writing a fetch `Response` to an {@link Exchange}: the head, then the body, whole when it is
 * known ({@link FixedResponse}) or complete at once, else streamed with backpressure, or
 * pushed ({@link PushResponse}) to an HTTP/2 stream.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { StatusError, toStatusError } from "../errors/status_error.ts";
import type { Exchange } from "./exchange.ts";
import { FixedResponse } from "./fixed_response.ts";
import { Http2Stream } from "./http2_stream.ts";
import { type PushSource, pushSourceOf } from "./push_body.ts";
import { type UpgradeCallback, upgradeOf } from "./upgrade_response.ts";

/**
 * Splits a combined header value into its list elements, keeping commas inside quoted strings
 * (Warning values such as `299 - "a, b"` contain them).
 */
export function splitHeaderList(value: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quoted && c === "\\" && i + 1 < value.length) {
      current += c + value[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === "," && !quoted) {
      if (current.trim()) out.push(current.trim());
      current = "";
      continue;
    }
    current += c;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/**
 * The response's header fields as lines (`name: value\r\n`), without the ones the connection
 * sets itself (framing, Connection, Date); Warning and Set-Cookie values each on their own line.
 * `contentLength` is the handler's own Content-Length, if it set one.
 */
function headerLines(headers: Headers): { lines: string; contentLength?: number } {
  let lines = "";
  let contentLength: number | undefined;
  for (const [name, value] of headers) {
    switch (name) {
      case "set-cookie":
      case "transfer-encoding":
      case "connection":
      case "keep-alive":
      case "date":
        continue;
      case "content-length": {
        const n = Number(value);
        if (Number.isSafeInteger(n) && n >= 0) contentLength = n;
        continue;
      }
      case "warning":
        for (const v of splitHeaderList(value)) lines += `warning: ${v}\r\n`;
        continue;
    }
    lines += `${name}: ${value}\r\n`;
  }
  for (const cookie of headers.getSetCookie()) lines += `set-cookie: ${cookie}\r\n`;
  return contentLength === undefined ? { lines } : { lines, contentLength };
}

const NO_BODY_STATUS = new Set([101, 204, 205, 304]);

/** Writes a Response: headers, then the body streamed with backpressure. */
export async function sendResponse(ex: Exchange, response: Response): Promise<void> {
  const { lines, contentLength } = headerLines(response.headers);
  const upgrade = upgradeOf(response);
  if (upgrade) return sendUpgrade(ex, lines, upgrade);
  const status = response.status;
  const statusText = response.statusText;
  const noBody = ex.head.method === "HEAD" || NO_BODY_STATUS.has(status) ||
    (status >= 100 && status < 200);
  if (response instanceof FixedResponse && !response.bodyUsed) {
    const fixed = response.fixedBody;
    // Status line, headers and body in one write.
    ex.respond(status, statusText, lines, noBody ? null : fixed);
    return;
  }
  const body = response.body;
  if (noBody || !body) {
    if (body) await body.cancel().catch(() => {});
    ex.respond(status, statusText, lines, null);
    return;
  }

  // Push bodies go to HTTP/2 streams only. Over HTTP/1.1 each watcher is its own socket, and
  // writing to a thousand of them during one offer costs more per delivered event than the
  // stream path.
  const push = ex instanceof Http2Stream ? pushSourceOf(response) : undefined;
  if (push) {
    return sendPushed(ex as Http2Stream, status, statusText, lines, contentLength, push);
  }

  const signal = ex.signal;
  const reader = body.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  if (signal.aborted) {
    cancel();
    return;
  }
  signal.addEventListener("abort", cancel, { once: true });
  try {
    // Collect what the body yields without waiting: a complete short body is sent whole with
    // a Content-Length, anything still pending is sent chunked as it arrives.
    const first: Uint8Array[] = [];
    let ended = false;
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = reader.read();
    while (pending) {
      const result = await settlesSoon(pending);
      if (result === TIMEOUT) break;
      pending = null;
      if (result.done) {
        ended = true;
        break;
      }
      first.push(result.value);
      pending = reader.read();
    }
    if (signal.aborted) return;
    if (ended && contentLength === undefined) {
      ex.respond(status, statusText, lines, first.length === 1 ? first[0] : Buffer.concat(first));
      return;
    }
    // A body still streaming (a watch) gets its head now, before its first chunk.
    ex.writeHead(status, statusText, lines, contentLength);
    for (const chunk of first) await ex.write(chunk);
    if (pending) {
      let result = await pending;
      while (!result.done) {
        if (signal.aborted) return;
        await ex.write(result.value);
        result = await reader.read();
      }
    }
    if (!signal.aborted) ex.end();
  } catch (err) {
    answerBodyFailure(ex, signal, err);
  } finally {
    signal.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}

/**
 * Switches the exchange's connection to another protocol and hands it to `onUpgrade`; a 400
 * when it cannot switch (HTTP/2, a request body still arriving).
 */
function sendUpgrade(ex: Exchange, lines: string, onUpgrade: UpgradeCallback): void {
  const conn = ex.signal.aborted ? undefined : ex.upgrade?.(lines);
  if (conn) {
    onUpgrade(conn);
    return;
  }
  const status = StatusError.badRequest(
    "the connection cannot be upgraded: upgrades need an HTTP/1.1 request without a body",
  );
  ex.respond(400, "", "content-type: application/json\r\n", JSON.stringify(status.status));
}

/**
 * Answers a response body that failed: with the error's Status while no head is sent yet;
 * once the status is sent, by ending the connection abruptly to tell the client the response
 * is incomplete.
 */
function answerBodyFailure(ex: Exchange, signal: AbortSignal, err: unknown): void {
  if (!ex.headersSent && !signal.aborted) {
    const status = toStatusError(err);
    ex.respond(
      status.code,
      "",
      "content-type: application/json\r\n",
      JSON.stringify(status.status),
    );
  } else {
    ex.destroy();
  }
}

/** Writes a push body: the head, then whatever the source writes until it ends the body. */
function sendPushed(
  ex: Http2Stream,
  status: number,
  statusText: string,
  lines: string,
  contentLength: number | undefined,
  source: PushSource,
): Promise<void> {
  const signal = ex.signal;
  if (signal.aborted) {
    source.cancel();
    return Promise.resolve();
  }
  ex.writeHead(status, statusText, lines, contentLength);
  return new Promise<void>((resolve) => {
    let ended = false;
    const onAbort = () => {
      if (ended) return;
      ended = true;
      source.cancel();
      resolve();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const drain = () => source.drain();
    source.attach({
      write: (chunk) => ended || ex.push(chunk, drain),
      end: () => {
        if (ended) return;
        ended = true;
        signal.removeEventListener("abort", onAbort);
        if (!signal.aborted) ex.end();
        resolve();
      },
    });
  });
}

const TIMEOUT = Symbol("timeout");

/** The promise's result if it settles before the next macrotask, else TIMEOUT. */
function settlesSoon<T>(p: Promise<T>): Promise<T | typeof TIMEOUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), 0);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
