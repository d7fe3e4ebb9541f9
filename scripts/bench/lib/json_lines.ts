/**
 * JSON messages over a byte stream, one per line: how the watch benchmark talks to its client
 * subprocesses (commands on stdin, replies on stdout).
 *
 * @module
 */

const encoder = new TextEncoder();

/** Reads JSON values, one per line, from `stream` until it ends. */
export async function* readJsonLines(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) yield JSON.parse(line);
    }
  }
  if (buffered.trim()) yield JSON.parse(buffered);
}

/** Encodes one value as a JSON line. */
export function jsonLine(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value) + "\n");
}
