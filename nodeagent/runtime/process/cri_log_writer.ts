/**
 * Writes a container's output in the kubelet's CRI log format: one record per line,
 * `<RFC 3339 time with nanoseconds> <stdout|stderr> <F|P> <content>\n`, where `P` marks a
 * partial line (the output so far did not end with a newline) continued by the next record.
 *
 * @module
 */

const encoder = new TextEncoder();

/** The record time: RFC 3339 with nanoseconds, as the kubelet writes it. */
export function criTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, 23)}000000Z`;
}

/**
 * Splits `chunk` of stream `stream` into CRI log records (complete lines `F`, a trailing
 * partial line `P`).
 */
export function criRecords(stream: "stdout" | "stderr", chunk: Uint8Array, ms: number): Uint8Array {
  const ts = criTimestamp(ms);
  const parts: Uint8Array[] = [];
  let start = 0;
  while (start < chunk.length) {
    const nl = chunk.indexOf(0x0a, start);
    const end = nl < 0 ? chunk.length : nl;
    parts.push(encoder.encode(`${ts} ${stream} ${nl < 0 ? "P" : "F"} `));
    parts.push(chunk.subarray(start, end));
    parts.push(encoder.encode("\n"));
    start = end + 1;
  }
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) (out.set(p, off), off += p.length);
  return out;
}
