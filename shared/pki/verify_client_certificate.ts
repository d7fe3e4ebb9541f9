/**
 * Client certificate verification. Deno's TLS layer accepts any client certificate when asked
 * for one (node:tls with `requestCert` and `rejectUnauthorized: false`), so this is where a
 * presented chain is checked: signatures up to one of the configured CAs, validity periods,
 * CA constraints on every issuer, and the clientAuth extended key usage. The rules follow Go's
 * crypto/x509 Verify as Kubernetes uses it for `--client-ca-file`.
 *
 * @module
 */
import {
  type Certificate,
  CertificateParseError,
  KeyUsageBit,
  Oid,
  parseCertificate,
} from "./parse_certificate.ts";
import { pemCertificates } from "./pem.ts";
import { bytesEqual, verifyCertificateSignature } from "./signature.ts";

/** The identity a verified client certificate carries. */
export interface VerifiedClient {
  ok: true;
  /** The subject's common name: the user name. */
  commonName: string;
  /** The subject's organizations: the groups. */
  organizations: string[];
  /** The verified chain, leaf first, ending with the trusted CA. */
  chain: Certificate[];
}

/** A rejected client certificate. */
export interface RejectedClient {
  ok: false;
  /** Why, for logs (never contains key material). */
  reason: string;
}

/** The outcome of verifyClientCertificate(). */
export type ClientVerification = VerifiedClient | RejectedClient;

/** Extensions we understand; any other extension marked critical makes a certificate invalid. */
const HANDLED_CRITICAL = new Set<string>([
  Oid.basicConstraints,
  Oid.keyUsage,
  Oid.extKeyUsage,
  Oid.subjectAltName,
  Oid.subjectKeyIdentifier,
  Oid.authorityKeyIdentifier,
  Oid.certificatePolicies,
]);

/** Longest chain accepted, counting the leaf and the root. */
const MAX_CHAIN = 10;
/** Most signatures checked for one chain (Go uses the same bound against crafted chains). */
const MAX_SIGNATURE_CHECKS = 100;

/** Parses a PEM bundle of CA certificates; throws when a block is not a valid certificate. */
export function parseCertificateBundle(pem: string): Certificate[] {
  const ders = pemCertificates(pem);
  if (ders.length === 0) throw new Error("no certificates found in the CA bundle");
  return ders.map((der) => parseCertificate(der));
}

function validAt(cert: Certificate, now: Date): string | null {
  if (now < cert.notBefore) {
    return `certificate "${cert.commonName}" is not yet valid (valid from ${cert.notBefore.toISOString()})`;
  }
  if (now > cert.notAfter) {
    return `certificate "${cert.commonName}" has expired (valid until ${cert.notAfter.toISOString()})`;
  }
  return null;
}

function unhandledCritical(cert: Certificate): string | null {
  for (const [oid, ext] of cert.extensions) {
    if (ext.critical && !HANDLED_CRITICAL.has(oid)) {
      return `certificate "${cert.commonName}" has an unhandled critical extension ${oid}`;
    }
  }
  if (cert.extensions.has(Oid.nameConstraints)) {
    return `certificate "${cert.commonName}" has name constraints, which are not supported`;
  }
  return null;
}

function allowsClientAuth(cert: Certificate): boolean {
  const eku = cert.extKeyUsage;
  return eku === undefined || eku.includes(Oid.ekuClientAuth) || eku.includes(Oid.ekuAny);
}

/**
 * Whether `issuer` may sign certificates: a v3 certificate needs basicConstraints CA:true and,
 * with a keyUsage extension, keyCertSign. A v1 certificate qualifies only as a configured root.
 */
function canSign(issuer: Certificate, isRoot: boolean): boolean {
  if (issuer.version < 3) return isRoot;
  if (!issuer.basicConstraints?.ca) return false;
  if (issuer.keyUsage && !issuer.keyUsage.has(KeyUsageBit.keyCertSign)) return false;
  return true;
}

