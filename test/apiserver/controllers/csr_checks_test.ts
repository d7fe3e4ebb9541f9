import assert from "node:assert/strict";
import {
  apiserverClientProblem,
  kubeletClientProblem,
  kubeletServingProblem,
} from "../../../apiserver/controllers/certificates/csr_checks.ts";
import { createCertificateRequest } from "../../../shared/pki/create_certificate_request.ts";
import { certificateRequestNames } from "../../../shared/pki/certificate_request_names.ts";
import { parseCertificateRequestPem } from "../../../shared/pki/parse_certificate_request.ts";
import { signCertificateRequest } from "../../../shared/pki/sign_certificate_request.ts";
import { createCA } from "../../../shared/pki/issue_certificate.ts";
import { parseCertificate } from "../../../shared/pki/parse_certificate.ts";
import { pemCertificates } from "../../../shared/pki/pem.ts";

function names(subject: Parameters<typeof createCertificateRequest>[0]) {
  const { csrPem } = createCertificateRequest(subject);
  const parsed = parseCertificateRequestPem(new TextEncoder().encode(csrPem))!;
  return { names: certificateRequestNames(parsed.infoDer), spkiDer: parsed.spkiDer };
}

Deno.test("kubeletClientProblem() requires system:node:<name> in system:nodes, no SANs, kube's usages", () => {
  const ok = names({ commonName: "system:node:a", organizations: ["system:nodes"] }).names;
  assert.equal(kubeletClientProblem(ok, ["digital signature", "client auth"]), undefined);
  assert.equal(
    kubeletClientProblem(ok, ["key encipherment", "digital signature", "client auth"]),
    undefined,
  );
  assert.match(kubeletClientProblem(ok, ["client auth"])!, /usages did not match/);
  const org = names({ commonName: "system:node:a", organizations: ["x"] }).names;
  assert.equal(
    kubeletClientProblem(org, ["digital signature", "client auth"]),
    "subject organization is not system:nodes",
  );
  const cn = names({ commonName: "a", organizations: ["system:nodes"] }).names;
  assert.match(
    kubeletClientProblem(cn, ["digital signature", "client auth"])!,
    /does not begin with system:node:/,
  );
  const san =
    names({ commonName: "system:node:a", organizations: ["system:nodes"], dnsNames: ["a"] }).names;
  assert.equal(
    kubeletClientProblem(san, ["digital signature", "client auth"]),
    "dnsNames are not allowed",
  );
});

Deno.test("kubeletServingProblem() requires a DNS or IP SAN and server auth", () => {
  const ok = names({
    commonName: "system:node:a",
    organizations: ["system:nodes"],
    dnsNames: ["a"],
    ipAddresses: ["10.0.0.1"],
  }).names;
  assert.deepEqual(ok.ipAddresses, ["10.0.0.1"]);
  assert.equal(kubeletServingProblem(ok, ["digital signature", "server auth"]), undefined);
  const none = names({ commonName: "system:node:a", organizations: ["system:nodes"] }).names;
  assert.equal(
    kubeletServingProblem(none, ["digital signature", "server auth"]),
    "DNS or IP subjectAltName is required",
  );
  assert.equal(
    apiserverClientProblem(["server auth"]),
    "invalid usage for client certificate: server auth",
  );
});

Deno.test("signCertificateRequest() copies the subject, key and SANs and sets the usages", async () => {
  const ca = await createCA("test-ca");
  const req = names({
    commonName: "system:node:a",
    organizations: ["system:nodes"],
    dnsNames: ["a.example"],
  });
  const now = Date.now();
  const pem = signCertificateRequest({
    ca,
    names: req.names,
    spkiDer: req.spkiDer,
    usages: ["digital signature", "server auth"],
    notBefore: new Date(now - 1000),
    notAfter: new Date(now + 60_000),
  });
  const cert = parseCertificate(pemCertificates(pem)[0]);
  assert.equal(cert.commonName, "system:node:a");
  assert.deepEqual(cert.organizations, ["system:nodes"]);
  assert.deepEqual(cert.dnsNames, ["a.example"]);
  assert.deepEqual(cert.extKeyUsage, ["1.3.6.1.5.5.7.3.1"]);
  assert.deepEqual(cert.spkiDer, req.spkiDer);
  assert.equal(cert.basicConstraints?.ca, false);
});
