/**
 * The names a PKCS#10 certificate request asks for: its subject (raw and read) and the
 * subjectAltNames of its extensionRequest attribute (RFC 2985), as Go's x509 reads them for
 * Kubernetes' CSR checks.
 *
 * @module
 */
import { decodeOid, decodeString, derChildren, expectTag, readDer } from "./der_reader.ts";
import { formatIpAddress } from "./ip_address.ts";
import { Oid, parseName } from "./parse_certificate.ts";

const EXTENSION_REQUEST = "1.2.840.113549.1.9.14";

/** What a certificate request names. */
export interface RequestedNames {
  /** The subject Name, DER, as requested (copied into the certificate). */
  subjectDer: Uint8Array;
  /** The last common name of the subject, or "". */
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
}

/** Reads the names of a CertificationRequestInfo (`infoDer`); throws on malformed input. */
export function certificateRequestNames(infoDer: Uint8Array): RequestedNames {
  const [, subject, , attributes] = derChildren(expectTag(readDer(infoDer), 0x30, "request info"));
  const attrs = parseName(subject);
  const names: RequestedNames = {
    subjectDer: subject.raw,
    commonName: attrs.filter((a) => a.oid === Oid.commonName).map((a) => a.value).at(-1) ?? "",
    organizations: attrs.filter((a) => a.oid === Oid.organization).map((a) => a.value),
    dnsNames: [],
    ipAddresses: [],
    emailAddresses: [],
    uris: [],
  };
  if (!attributes || attributes.tag !== 0xa0) return names;
  for (const attr of derChildren(attributes)) {
    const [type, values] = derChildren(expectTag(attr, 0x30, "attribute"));
    if (decodeOid(expectTag(type, 0x06, "attribute type").content) !== EXTENSION_REQUEST) continue;
    for (const extensions of derChildren(values)) {
      for (const ext of derChildren(expectTag(extensions, 0x30, "extensions"))) {
        const parts = derChildren(expectTag(ext, 0x30, "extension"));
        if (decodeOid(expectTag(parts[0], 0x06, "extension id").content) !== Oid.subjectAltName) {
          continue;
        }
        readAltNames(expectTag(parts.at(-1), 0x04, "extension value").content, names);
      }
    }
  }
  return names;
}

function readAltNames(value: Uint8Array, names: RequestedNames): void {
  for (const name of derChildren(expectTag(readDer(value), 0x30, "subjectAltName"))) {
    if (name.tag === 0x81) names.emailAddresses.push(decodeString({ ...name, tag: 0x16 }));
    else if (name.tag === 0x82) names.dnsNames.push(decodeString({ ...name, tag: 0x16 }));
    else if (name.tag === 0x86) names.uris.push(decodeString({ ...name, tag: 0x16 }));
    else if (name.tag === 0x87) names.ipAddresses.push(formatIpAddress(name.content));
  }
}
