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

  /** `caPem` is the CA bundle; throws when it holds no valid certificate. */
  constructor(caPem: string, options: { maxEntries?: number } = {}) {
    this.#roots = parseCertificateBundle(caPem);
    this.#max = options.maxEntries ?? 4096;
  }

  /** Verifies `chain` (DER, leaf first) at `now`. */
  verify(
    chain: Uint8Array[],
    now: Date = new Date(),
  ): VerifiedClient | { ok: false; reason: string } {
    const h = createHash("sha256");
    for (const der of chain) h.update(der).update("|");
    const key = h.digest("base64");
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
}
