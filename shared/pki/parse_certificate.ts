/**
 * Parses X.509 v1/v3 certificates from DER into the fields the API server needs to verify
 * a client certificate chain: names, validity, public key, signature and the extensions
 * basicConstraints, keyUsage, extKeyUsage, subjectAltName and key identifiers.
 *
 * @module
 */
import {
  decodeBitString,
  decodeBoolean,
  decodeOid,
  decodeSmallInteger,
  decodeString,
  decodeTime,
  derChildren,
  type DerElement,
  DerError,
  expectTag,
  readDer,
} from "./der_reader.ts";
import { formatIpAddress } from "./ip_address.ts";

/** Object identifiers used by the PKI code. */
export const Oid = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  nameConstraints: "2.5.29.30",
  certificatePolicies: "2.5.29.32",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  ekuAny: "2.5.29.37.0",
  ekuServerAuth: "1.3.6.1.5.5.7.3.1",
  ekuClientAuth: "1.3.6.1.5.5.7.3.2",
  ecPublicKey: "1.2.840.10045.2.1",
  prime256v1: "1.2.840.10045.3.1.7",
  secp384r1: "1.3.132.0.34",
  rsaEncryption: "1.2.840.113549.1.1.1",
  ed25519: "1.3.101.112",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  ecdsaWithSha384: "1.2.840.10045.4.3.3",
  ecdsaWithSha512: "1.2.840.10045.4.3.4",
  sha256WithRsa: "1.2.840.113549.1.1.11",
  sha384WithRsa: "1.2.840.113549.1.1.12",
  sha512WithRsa: "1.2.840.113549.1.1.13",
} as const;

/** KeyUsage bit numbers (RFC 5280 section 4.2.1.3). */
export const KeyUsageBit = {
  digitalSignature: 0,
  keyEncipherment: 2,
  keyCertSign: 5,
  cRLSign: 6,
} as const;

/** One attribute of a distinguished name. */
export interface NameAttribute {
  oid: string;
  value: string;
}

/** One extension as found in the certificate. */
export interface Extension {
  critical: boolean;
  value: Uint8Array;
}

/** A parsed certificate. */
export interface Certificate {
  /** The whole certificate. */
  der: Uint8Array;
  /** The signed part (TBSCertificate), exactly as encoded. */
  tbsDer: Uint8Array;
  /** 1 or 3. */
  version: number;
  /** Serial number as lowercase hex. */
  serialNumber: string;
  /** The outer signature algorithm OID. */
  signatureAlgorithm: string;
  /** The raw AlgorithmIdentifier inside the TBSCertificate (must equal the outer one). */
  tbsSignatureAlgorithmDer: Uint8Array;
  /** The raw outer AlgorithmIdentifier. */
  signatureAlgorithmDer: Uint8Array;
  /** The signature bytes. */
  signature: Uint8Array;
  /** Issuer Name, raw DER (compared byte for byte to the issuer's subject). */
  issuerDer: Uint8Array;
  /** Subject Name, raw DER. */
  subjectDer: Uint8Array;
  issuer: NameAttribute[];
  subject: NameAttribute[];
  /** The last common name of the subject, or "" (Go's pkix.Name does the same). */
  commonName: string;
  /** Every organization of the subject, in order. */
  organizations: string[];
  notBefore: Date;
  notAfter: Date;
  /** SubjectPublicKeyInfo, raw DER. */
  spkiDer: Uint8Array;
  /** The public key algorithm OID. */
  publicKeyAlgorithm: string;
  /** Extensions by OID. */
  extensions: Map<string, Extension>;
  /** Present when the basicConstraints extension is. */
  basicConstraints?: { ca: boolean; pathLength?: number };
  /** Set key usage bits (see KeyUsageBit); undefined without the extension. */
  keyUsage?: Set<number>;
  /** Extended key usage OIDs; undefined without the extension. */
  extKeyUsage?: string[];
  dnsNames: string[];
  ipAddresses: string[];
  subjectKeyId?: Uint8Array;
  authorityKeyId?: Uint8Array;
}

/** Thrown for bytes that are not a well-formed certificate. */
export class CertificateParseError extends Error {
  constructor(message: string) {
    super(`invalid certificate: ${message}`);
    this.name = "CertificateParseError";
  }
}

/** Parses a DER Name into its attributes, in order. */
export function parseName(element: DerElement): NameAttribute[] {
  expectTag(element, 0x30, "name");
  const out: NameAttribute[] = [];
  for (const rdn of derChildren(element)) {
    expectTag(rdn, 0x31, "relative distinguished name");
    for (const atv of derChildren(rdn)) {
      const [type, value] = derChildren(expectTag(atv, 0x30, "attribute"));
      const oid = decodeOid(expectTag(type, 0x06, "attribute type").content);
      if (!value) throw new DerError("attribute without value");
      let text: string;
      try {
        text = decodeString(value);
      } catch {
        text = "";
      }
      out.push({ oid, value: text });
    }
  }
  return out;
}

