/**
 * Client certificate authentication (`--client-ca-file`): the chain the client presented in
 * the TLS handshake must verify to one of the configured CAs (signatures, validity, CA
 * constraints, clientAuth usage; see apiserver/pki/verify_client_certificate.ts). The common
 * name is the user name, each organization a group. A certificate that does not verify is an
 * invalid credential (401), so a self-signed `O=system:masters` certificate gets nothing.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Authenticator, AuthResult, ConnectionInfo } from "./authenticator.ts";
import { VerifiedChainCache } from "./verified_chain_cache.ts";

/** The `extra` key naming the credential a user authenticated with (never the secret). */
export const CREDENTIAL_ID_KEY = "authentication.kubernetes.io/credential-id";

/** Authenticates requests by their verified client certificate. */
export class ClientCertificateAuthenticator implements Authenticator {
  readonly name = "x509";
  readonly #verifier: VerifiedChainCache;
  readonly #now: () => Date;
  /** Credential ids by leaf array (the listener presents the same arrays per connection). */
  readonly #credentialIds = new WeakMap<Uint8Array, string>();

  /** `caPem`: one or more CA certificates (PEM); throws if none is valid. */
  constructor(caPem: string, options: { now?: () => Date } = {}) {
    this.#verifier = new VerifiedChainCache(caPem);
    this.#now = options.now ?? (() => new Date());
  }

  authenticate(_req: Request, conn: ConnectionInfo): Promise<AuthResult> {
    if (conn.peerCertificates.length === 0) return Promise.resolve({ kind: "none" });
    const v = this.#verifier.verify(conn.peerCertificates, this.#now());
    if (!v.ok) {
      return Promise.resolve({
        kind: "invalid",
        method: this.name,
        reason: `verifying certificate failed: ${v.reason}`,
      });
    }
    return Promise.resolve({
      kind: "user",
      method: this.name,
      user: {
        username: v.commonName,
        groups: [...v.organizations],
        extra: {
          [CREDENTIAL_ID_KEY]: [this.#credentialId(conn.peerCertificates[0])],
        },
      },
    });
  }

  #credentialId(leaf: Uint8Array): string {
    let id = this.#credentialIds.get(leaf);
    if (id === undefined) {
      id = `X509SHA256=${createHash("sha256").update(leaf).digest("hex")}`;
      this.#credentialIds.set(leaf, id);
    }
    return id;
  }
}
