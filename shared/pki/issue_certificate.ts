/**
 * Certificate issuance: self-signed certificate authorities and leaf certificates for servers
 * and clients, written with our own DER encoder and signed with ECDSA P-256 / SHA-256. Keys are
 * returned as PKCS#8 PEM, which Deno's TLS accepts.
 *
 * @module
 */
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import {
  derBitString,
  derBoolean,
  derExplicit,
  derImplicit,
  derInteger,
  derNamedBits,
  derOctetString,
  derOid,
  derSequence,
  derSet,
  derTime,
  derUtf8String,
} from "./der.ts";
import { decodeBitString, derChildren, readDer } from "./der_reader.ts";
import { parseIpAddress } from "./ip_address.ts";
import { KeyUsageBit, Oid, parseCertificate } from "./parse_certificate.ts";
import { pemCertificates, pemEncode } from "./pem.ts";
import { signBytes, signingAlgorithm } from "./signature.ts";

/** A certificate with its private key, both PEM. */
export interface CertificateAndKey {
  /** The certificate, PEM `CERTIFICATE`. */
  certPem: string;
  /** The private key, PEM PKCS#8 `PRIVATE KEY`. */
  keyPem: string;
}

/** Options of issueCertificate(). */
export interface IssueOptions {
  /** The signing CA (its certificate and key); without it the certificate is self-signed. */
  ca?: CertificateAndKey;
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  /** Extended key usage: serverAuth or clientAuth. */
  usages: "server" | "client";
  /** Validity in days (default 365). */
  validDays?: number;
  /** The issuance time (default now). */
  now?: Date;
}

/** Clock skew allowance: certificates are valid from this long before their issuance. */
const BACKDATE_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

function newKeyPair(): { privateKey: KeyObject; spkiDer: Uint8Array; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    privateKey,
    spkiDer: new Uint8Array(publicKey.export({ type: "spki", format: "der" })),
    keyPem: String(privateKey.export({ type: "pkcs8", format: "pem" })),
  };
}

function encodeName(commonName: string, organizations: string[]): Uint8Array {
  const rdn = (oid: string, value: string) =>
    derSet(derSequence(derOid(oid), derUtf8String(value)));
  return derSequence(
    ...organizations.map((o) => rdn(Oid.organization, o)),
    ...(commonName ? [rdn(Oid.commonName, commonName)] : []),
  );
}

/** One X.509 extension. */
export function extension(oid: string, critical: boolean, value: Uint8Array): Uint8Array {
  return derSequence(derOid(oid), ...(critical ? [derBoolean(true)] : []), derOctetString(value));
}

/** The key identifier of RFC 5280 section 4.2.1.2 method 1 (SHA-1 of the public key bits). */
export function keyId(spkiDer: Uint8Array): Uint8Array {
  const [, bits] = derChildren(readDer(spkiDer));
  const key = decodeBitString(bits.content).bytes;
  return new Uint8Array(createHash("sha1").update(key).digest());
}

function randomSerial(): Uint8Array {
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] &= 0x7f;
  serial[0] |= 0x01;
  return serial;
}

/** The parts of a certificate to sign. */
export interface Draft {
  subject: Uint8Array;
  issuer: Uint8Array;
  spkiDer: Uint8Array;
  notBefore: Date;
  notAfter: Date;
  extensions: Uint8Array[];
}

/** Signs `draft` with `signer`; returns the certificate PEM. */
export function signCertificate(draft: Draft, signer: KeyObject): string {
  const alg = signingAlgorithm(signer);
  const tbs = derSequence(
    derExplicit(0, derInteger(2)),
    derInteger(randomSerial()),
    alg.algorithmDer,
    draft.issuer,
    derSequence(derTime(draft.notBefore), derTime(draft.notAfter)),
    draft.subject,
    draft.spkiDer,
    derExplicit(3, derSequence(...draft.extensions)),
  );
  const signature = signBytes(tbs, signer, alg);
  return pemEncode("CERTIFICATE", derSequence(tbs, alg.algorithmDer, derBitString(signature)));
}