/**
 * Verifies a client certificate chain as presented in the TLS handshake (DER, leaf first,
 * optional intermediates after it) against a CA bundle (PEM text or parsed certificates).
 * Returns the identity or the reason for rejection; never throws for bad input.
 */
export function verifyClientCertificate(
  chainDer: Uint8Array[],
  caBundle: string | Certificate[],
  now: Date = new Date(),
): ClientVerification {
  const reject = (reason: string): RejectedClient => ({ ok: false, reason });
  if (chainDer.length === 0) return reject("no client certificate presented");
  if (chainDer.length > MAX_CHAIN) return reject("too many certificates presented");
  let roots: Certificate[];
  try {
    roots = typeof caBundle === "string" ? parseCertificateBundle(caBundle) : caBundle;
  } catch (err) {
    return reject(`invalid CA bundle: ${err instanceof Error ? err.message : String(err)}`);
  }
  let presented: Certificate[];
  try {
    presented = chainDer.map((der) => parseCertificate(der));
  } catch (err) {
    if (err instanceof CertificateParseError) return reject(err.message);
    return reject(`invalid certificate: ${String(err)}`);
  }
  const leaf = presented[0];
  const intermediates = presented.slice(1);

  const leafProblem = validAt(leaf, now) ?? unhandledCritical(leaf);
  if (leafProblem) return reject(leafProblem);
  if (!allowsClientAuth(leaf)) {
    return reject(`certificate "${leaf.commonName}" is not valid for client authentication`);
  }

  let lastProblem = `certificate "${leaf.commonName}" is signed by an unknown authority`;
  let checks = 0;
  const signedBy = (cert: Certificate, issuer: Certificate): boolean => {
    if (++checks > MAX_SIGNATURE_CHECKS) {
      lastProblem = "too many signature checks while building the chain";
      return false;
    }
    return verifyCertificateSignature(cert, issuer);
  };
  const search = (chain: Certificate[]): Certificate[] | null => {
    const current = chain[chain.length - 1];
    if (checks > MAX_SIGNATURE_CHECKS) return null;
    for (const root of roots) {
      if (!bytesEqual(root.subjectDer, current.issuerDer)) continue;
      const problem = checkIssuer(root, chain, true, now);
      if (problem) {
        lastProblem = problem;
        continue;
      }
      if (!signedBy(current, root)) continue;
      return [...chain, root];
    }
    if (chain.length + 1 >= MAX_CHAIN) return null;
    for (const candidate of intermediates) {
      if (chain.includes(candidate)) continue;
      if (!bytesEqual(candidate.subjectDer, current.issuerDer)) continue;
      const problem = checkIssuer(candidate, chain, false, now);
      if (problem) {
        lastProblem = problem;
        continue;
      }
      if (!signedBy(current, candidate)) continue;
      const found = search([...chain, candidate]);
      if (found) return found;
    }
    return null;
  };
  const chain = search([leaf]);
  if (!chain) return reject(lastProblem);
  if (!leaf.commonName) return reject("client certificate has no common name");
  return { ok: true, commonName: leaf.commonName, organizations: leaf.organizations, chain };
}

/** Checks that `issuer` may sign the last certificate of `chain`; a reason when it may not. */
function checkIssuer(
  issuer: Certificate,
  chain: Certificate[],
  isRoot: boolean,
  now: Date,
): string | null {
  const name = `"${issuer.commonName}"`;
  if (!canSign(issuer, isRoot)) return `certificate ${name} is not a certificate authority`;
  const problem = validAt(issuer, now) ?? unhandledCritical(issuer);
  if (problem) return problem;
  if (!allowsClientAuth(issuer)) return `certificate ${name} does not allow client authentication`;
  const below = chain.length - 1; // CA certificates between this issuer and the leaf
  const pathLength = issuer.basicConstraints?.pathLength;
  if (pathLength !== undefined && below > pathLength) {
    return `certificate ${name} exceeds its path length constraint`;
  }
  return null;
}
