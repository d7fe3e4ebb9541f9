/**
 * One timed round of GETs for the throughput benchmarks: `concurrency` workers GET `url` until
 * `roundMs` has passed; answers the successful GETs per second, and throws when any failed.
 *
 * @module
 */

/** What one round GETs, and how hard. */
export interface GetRound {
  /** Names the round in the error. */
  name: string;
  url: string;
  client: Deno.HttpClient;
  headers: HeadersInit;
  concurrency: number;
  roundMs: number;
}

/** See the module documentation. */
export async function getRound(r: GetRound): Promise<number> {
  const end = performance.now() + r.roundMs;
  let n = 0, failures = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const res = await fetch(r.url, { client: r.client, headers: r.headers });
      await res.body?.cancel();
      if (res.status === 200) n++;
      else failures++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: r.concurrency }, worker));
  if (failures) throw new Error(`${r.name}: ${failures} requests failed`);
  return n / ((performance.now() - started) / 1000);
}
