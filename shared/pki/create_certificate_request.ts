/**
 * Creates a PKCS#10 certificate request (RFC 2986) with a new ECDSA P-256 key: the subject's
 * common name and organizations and, for serving certificates, DNS and IP subjectAltNames in
 * an extensionRequest attribute. The node agent's TLS bootstrap sends it in a
 * CertificateSigningRequest.
 *
 * @module
 */
import { generateKeyPairSync } from "node:crypto";
import {
  derBitString,
  derImplicit,
  derInteger,
  derOctetString,
  derOid,
  derSequence,
  derSet,
  derTlv,
  derUtf8String,
} from "./der.ts";
import { parseIpAddress } from "./ip_address.ts";
import { Oid } from "./parse_certificate.ts";
import { pemEncode } from "./pem.ts";
import { signBytes, signingAlgorithm } from "./signature.ts";

/** What the request asks for. */
export interface RequestSubject {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** Creates a key and a request signed with it; both PEM (the key PKCS#8). */
export function createCertificateRequest(s: RequestSubject): { csrPem: string; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = new Uint8Array(publicKey.export({ type: "spki", format: "der" }));
  const rdn = (oid: string, value: string) =>
    derSet(derSequence(derOid(oid), derUtf8String(value)));
  const subject = derSequence(
    ...(s.organizations ?? []).map((o) => rdn(Oid.organization, o)),
    rdn(Oid.commonName, s.commonName),
  );
  const names = [
    ...(s.dnsNames ?? []).map((d) => derImplicit(2, new TextEncoder().encode(d))),
    ...(s.ipAddresses ?? []).flatMap((ip) => {
      const bytes = parseIpAddress(ip);
      return bytes ? [derImplicit(7, bytes)] : [];
    }),
  ];
  const attributes = names.length === 0 ? new Uint8Array() : derSequence(
    derOid("1.2.840.113549.1.9.14"),
    derSet(derSequence(derSequence(
      derOid(Oid.subjectAltName),
      derOctetString(derSequence(...names)),
    ))),
  );
  // attributes [0] IMPLICIT SET OF Attribute (present even when empty, as Go writes it).
  const info = derSequence(derInteger(0), subject, spki, derTlv(0xa0, attributes));
  const alg = signingAlgorithm(privateKey);
  const signature = signBytes(info, privateKey, alg);
  const csr = derSequence(info, alg.algorithmDer, derBitString(signature));
  return {
    csrPem: pemEncode("CERTIFICATE REQUEST", csr),
    keyPem: String(privateKey.export({ type: "pkcs8", format: "pem" })),
  };
}