function validity(now: Date | undefined, days: number): { notBefore: Date; notAfter: Date } {
  if (!Number.isFinite(days) || days <= 0) throw new Error(`validDays must be positive`);
  const t = (now ?? new Date()).getTime();
  return { notBefore: new Date(t - BACKDATE_MS), notAfter: new Date(t + days * DAY_MS) };
}

/**
 * Creates a self-signed certificate authority (basicConstraints CA:true, keyCertSign and
 * cRLSign), valid for `validDays` (default 3650).
 */
export function createCA(
  commonName: string,
  options: { validDays?: number; now?: Date } = {},
): Promise<CertificateAndKey> {
  const { privateKey, spkiDer, keyPem } = newKeyPair();
  const name = encodeName(commonName, []);
  const ski = keyId(spkiDer);
  const certPem = signCertificate({
    subject: name,
    issuer: name,
    spkiDer,
    ...validity(options.now, options.validDays ?? 3650),
    extensions: [
      extension(
        Oid.keyUsage,
        true,
        derNamedBits([KeyUsageBit.digitalSignature, KeyUsageBit.keyCertSign, KeyUsageBit.cRLSign]),
      ),
      extension(Oid.basicConstraints, true, derSequence(derBoolean(true))),
      extension(Oid.subjectKeyIdentifier, false, derOctetString(ski)),
    ],
  }, privateKey);
  return Promise.resolve({ certPem, keyPem });
}

/**
 * Issues a leaf certificate signed by `ca` with a new P-256 key: serverAuth (with the given DNS
 * and IP subjectAltNames) or clientAuth (the common name is the user, organizations the groups).
 */
export function issueCertificate(options: IssueOptions): Promise<CertificateAndKey> {
  const { privateKey, spkiDer, keyPem } = newKeyPair();
  const subject = encodeName(options.commonName, options.organizations ?? []);
  let issuer = subject;
  let issuerKeyId = keyId(spkiDer);
  let signer = privateKey;
  if (options.ca) {
    const [caDer] = pemCertificates(options.ca.certPem);
    if (!caDer) throw new Error("the CA certificate PEM holds no certificate");
    const caCert = parseCertificate(caDer);
    issuer = caCert.subjectDer;
    issuerKeyId = caCert.subjectKeyId ?? keyId(caCert.spkiDer);
    signer = createPrivateKey(options.ca.keyPem);
  }

  const names: Uint8Array[] = [];
  for (const dns of options.dnsNames ?? []) {
    names.push(derImplicit(2, new TextEncoder().encode(dns)));
  }
  for (const ip of options.ipAddresses ?? []) {
    const bytes = parseIpAddress(ip);
    if (!bytes) throw new Error(`${JSON.stringify(ip)} is not an IP address`);
    names.push(derImplicit(7, bytes));
  }
  const eku = options.usages === "server" ? Oid.ekuServerAuth : Oid.ekuClientAuth;
  const extensions = [
    extension(Oid.keyUsage, true, derNamedBits([KeyUsageBit.digitalSignature])),
    extension(Oid.extKeyUsage, false, derSequence(derOid(eku))),
    extension(Oid.basicConstraints, true, derSequence()),
    extension(Oid.subjectKeyIdentifier, false, derOctetString(keyId(spkiDer))),
    extension(
      Oid.authorityKeyIdentifier,
      false,
      derSequence(derImplicit(0, issuerKeyId)),
    ),
  ];
  if (names.length) extensions.push(extension(Oid.subjectAltName, false, derSequence(...names)));
  const certPem = signCertificate({
    subject,
    issuer,
    spkiDer,
    ...validity(options.now, options.validDays ?? 365),
    extensions,
  }, signer);
  return Promise.resolve({ certPem, keyPem });
}

/** Concatenates PEM texts, making sure each ends with a newline. */
export function joinPem(...pems: string[]): string {
  return pems.map((p) => (p.endsWith("\n") ? p : `${p}\n`)).join("");
}
