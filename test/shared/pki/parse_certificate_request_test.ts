import assert from "node:assert/strict";
import {
  certificateRequestProblem,
  parseCertificateRequestPem,
} from "../../../shared/pki/parse_certificate_request.ts";
import { pemEncode } from "../../../shared/pki/pem.ts";
import { certificateRequestPem } from "../../support/certificate_request.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("certificateRequestProblem() accepts a signed request and names its subject", () => {
  const pem = certificateRequestPem("alice", ["dev", "ops"]);
  assert.equal(certificateRequestProblem(enc(pem)), undefined);
  assert.deepEqual(parseCertificateRequestPem(enc(pem))?.organizations, ["dev", "ops"]);
});

Deno.test("certificateRequestProblem() rejects other PEM blocks, garbage and bad signatures", () => {
  assert.equal(
    certificateRequestProblem(
      enc("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
    ),
    "PEM block type must be CERTIFICATE REQUEST",
  );
  assert.equal(certificateRequestProblem(enc("")), "PEM block type must be CERTIFICATE REQUEST");
  assert.match(
    certificateRequestProblem(
      enc("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n"),
    )!,
    /^asn1: structure error/,
  );
  // A flipped bit in the signature.
  const pem = certificateRequestPem("a");
  const der = Uint8Array.from(atob(pem.split("\n").slice(1, -2).join("")), (c) => c.charCodeAt(0));
  der[der.length - 1] ^= 1;
  assert.equal(
    certificateRequestProblem(enc(pemEncode("CERTIFICATE REQUEST", der))),
    "x509: ECDSA verification failure",
  );
});
