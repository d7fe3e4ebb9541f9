/**
 * Notices when a listener has stopped accepting connections and has it listen anew.
 *
 * Why: under Deno, a `node:net` listener whose accept fails for want of file descriptors
 * (EMFILE, ENFILE) stops accepting for good and says nothing, not even once descriptors are
 * free again; its queue fills and every client hangs. The failure cannot be observed from
 * JavaScript, so the watchdog tests for it: when no connection has come for a while it opens
 * one to the listener itself, and if that is not accepted within a timeout (and a few turns of
 * the event loop, so that a busy loop is not mistaken for a stalled listener), the listener is
 * closed and opened again on the same port. Connections already accepted are not affected;
 * those waiting in the stalled queue are reset, and their clients retry.
 *
 * @module
 */
import { connect, type Socket } from "node:net";
import { readDescriptorLimit } from "./descriptor_limit.ts";

/** Options of {@link AcceptWatchdog}. */
export interface AcceptWatchdogOptions {
  /** Where the listener listens (a wildcard address is probed on loopback). */
  hostname: string;
  port: () => number;
  /** Closes the listener and listens anew. */
  relisten: () => void;
  /** Clock (ms). */
  now: () => number;
  /** Probe when no connection came for this long (ms). */
  probeAfterMs: number;
  /** A probe not accepted within this long (and two ticks) means the listener stalled (ms). */
  probeTimeoutMs: number;
  /** Reports a stalled listener. */
  warn: (message: string, fields: Record<string, unknown>) => void;
}

/** See the module documentation. */
export class AcceptWatchdog {
  #opts: AcceptWatchdogOptions;
  #lastAccept: number;
  #probe: { socket: Socket | undefined; since: number; ticks: number } | undefined;
  #stopped = false;

  constructor(opts: AcceptWatchdogOptions) {
    this.#opts = opts;
    this.#lastAccept = opts.now();
  }

  /** The listener accepted a connection. */
  accepted(): void {
    this.#lastAccept = this.#opts.now();
    if (this.#probe) this.#endProbe();
  }

  /** Checks on the listener; call it now and then (every few seconds). */
  tick(): void {
    if (this.#stopped) return;
    const now = this.#opts.now();
    const probe = this.#probe;
    if (!probe) {
      if (now - this.#lastAccept >= this.#opts.probeAfterMs) this.#startProbe(now);
      return;
    }
    probe.ticks++;
    if (probe.ticks < 2 || now - probe.since < this.#opts.probeTimeoutMs) return;
    this.#endProbe();
    this.#opts.warn("the listener stopped accepting connections; listening anew", {
      port: this.#opts.port(),
      sinceLastAcceptMs: now - this.#lastAccept,
      ...descriptorUse(),
    });
    this.#lastAccept = now;
    this.#opts.relisten();
  }

  /** Stops probing (the server is closing). */
  stop(): void {
    this.#stopped = true;
    this.#endProbe();
  }

  #startProbe(now: number): void {
    const probe: { socket: Socket | undefined; since: number; ticks: number } = {
      socket: undefined,
      since: now,
      ticks: 0,
    };
    this.#probe = probe;
    const host = this.#opts.hostname;
    const target = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "::1" : host;
    try {
      const socket = connect({ host: target, port: this.#opts.port() });
      probe.socket = socket;
      // Only the server's accept matters: the probe's own end closes once connected.
      socket.on("connect", () => socket.destroy());
      socket.on("error", () => socket.destroy());
    } catch {
      // No descriptor for the probe either: the timeout decides.
    }
  }

  #endProbe(): void {
    this.#probe?.socket?.destroy();
    this.#probe = undefined;
  }
}

/** How many file descriptors the process has open, and its limit, when Linux tells. */
function descriptorUse(): { openDescriptors?: number; descriptorLimit?: number } {
  const out: { openDescriptors?: number; descriptorLimit?: number } = {};
  try {
    let n = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) n++;
    out.openDescriptors = n;
  } catch { /* not Linux, or no descriptor left to read it */ }
  const limit = readDescriptorLimit();
  if (limit) out.descriptorLimit = limit.soft;
  return out;
}
