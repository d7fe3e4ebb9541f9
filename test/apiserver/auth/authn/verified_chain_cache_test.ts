import assert from "node:assert/strict";
import { VerifiedChainCache } from "../../../../apiserver/auth/authn/verified_chain_cache.ts";
import { createCA, issueCertificate } from "../../../../shared/pki/issue_certificate.ts";
import { pemCertificates } from "../../../../shared/pki/pem.ts";

const ca = await createCA("client-ca");
const otherCa = await createCA("client-ca");

Deno.test("VerifiedChainCache.verify() answers the same arrays again and checks other bytes anew", async (t) => {
  const jane = await issueCertificate({ ca, commonName: "jane", usages: "client" });
  const forged = await issueCertificate({ ca: otherCa, commonName: "jane", usages: "client" });
  const cache = new VerifiedChainCache(ca.certPem);
  const chain = pemCertificates(jane.certPem);
  await t.step("first and repeated verification of one chain", () => {
    const first = cache.verify(chain);
    assert.equal(first.ok, true);
    assert.deepEqual(cache.verify([...chain]), first);
  });
  await t.step("a chain of other arrays with other bytes is verified", () => {
    assert.equal(cache.verify(pemCertificates(forged.certPem)).ok, false);
  });
  await t.step("the same leaf array in a longer chain is a different chain", () => {
    const r = cache.verify([chain[0], ...pemCertificates(forged.certPem)]);
    assert.equal(r.ok, true);
    assert.equal(cache.verify(chain).ok, true);
  });
});
