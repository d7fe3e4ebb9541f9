/**
 * Limits on the TCP connections of a listener, so that clients that never finish a TLS
 * handshake (idle connections, slow or broken clients, a flood) cannot take every file
 * descriptor: a connection still in its handshake after a timeout is closed, at most so many
 * connections may be in their handshake at once (beyond that the oldest is closed), and at most
 * so many are open in all (beyond that a new one is closed at once).
 *
 * @module
 */
import type { Socket } from "node:net";

/** Options of {@link ConnectionGuard}. */
export interface ConnectionGuardOptions {
  /** Most open connections (Infinity for no limit). */
  maxConnections: number;
  /** Most connections in their TLS handshake at once. */
  maxHandshaking: number;
  /** A connection still in its handshake after this long is closed (ms). */
  handshakeTimeoutMs: number;
  /** Clock (ms). */
  now: () => number;
  /** Reports connections closed for a limit, at most once per {@link WARN_INTERVAL_MS}. */
  warn: (message: string, fields: Record<string, unknown>) => void;
}

/** The shortest time between two reports of connections closed for a limit. */
export const WARN_INTERVAL_MS = 10_000;

/** See the module documentation. */
export class ConnectionGuard {
  #opts: ConnectionGuardOptions;
  #open = 0;
  /** Connections in their handshake by remote address, oldest first, with when they came. */
  #handshaking = new Map<string, { socket: Socket; since: number }>();
  #closedForLimit = 0;
  #timedOut = 0;
  #lastWarn = -Infinity;

  constructor(opts: ConnectionGuardOptions) {
    this.#opts = opts;
  }

  /** Connections open, and those of them in their handshake. */
  get counts(): { open: number; handshaking: number } {
    return { open: this.#open, handshaking: this.#handshaking.size };
  }

  /** A TCP connection was accepted (before its TLS handshake). */
  accepted(socket: Socket): void {
    const key = keyOf(socket);
    if (key === undefined) {
      socket.destroy();
      return;
    }
    if (this.#open >= this.#opts.maxConnections && !this.#closeOldestHandshaking()) {
      this.#closedForLimit++;
      this.#report();
      socket.destroy();
      return;
    }
    if (this.#handshaking.size >= this.#opts.maxHandshaking) this.#closeOldestHandshaking();
    this.#open++;
    this.#handshaking.set(key, { socket, since: this.#opts.now() });
    socket.once("close", () => {
      this.#open--;
      if (this.#handshaking.get(key)?.socket === socket) this.#handshaking.delete(key);
    });
  }

  /** The TLS handshake of a connection is complete. */
  secured(socket: Socket): void {
    const key = keyOf(socket);
    if (key !== undefined) this.#handshaking.delete(key);
  }

  /** Closes connections whose handshake took too long; call it now and then. */
  sweep(): void {
    const deadline = this.#opts.now() - this.#opts.handshakeTimeoutMs;
    for (const [key, { socket, since }] of this.#handshaking) {
      // Oldest first: the rest came later.
      if (since > deadline) break;
      this.#handshaking.delete(key);
      this.#timedOut++;
      socket.destroy();
    }
    this.#report();
  }

  #closeOldestHandshaking(): boolean {
    for (const [key, { socket }] of this.#handshaking) {
      this.#handshaking.delete(key);
      this.#closedForLimit++;
      this.#report();
      socket.destroy();
      return true;
    }
    return false;
  }

  #report(): void {
    if (this.#closedForLimit === 0 && this.#timedOut === 0) return;
    const now = this.#opts.now();
    if (now - this.#lastWarn < WARN_INTERVAL_MS) return;
    this.#lastWarn = now;
    this.#opts.warn("closed connections that did not complete a TLS handshake", {
      overLimit: this.#closedForLimit,
      handshakeTimeout: this.#timedOut,
      open: this.#open,
      handshaking: this.#handshaking.size,
      maxConnections: this.#opts.maxConnections,
      maxHandshaking: this.#opts.maxHandshaking,
    });
    this.#closedForLimit = 0;
    this.#timedOut = 0;
  }
}

/** The remote end of a connection, which tells it apart from the listener's other ones. */
function keyOf(socket: Socket): string | undefined {
  const address = socket.remoteAddress;
  const port = socket.remotePort;
  return address === undefined || port === undefined ? undefined : `${address} ${port}`;
}
