/**
 * Certificate signatures with node:crypto: signing a TBSCertificate with a private key and
 * checking a certificate's signature against its issuer's public key. Supported: ECDSA
 * (P-256, P-384, P-521) with SHA-256/384/512, RSA PKCS#1 v1.5 with SHA-256/384/512, Ed25519.
 * SHA-1 and MD5 signatures are refused, as Go's crypto/x509 refuses them.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { derNull, derOid, derSequence } from "./der.ts";
import { type Certificate, Oid } from "./parse_certificate.ts";

const HASH_BY_ALGORITHM: Record<string, string | null> = {
  [Oid.ecdsaWithSha256]: "sha256",
  [Oid.ecdsaWithSha384]: "sha384",
  [Oid.ecdsaWithSha512]: "sha512",
  [Oid.sha256WithRsa]: "sha256",
  [Oid.sha384WithRsa]: "sha384",
  [Oid.sha512WithRsa]: "sha512",
  [Oid.ed25519]: null,
};

/** How a key signs: the AlgorithmIdentifier to write and the node:crypto digest name. */
export interface SigningAlgorithm {
  algorithmDer: Uint8Array;
  hash: string | null;
}

/** The signature algorithm to use with a private key (the hash follows the curve size). */
export function signingAlgorithm(key: KeyObject): SigningAlgorithm {
  switch (key.asymmetricKeyType) {
    case "ec": {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      const [oid, hash] = curve === "secp384r1"
        ? [Oid.ecdsaWithSha384, "sha384"]
        : curve === "secp521r1"
        ? [Oid.ecdsaWithSha512, "sha512"]
        : [Oid.ecdsaWithSha256, "sha256"];
      return { algorithmDer: derSequence(derOid(oid)), hash };
    }
    case "rsa":
      return { algorithmDer: derSequence(derOid(Oid.sha256WithRsa), derNull()), hash: "sha256" };
    case "ed25519":
      return { algorithmDer: derSequence(derOid(Oid.ed25519)), hash: null };
    default:
      throw new Error(`unsupported signing key type ${key.asymmetricKeyType}`);
  }
}

/** Signs `data` with `key` using `algorithm`. */
export function signBytes(
  data: Uint8Array,
  key: KeyObject,
  algorithm: SigningAlgorithm,
): Uint8Array {
  return new Uint8Array(sign(algorithm.hash, data, key));
}

/**
 * Whether `cert` carries a valid signature by the key of `issuer` (false for unsupported or
 * weak algorithms, mismatched algorithm fields and unparsable keys).
 */
export function verifyCertificateSignature(cert: Certificate, issuer: Certificate): boolean {
  if (!bytesEqual(cert.signatureAlgorithmDer, cert.tbsSignatureAlgorithmDer)) return false;
  return verifySignedBytes({
    signatureAlgorithm: cert.signatureAlgorithm,
    data: cert.tbsDer,
    signature: cert.signature,
    spkiDer: issuer.spkiDer,
    publicKeyAlgorithm: issuer.publicKeyAlgorithm,
  });
}

/** Signed bytes and the public key that should have signed them. */
export interface SignedBytes {
  /** The signature algorithm OID. */
  signatureAlgorithm: string;
  data: Uint8Array;
  signature: Uint8Array;
  /** The signer's SubjectPublicKeyInfo, DER. */
  spkiDer: Uint8Array;
  /** The signer's public key algorithm OID. */
  publicKeyAlgorithm: string;
}

/** Whether the signature algorithm is one this module verifies. */
export function isSupportedSignatureAlgorithm(oid: string): boolean {
  return oid in HASH_BY_ALGORITHM;
}

/**
 * Whether `signed.signature` is a valid signature of `signed.data` by the key (false for
 * unsupported or weak algorithms, a key of the wrong type and unparsable keys).
 */
export function verifySignedBytes(signed: SignedBytes): boolean {
  const alg = signed.signatureAlgorithm;
  if (!(alg in HASH_BY_ALGORITHM)) return false;
  const hash = HASH_BY_ALGORITHM[alg];
  const isEc = alg.startsWith("1.2.840.10045.4.");
  const isRsa = alg.startsWith("1.2.840.113549.1.1.");
  if (isEc && signed.publicKeyAlgorithm !== Oid.ecPublicKey) return false;
  if (isRsa && signed.publicKeyAlgorithm !== Oid.rsaEncryption) return false;
  if (!isEc && !isRsa && signed.publicKeyAlgorithm !== Oid.ed25519) return false;
  try {
    const key = createPublicKey({ key: toBuffer(signed.spkiDer), format: "der", type: "spki" });
    if (isRsa && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return false;
    return verify(hash, signed.data, key, signed.signature);
  } catch {
    return false;
  }
}

function toBuffer(bytes: Uint8Array) {
  // node:crypto wants a Buffer for DER key input.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Byte-wise equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
