/**
 * Builds PKCS#10 certificate requests and self-signed certificates for tests of the
 * CertificateSigningRequest API, with node:crypto and the DER writer (no openssl needed).
 *
 * @module
 */
import { generateKeyPairSync, sign } from "node:crypto";
import {
  derBitString,
  derInteger,
  derOid,
  derSequence,
  derSet,
  derTlv,
  derUtf8String,
} from "../../shared/pki/der.ts";
import { Oid } from "../../shared/pki/parse_certificate.ts";
import { pemEncode } from "../../shared/pki/pem.ts";

/** A PEM `CERTIFICATE REQUEST` for CN=`commonName` (O=each of `organizations`), ECDSA P-256. */
export function certificateRequestPem(commonName: string, organizations: string[] = []): string {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = new Uint8Array(publicKey.export({ format: "der", type: "spki" }));
  const rdn = (oid: string, value: string) =>
    derSet(derSequence(derOid(oid), derUtf8String(value)));
  const subject = derSequence(
    ...organizations.map((o) => rdn(Oid.organization, o)),
    rdn(Oid.commonName, commonName),
  );
  const info = derSequence(derInteger(0), subject, spki, derTlv(0xa0, new Uint8Array()));
  const signature = new Uint8Array(sign("sha256", info, privateKey));
  const der = derSequence(info, derSequence(derOid(Oid.ecdsaWithSha256)), derBitString(signature));
  return pemEncode("CERTIFICATE REQUEST", der);
}

/** Base64 of a string's UTF-8 bytes (how `bytes` fields travel in JSON). */
export function base64(text: string): string {
  let binary = "";
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}
