/**
 * The periodic sweep of an HTTPS server's connections and listener.
 *
 * @module
 */
import type { AcceptWatchdog } from "./accept_watchdog.ts";
import type { ConnectionGuard } from "./connection_guard.ts";
import type { Http1Connection } from "./http1_connection.ts";
import type { Http2Connection } from "./http2_connection.ts";

/**
 * Starts the timer that closes idle keep-alive connections and heads that never finish
 * arriving, as kube-apiserver's IdleTimeout and ReadHeaderTimeout do, and handshakes that take
 * too long (`guard`); the listener (`watchdog`) is checked on every second.
 */
export function startSweep(
  connections: ReadonlySet<Http1Connection | Http2Connection>,
  guard: ConnectionGuard,
  watchdog: AcceptWatchdog,
  now: () => number,
  timeouts: { idleTimeoutMs: number; readHeaderTimeoutMs: number; handshakeTimeoutMs: number },
): ReturnType<typeof setInterval> {
  const { idleTimeoutMs, readHeaderTimeoutMs, handshakeTimeoutMs } = timeouts;
  const sweepMs = Math.max(
    10,
    Math.min(5000, idleTimeoutMs / 2, readHeaderTimeoutMs / 2, handshakeTimeoutMs / 2),
  );
  const tickMs = Math.min(1000, sweepMs);
  const ticksPerSweep = Math.max(1, Math.round(sweepMs / tickMs));
  let ticks = 0;
  return setInterval(() => {
    watchdog.tick();
    if (++ticks % ticksPerSweep !== 0) return;
    const t = now();
    guard.sweep();
    for (const conn of connections) {
      const { kind, since } = conn.state;
      if (
        (kind === "idle" && t - since > idleTimeoutMs) ||
        (kind === "head" && t - since > readHeaderTimeoutMs)
      ) conn.destroy();
    }
  }, tickMs);
}
