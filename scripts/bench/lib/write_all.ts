/**
 * Writing a whole buffer to a Deno connection.
 *
 * @module
 */

/** Writes all of `bytes` to `conn` (a single write may take only part of them). */
export async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}
