/**
 * A {@link ./watch_client.ts} subprocess seen from the benchmark: it is sent its config and
 * commands as JSON lines and answers each with one line; its clock offset against this
 * process is measured by ping.
 *
 * @module
 */
import { jsonLine, readJsonLines } from "./json_lines.ts";
import { wallNow } from "./wall_now.ts";
import type { WatchClientCommand, WatchClientConfig } from "./watch_client.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** One watch client subprocess. */
export class ClientProcess {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #replies: AsyncGenerator<unknown>;
  /** This client's clock minus ours (ms). */
  offset = 0;
  rtt = Infinity;

  constructor(config: WatchClientConfig) {
    this.child = new Deno.Command(`${ROOT}scripts/deno`, {
      args: ["run", "-A", "scripts/bench/lib/watch_client.ts"],
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#replies = readJsonLines(this.child.stdout);
    this.#writer.write(jsonLine(config));
  }

  get pid(): number {
    return this.child.pid;
  }

  async send<T>(cmd: WatchClientCommand): Promise<T> {
    await this.#writer.write(jsonLine(cmd));
    const r = await this.#replies.next();
    if (r.done) throw new Error("watch client exited");
    const v = r.value as { error?: string };
    if (v.error) throw new Error(`watch client: ${v.error}`);
    return v as T;
  }

  /** Measures the clock offset: the smallest round trip of several pings wins. */
  async calibrate(): Promise<void> {
    for (let i = 0; i < 7; i++) {
      const t0 = wallNow();
      const { now } = await this.send<{ now: number }>({ op: "ping" });
      const t1 = wallNow();
      if (t1 - t0 < this.rtt) {
        this.rtt = t1 - t0;
        this.offset = now - (t0 + t1) / 2;
      }
    }
  }

  async exit(): Promise<void> {
    await this.#writer.write(jsonLine({ op: "exit" })).catch(() => {});
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await this.child.status;
    clearTimeout(timer);
    for await (const _ of this.#replies) { /* drain */ }
  }
}
