/**
 * Finds free TCP ports on loopback for servers that cannot pick their own (etcd).
 *
 * @module
 */

/** Returns a TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    return (listener.addr as Deno.NetAddr).port;
  } finally {
    listener.close();
  }
}
