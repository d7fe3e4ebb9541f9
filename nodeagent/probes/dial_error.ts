/**
 * Words a connection error as Go's `net.Dial` does (`dial tcp 10.0.0.1:80: connect: connection
 * refused`), since probe failures show them in events.
 *
 * @module
 */

const ERRNO_TEXT: Record<string, string> = {
  ECONNREFUSED: "connect: connection refused",
  ECONNRESET: "read: connection reset by peer",
  EHOSTUNREACH: "connect: no route to host",
  ENETUNREACH: "connect: network is unreachable",
  ETIMEDOUT: "i/o timeout",
};

/** `host:port`, with brackets around an IPv6 host. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** `dial tcp <host:port>: <cause>` for a connection error. */
export function dialError(host: string, port: number, err: unknown): string {
  const e = err as { code?: string; message?: string; name?: string };
  const code = e?.code ?? (e?.name === "ConnectionRefused" ? "ECONNREFUSED" : undefined);
  const cause = (code && ERRNO_TEXT[code]) ?? String(e?.message ?? err);
  return `dial tcp ${joinHostPort(host, port)}: ${cause}`;
}
