/**
 * A small cache of client-certificate verifications, keyed by the SHA-256 of the presented
 * chain. A hit is used only while every certificate of the verified chain is still within its
 * validity period, so an expiring certificate stops working on time. Only successes are kept
 * (a failure costs the attacker as much as us); the oldest entry goes when the cache is full.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Certificate } from "../../../shared/pki/parse_certificate.ts";
import {
  parseCertificateBundle,
  type VerifiedClient,
  verifyClientCertificate,
} from "../../../shared/pki/verify_client_certificate.ts";

/** Verifies client certificate chains against a CA bundle, remembering successes. */
export class VerifiedChainCache {
  readonly #roots: Certificate[];
  readonly #max: number;
  readonly #entries = new Map<string, { client: VerifiedClient; from: number; until: number }>();
  /** Cache keys by leaf array: a kept-alive connection presents the same arrays each time. */
  readonly #keys = new WeakMap<Uint8Array, { chain: Uint8Array[]; key: string }>();

  /** `caPem` is the CA bundle; throws when it holds no valid certificate. */
  constructor(caPem: string, options: { maxEntries?: number } = {}) {
    this.#roots = parseCertificateBundle(caPem);
    this.#max = options.maxEntries ?? 4096;
  }

  /**
   * Verifies `chain` (DER, leaf first) at `now`. The same arrays presented again (as the
   * listener does on a kept-alive connection) skip hashing, so do not modify a chain's bytes
   * after passing it.
   */
  verify(
    chain: Uint8Array[],
    now: Date = new Date(),
  ): VerifiedClient | { ok: false; reason: string } {
    const key = this.#keyOf(chain);
    const t = now.getTime();
    const hit = this.#entries.get(key);
    if (hit && t >= hit.from && t <= hit.until) return hit.client;
    if (hit) this.#entries.delete(key);
    const result = verifyClientCertificate(chain, this.#roots, now);
    if (!result.ok) return result;
    const from = Math.max(...result.chain.map((c) => c.notBefore.getTime()));
    const until = Math.min(...result.chain.map((c) => c.notAfter.getTime()));
    if (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { client: result, from, until });
    return result;
  }

  #keyOf(chain: Uint8Array[]): string {
    const memo = chain.length > 0 ? this.#keys.get(chain[0]) : undefined;
    if (
      memo && memo.chain.length === chain.length && memo.chain.every((c, i) => c === chain[i])
    ) {
      return memo.key;
    }
    const h = createHash("sha256");
    for (const der of chain) h.update(der).update("|");
    const key = h.digest("base64");
    if (chain.length > 0) this.#keys.set(chain[0], { chain: [...chain], key });
    return key;
  }
}
