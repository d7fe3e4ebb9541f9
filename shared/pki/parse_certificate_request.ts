/**
 * PKCS#10 certificate requests (RFC 2986): parsing the `CERTIFICATE REQUEST` PEM block of a
 * CertificateSigningRequest and checking its self-signature, as Kubernetes' `ParseCSR` and Go's
 * `CertificateRequest.CheckSignature` do.
 *
 * @module
 */
import {
  decodeBitString,
  decodeOid,
  decodeSmallInteger,
  derChildren,
  expectTag,
  readDer,
} from "./der_reader.ts";
import { Oid, parseName } from "./parse_certificate.ts";
import { type PemBlock, pemDecodeAll } from "./pem.ts";
import { isSupportedSignatureAlgorithm, verifySignedBytes } from "./signature.ts";

/** A parsed certificate request: the signed part, its signature and the requester's key. */
export interface CertificateRequest {
  /** CertificationRequestInfo, exactly as encoded (the signed bytes). */
  infoDer: Uint8Array;
  signatureAlgorithm: string;
  signature: Uint8Array;
  /** SubjectPublicKeyInfo, DER. */
  spkiDer: Uint8Array;
  publicKeyAlgorithm: string;
  /** Every organization (O) of the subject, in order. */
  organizations: string[];
}

/** Parses the DER of a PKCS#10 CertificationRequest; throws an Error on malformed input. */
export function parseCertificateRequestDer(der: Uint8Array): CertificateRequest {
  const [info, sigAlg, sigValue, ...extra] = derChildren(
    expectTag(readDer(der), 0x30, "certificate request"),
  );
  if (extra.length) throw new Error("asn1: syntax error: trailing data");
  expectTag(info, 0x30, "certificationRequestInfo");
  const [version, subject, spki] = derChildren(info);
  if (decodeSmallInteger(expectTag(version, 0x02, "version").content) !== 0) {
    throw new Error("x509: unsupported certificate request version");
  }
  expectTag(subject, 0x30, "subject");
  expectTag(spki, 0x30, "subjectPublicKeyInfo");
  const [pkAlg] = derChildren(spki);
  const [pkOid] = derChildren(expectTag(pkAlg, 0x30, "public key algorithm"));
  const [algOid] = derChildren(expectTag(sigAlg, 0x30, "signatureAlgorithm"));
  const signature = decodeBitString(expectTag(sigValue, 0x03, "signature").content);
  return {
    infoDer: info.raw,
    signatureAlgorithm: decodeOid(expectTag(algOid, 0x06, "algorithm").content),
    signature: signature.bytes,
    spkiDer: spki.raw,
    publicKeyAlgorithm: decodeOid(expectTag(pkOid, 0x06, "public key algorithm").content),
    organizations: parseName(subject).filter((a) => a.oid === Oid.organization).map((a) => a.value),
  };
}

/** The certificate request in the first PEM block of `pem`, or undefined when there is none. */
export function parseCertificateRequestPem(pem: Uint8Array): CertificateRequest | undefined {
  try {
    const block = pemDecodeAll(new TextDecoder().decode(pem))[0];
    if (block?.label !== "CERTIFICATE REQUEST") return undefined;
    return parseCertificateRequestDer(block.der);
  } catch {
    return undefined;
  }
}

/**
 * Parses the first PEM block of `pem` as a certificate request and checks its signature; returns
 * the reason it is unacceptable (Kubernetes' and Go's messages), or undefined when it is valid.
 */
export function certificateRequestProblem(pem: Uint8Array): string | undefined {
  let blocks: PemBlock[];
  try {
    blocks = pemDecodeAll(new TextDecoder().decode(pem));
  } catch {
    blocks = [];
  }
  const block = blocks[0];
  if (!block || block.label !== "CERTIFICATE REQUEST") {
    return "PEM block type must be CERTIFICATE REQUEST";
  }
  let csr: CertificateRequest;
  try {
    csr = parseCertificateRequestDer(block.der);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return msg.startsWith("malformed DER") ? `asn1: structure error: ${msg}` : msg;
  }
  if (!isSupportedSignatureAlgorithm(csr.signatureAlgorithm)) {
    return "x509: cannot verify signature: algorithm unimplemented";
  }
  if (verifySignedBytes({ ...csr, data: csr.infoDer })) return undefined;
  switch (csr.publicKeyAlgorithm) {
    case Oid.ecPublicKey:
      return "x509: ECDSA verification failure";
    case Oid.rsaEncryption:
      return "crypto/rsa: verification error";
    default:
      return "x509: Ed25519 verification failure";
  }
}
