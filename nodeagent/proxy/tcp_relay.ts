/**
 * Copies bytes both ways between a client connection and a backend connection, passing a
 * half-close on (one side's end of stream becomes a write shutdown on the other), and closes
 * both when both directions are done or when {@link TcpRelay.close} is called.
 *
 * @module
 */

/** A relayed pair of connections. */
export class TcpRelay {
  #closed = false;
  /** Resolves when both directions are done and the connections are closed. */
  readonly done: Promise<void>;

  constructor(readonly client: Deno.Conn, readonly backend: Deno.Conn) {
    this.done = Promise.all([this.#copy(client, backend), this.#copy(backend, client)])
      .then(() => this.close());
  }

  /** Ends both connections now. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const c of [this.client, this.backend]) {
      try {
        c.close();
      } catch { /* already closed */ }
    }
  }

  async #copy(from: Deno.Conn, to: Deno.Conn): Promise<void> {
    const buf = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await from.read(buf);
        if (n === null) break;
        let off = 0;
        while (off < n) off += await to.write(buf.subarray(off, n));
      }
      await to.closeWrite();
    } catch {
      // A reset or a close on either side ends the pair.
      this.close();
    }
  }
}