function parseExtension(cert: Certificate, oid: string, value: Uint8Array): void {
  switch (oid) {
    case Oid.basicConstraints: {
      const items = derChildren(expectTag(readDer(value), 0x30, "basicConstraints"));
      let ca = false;
      let pathLength: number | undefined;
      for (const item of items) {
        if (item.tag === 0x01) ca = decodeBoolean(item.content);
        else if (item.tag === 0x02) pathLength = decodeSmallInteger(item.content);
        else throw new DerError("unexpected basicConstraints field");
      }
      cert.basicConstraints = pathLength === undefined ? { ca } : { ca, pathLength };
      return;
    }
    case Oid.keyUsage: {
      const { bytes, bitLength } = decodeBitString(
        expectTag(readDer(value), 0x03, "keyUsage").content,
      );
      const set = new Set<number>();
      for (let i = 0; i < bitLength; i++) if (bytes[i >> 3] & (0x80 >> (i & 7))) set.add(i);
      cert.keyUsage = set;
      return;
    }
    case Oid.extKeyUsage: {
      cert.extKeyUsage = derChildren(expectTag(readDer(value), 0x30, "extKeyUsage")).map((e) =>
        decodeOid(expectTag(e, 0x06, "key purpose").content)
      );
      return;
    }
    case Oid.subjectAltName: {
      for (const name of derChildren(expectTag(readDer(value), 0x30, "subjectAltName"))) {
        if (name.tag === 0x82) cert.dnsNames.push(decodeString({ ...name, tag: 0x16 }));
        else if (name.tag === 0x87) cert.ipAddresses.push(formatIpAddress(name.content));
      }
      return;
    }
    case Oid.subjectKeyIdentifier:
      cert.subjectKeyId = expectTag(readDer(value), 0x04, "subjectKeyIdentifier").content;
      return;
    case Oid.authorityKeyIdentifier: {
      for (const item of derChildren(expectTag(readDer(value), 0x30, "authorityKeyIdentifier"))) {
        if (item.tag === 0x80) cert.authorityKeyId = item.content;
      }
      return;
    }
  }
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Parses one DER certificate; throws CertificateParseError on anything malformed. */
export function parseCertificate(der: Uint8Array): Certificate {
  try {
    return parse(der);
  } catch (err) {
    if (err instanceof CertificateParseError) throw err;
    throw new CertificateParseError(err instanceof Error ? err.message : String(err));
  }
}

function parse(der: Uint8Array): Certificate {
  const [tbs, sigAlg, sigValue, ...extra] = derChildren(
    expectTag(readDer(der), 0x30, "certificate"),
  );
  if (extra.length) throw new DerError("unexpected certificate fields");
  expectTag(tbs, 0x30, "tbsCertificate");
  expectTag(sigAlg, 0x30, "signatureAlgorithm");
  const signature = decodeBitString(expectTag(sigValue, 0x03, "signature").content);
  if (signature.bitLength % 8) throw new DerError("signature is not whole bytes");

  const fields = derChildren(tbs);
  let i = 0;
  let version = 1;
  if (fields[0]?.tag === 0xa0) {
    const [v] = derChildren(fields[0]);
    version = decodeSmallInteger(expectTag(v, 0x02, "version").content) + 1;
    if (version !== 2 && version !== 3) throw new DerError(`unsupported version ${version}`);
    i++;
  }
  const serial = expectTag(fields[i++], 0x02, "serialNumber");
  const tbsSigAlg = expectTag(fields[i++], 0x30, "signature");
  const issuer = expectTag(fields[i++], 0x30, "issuer");
  const [nb, na] = derChildren(expectTag(fields[i++], 0x30, "validity"));
  if (!nb || !na) throw new DerError("incomplete validity");
  const subject = expectTag(fields[i++], 0x30, "subject");
  const spki = expectTag(fields[i++], 0x30, "subjectPublicKeyInfo");
  const [spkiAlg] = derChildren(spki);
  const [pkOid] = derChildren(expectTag(spkiAlg, 0x30, "public key algorithm"));

  const subjectAttrs = parseName(subject);
  const cert: Certificate = {
    der,
    tbsDer: tbs.raw,
    version,
    serialNumber: hex(serial.content),
    signatureAlgorithm: decodeOid(expectTag(derChildren(sigAlg)[0], 0x06, "algorithm").content),
    tbsSignatureAlgorithmDer: tbsSigAlg.raw,
    signatureAlgorithmDer: sigAlg.raw,
    signature: signature.bytes,
    issuerDer: issuer.raw,
    subjectDer: subject.raw,
    issuer: parseName(issuer),
    subject: subjectAttrs,
    commonName: subjectAttrs.filter((a) => a.oid === Oid.commonName).map((a) => a.value).at(-1) ??
      "",
    organizations: subjectAttrs.filter((a) => a.oid === Oid.organization).map((a) => a.value),
    notBefore: decodeTime(nb),
    notAfter: decodeTime(na),
    spkiDer: spki.raw,
    publicKeyAlgorithm: decodeOid(expectTag(pkOid, 0x06, "public key algorithm").content),
    extensions: new Map(),
    dnsNames: [],
    ipAddresses: [],
  };

  for (; i < fields.length; i++) {
    const f = fields[i];
    if (f.tag === 0x81 || f.tag === 0x82) continue; // issuer/subject unique IDs
    if (f.tag !== 0xa3) throw new DerError(`unexpected field 0x${f.tag.toString(16)}`);
    if (version !== 3) throw new DerError("extensions in a non-v3 certificate");
    const [list] = derChildren(f);
    for (const ext of derChildren(expectTag(list, 0x30, "extensions"))) {
      const parts = derChildren(expectTag(ext, 0x30, "extension"));
      const oid = decodeOid(expectTag(parts[0], 0x06, "extension id").content);
      let critical = false;
      let valueEl = parts[1];
      if (valueEl?.tag === 0x01) {
        critical = decodeBoolean(valueEl.content);
        valueEl = parts[2];
      }
      const value = expectTag(valueEl, 0x04, "extension value").content;
      if (cert.extensions.has(oid)) throw new DerError(`duplicate extension ${oid}`);
      cert.extensions.set(oid, { critical, value });
      parseExtension(cert, oid, value);
    }
  }
  return cert;
}
