import assert from "node:assert/strict";
import { createServer } from "node:net";
import { AcceptWatchdog } from "../../../shared/http/accept_watchdog.ts";
import { servingPki } from "../../support/test_pki.ts";

const { ca, serving } = await servingPki();

/** Reads lines from a stream into `lines` until it ends. */
async function collect(stream: ReadableStream<Uint8Array>, lines: string[]): Promise<void> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    const parts = rest.split("\n");
    rest = parts.pop()!;
    lines.push(...parts);
  }
  if (rest) lines.push(rest);
}

async function waitFor<T>(what: string, fn: () => T | undefined, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs the test listener under `ulimit -n 256`, opens 400 idle TCP connections to it (no TLS,
 * no data), closes them, and expects it to answer again; returns what it logged.
 */
async function floodWithIdleConnections(): Promise<string[]> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/serving.crt`, serving.certPem);
  await Deno.writeTextFile(`${dir}/serving.key`, serving.keyPem);
  const script = new URL("../../support/descriptor_limited_server.ts", import.meta.url).pathname;
  const child = new Deno.Command("bash", {
    args: [
      "-c",
      'ulimit -n 256 && exec "$0" run -A "$1" "$2"',
      Deno.execPath(),
      script,
      dir,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out: string[] = [];
  const err: string[] = [];
  const reading = Promise.all([collect(child.stdout, out), collect(child.stderr, err)]);
  const idle: Deno.Conn[] = [];
  const client = Deno.createHttpClient({ caCerts: [ca.certPem] });
  try {
    const port = await waitFor(
      "the server's port",
      () => out.map((l) => /^port (\d+)$/.exec(l)?.[1]).find((p) => p) ?? undefined,
      60_000,
    );
    // More idle TCP connections (no TLS, no data) than the server has descriptors.
    for (let i = 0; i < 400; i++) {
      try {
        idle.push(await Deno.connect({ hostname: "127.0.0.1", port: Number(port) }));
      } catch {
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
    for (const c of idle.splice(0)) c.close();
    // Descriptors are free again: the server answers (retrying, as a client would).
    const deadline = Date.now() + 90_000;
    let answer = "";
    while (!answer) {
      try {
        const res = await fetch(`https://127.0.0.1:${port}/readyz`, {
          client,
          signal: AbortSignal.timeout(5_000),
        });
        answer = await res.text();
      } catch (e) {
        if (Date.now() > deadline) {
          const status = await Promise.race([child.status, new Promise((r) => setTimeout(r, 0))]);
          throw new Error(`no answer: ${e}\n${JSON.stringify(status)}\n${err.join("\n")}`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    assert.equal(answer, "ok");
    return err;
  } finally {
    for (const c of idle) c.close();
    client.close();
    try {
      child.kill();
    } catch { /* it has exited */ }
    await child.status;
    await reading;
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("serveHttps() answers again after more idle connections than it has descriptors", async () => {
  const log = await floodWithIdleConnections();
  assert.ok(
    log.some((l) => l.includes("closed connections that did not complete a TLS handshake")),
    log.join("\n"),
  );
});

/** A watchdog on `port` with a clock the test moves; records relistens and warnings. */
function watchdogOn(port: number) {
  const t = { now: 0, relistens: 0, warnings: [] as string[] };
  const watchdog = new AcceptWatchdog({
    hostname: "127.0.0.1",
    port: () => port,
    relisten: () => t.relistens++,
    now: () => t.now,
    probeAfterMs: 5_000,
    probeTimeoutMs: 2_000,
    warn: (message) => t.warnings.push(message),
  });
  return { t, watchdog };
}

Deno.test("AcceptWatchdog has a listener that accepts nothing listen anew", async () => {
  // Nothing listens on the port: the probe is never accepted.
  const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (free.addr as Deno.NetAddr).port;
  free.close();
  const { t, watchdog } = watchdogOn(port);
  try {
    t.now = 5_000;
    watchdog.tick(); // starts a probe
    await new Promise((r) => setTimeout(r, 100));
    t.now = 6_000;
    watchdog.tick();
    assert.equal(t.relistens, 0, "not before the probe timeout");
    t.now = 7_500;
    watchdog.tick();
    assert.equal(t.relistens, 1);
    assert.match(t.warnings[0], /stopped accepting/);
  } finally {
    watchdog.stop();
  }
});

Deno.test("AcceptWatchdog leaves a listener that accepts its probe alone", async () => {
  const seen = { accepted: () => {} };
  const server = createServer((socket) => socket.destroy());
  server.on("connection", () => seen.accepted());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { t, watchdog } = watchdogOn((server.address() as { port: number }).port);
  seen.accepted = () => watchdog.accepted();
  try {
    for (let i = 1; i <= 10; i++) {
      t.now = i * 3_000;
      watchdog.tick();
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(t.relistens, 0);
    assert.deepEqual(t.warnings, []);
  } finally {
    watchdog.stop();
    await new Promise((r) => server.close(r));
  }
});
