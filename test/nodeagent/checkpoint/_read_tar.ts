/** Test helper: reads a tar file into memory. */
import { extract } from "tar-stream";

/** Reads every entry of a tar file into memory. */
export async function readTar(path: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const ex = extract();
  const feed = (async () => {
    for await (const chunk of (await Deno.open(path)).readable) ex.write(chunk);
    ex.end(undefined);
  })();
  for await (const entry of ex) {
    const parts: Uint8Array[] = [];
    for await (const c of entry) parts.push(c as Uint8Array);
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) all.set(p, (o += p.length) - p.length);
    out.set(entry.header.name, all);
  }
  await feed;
  return out;
}
