/**
 * Issues a certificate for a certificate request, as Kubernetes' CSR signer does: the
 * request's subject, public key and subjectAltNames, the CSR's `usages` as key usage and
 * extended key usage, not a CA, signed by the given CA.
 *
 * @module
 */
import { createPrivateKey } from "node:crypto";
import { derImplicit, derNamedBits, derOid, derSequence } from "./der.ts";
import { extension, keyId, signCertificate } from "./issue_certificate.ts";
import type { RequestedNames } from "./certificate_request_names.ts";
import { parseIpAddress } from "./ip_address.ts";
import { Oid, parseCertificate } from "./parse_certificate.ts";
import { pemCertificates } from "./pem.ts";

/** Key usage bits by Kubernetes' usage names. */
const KEY_USAGES: Record<string, number> = {
  "signing": 0,
  "digital signature": 0,
  "content commitment": 1,
  "key encipherment": 2,
  "key agreement": 4,
  "data encipherment": 3,
  "cert sign": 5,
  "crl sign": 6,
  "encipher only": 7,
  "decipher only": 8,
};

/** Extended key usage OIDs by Kubernetes' usage names. */
const EXT_KEY_USAGES: Record<string, string> = {
  "any": Oid.ekuAny,
  "server auth": Oid.ekuServerAuth,
  "client auth": Oid.ekuClientAuth,
  "code signing": "1.3.6.1.5.5.7.3.3",
  "email protection": "1.3.6.1.5.5.7.3.4",
  "s/mime": "1.3.6.1.5.5.7.3.4",
  "ipsec end system": "1.3.6.1.5.5.7.3.5",
  "ipsec tunnel": "1.3.6.1.5.5.7.3.6",
  "ipsec user": "1.3.6.1.5.5.7.3.7",
  "timestamping": "1.3.6.1.5.5.7.3.8",
  "ocsp signing": "1.3.6.1.5.5.7.3.9",
  "microsoft sgc": "1.3.6.1.4.1.311.10.3.3",
  "netscape sgc": "2.16.840.1.113730.4.1",
};

/** What to sign. */
export interface SignRequestOptions {
  ca: { certPem: string; keyPem: string };
  names: RequestedNames;
  /** The requester's SubjectPublicKeyInfo, DER. */
  spkiDer: Uint8Array;
  /** Kubernetes usage names (`digital signature`, `client auth`...). */
  usages: string[];
  notBefore: Date;
  notAfter: Date;
}

/** The usage names that are neither key usages nor extended key usages. */
export function unknownUsages(usages: string[]): string[] {
  return usages.filter((u) => KEY_USAGES[u] === undefined && EXT_KEY_USAGES[u] === undefined);
}

/** Signs the request; returns the certificate PEM. */
export function signCertificateRequest(o: SignRequestOptions): string {
  const [caDer] = pemCertificates(o.ca.certPem);
  if (!caDer) throw new Error("the CA certificate PEM holds no certificate");
  const caCert = parseCertificate(caDer);
  const bits = [...new Set(o.usages.map((u) => KEY_USAGES[u]).filter((b) => b !== undefined))];
  const ekus = [...new Set(o.usages.map((u) => EXT_KEY_USAGES[u]).filter((e) => e))];
  const extensions: Uint8Array[] = [];
  if (bits.length) extensions.push(extension(Oid.keyUsage, true, derNamedBits(bits)));
  if (ekus.length) {
    extensions.push(extension(Oid.extKeyUsage, false, derSequence(...ekus.map(derOid))));
  }
  extensions.push(extension(Oid.basicConstraints, true, derSequence()));
  extensions.push(extension(
    Oid.authorityKeyIdentifier,
    false,
    derSequence(derImplicit(0, caCert.subjectKeyId ?? keyId(caCert.spkiDer))),
  ));
  const sans = altNames(o.names);
  if (sans.length) extensions.push(extension(Oid.subjectAltName, false, derSequence(...sans)));
  const notAfter = o.notAfter > caCert.notAfter ? caCert.notAfter : o.notAfter;
  return signCertificate({
    subject: o.names.subjectDer,
    issuer: caCert.subjectDer,
    spkiDer: o.spkiDer,
    notBefore: o.notBefore,
    notAfter,
    extensions,
  }, createPrivateKey(o.ca.keyPem));
}

function altNames(names: RequestedNames): Uint8Array[] {
  const text = (n: number, s: string) => derImplicit(n, new TextEncoder().encode(s));
  const out = [
    ...names.emailAddresses.map((e) => text(1, e)),
    ...names.dnsNames.map((d) => text(2, d)),
    ...names.uris.map((u) => text(6, u)),
  ];
  for (const ip of names.ipAddresses) {
    const bytes = parseIpAddress(ip);
    if (bytes) out.push(derImplicit(7, bytes));
  }
  return out;
}
