import assert from "node:assert/strict";
import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import {
  type CertificateAndKey,
  createCA,
  issueCertificate,
} from "../../../shared/pki/issue_certificate.ts";
import { pemCertificates, pemEncode } from "../../../shared/pki/pem.ts";
import {
  parseCertificateBundle,
  verifyClientCertificate,
} from "../../../shared/pki/verify_client_certificate.ts";
import {
  derBitString,
  derBoolean,
  derExplicit,
  derInteger,
  derOctetString,
  derOid,
  derSequence,
  derSet,
  derTime,
  derUtf8String,
} from "../../../shared/pki/der.ts";
import { parseCertificate } from "../../../shared/pki/parse_certificate.ts";
import { signBytes, signingAlgorithm } from "../../../shared/pki/signature.ts";

const der = (pem: string) => pemCertificates(pem)[0];
const DAY = 24 * 60 * 60 * 1000;

const ca = await createCA("client-ca");
const otherCa = await createCA("client-ca"); // same name, different key
const admin = await issueCertificate({
  ca,
  commonName: "kubernetes-admin",
  organizations: ["system:masters", "ops"],
  usages: "client",
});

/** An intermediate CA signed by `parent` (built by hand: issueCertificate makes leaves). */
function intermediate(
  parent: CertificateAndKey,
  name: string,
  opts: { ca?: boolean; pathLength?: number } = {},
): CertificateAndKey {
  const inner = newKey();
  const parentCert = parseCertificate(der(parent.certPem));
  const tbsFields = (alg: Uint8Array) => {
    const bc = derSequence(
      ...(opts.ca === false ? [] : [derBoolean(true)]),
      ...(opts.pathLength !== undefined ? [derInteger(opts.pathLength)] : []),
    );
    return derSequence(
      derExplicit(0, derInteger(2)),
      derInteger(Uint8Array.of(0x42)),
      alg,
      parentCert.subjectDer,
      derSequence(derTime(new Date(Date.now() - DAY)), derTime(new Date(Date.now() + DAY))),
      derSequence(derSet(derSequence(derOid("2.5.4.3"), derUtf8String(name)))),
      inner.spki,
      derExplicit(
        3,
        derSequence(derSequence(derOid("2.5.29.19"), derBoolean(true), derOctetString(bc))),
      ),
    );
  };
  const key = createPrivateKey(parent.keyPem);
  const alg = signingAlgorithm(key);
  const tbs = tbsFields(alg.algorithmDer);
  const cert = derSequence(tbs, alg.algorithmDer, derBitString(signBytes(tbs, key, alg)));
  return { certPem: pemEncode("CERTIFICATE", cert), keyPem: inner.keyPem };
}

/** A fresh P-256 key pair: its SPKI for a hand-built certificate and its PKCS#8 PEM. */
function newKey(): { spki: Uint8Array; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    spki: new Uint8Array(publicKey.export({ type: "spki", format: "der" })),
    keyPem: String(privateKey.export({ type: "pkcs8", format: "pem" })),
  };
}

Deno.test("verifyClientCertificate() accepts a certificate from the CA", () => {
  const result = verifyClientCertificate([der(admin.certPem)], ca.certPem);
  assert.ok(result.ok, result.ok ? "" : result.reason);
  assert.equal(result.commonName, "kubernetes-admin");
  assert.deepEqual(result.organizations, ["system:masters", "ops"]);
});

Deno.test("verifyClientCertificate() rejects forged and misused certificates", async (t) => {
  const selfSigned = await issueCertificate({
    commonName: "kubernetes-admin",
    organizations: ["system:masters"],
    usages: "client",
  });
  const foreign = await issueCertificate({
    ca: otherCa,
    commonName: "kubernetes-admin",
    organizations: ["system:masters"],
    usages: "client",
  });
  const server = await issueCertificate({ ca, commonName: "kube-apiserver", usages: "server" });
  const noCn = await issueCertificate({
    ca,
    commonName: "",
    organizations: ["x"],
    usages: "client",
  });
  const leafAsIssuer = await issueCertificate({
    ca: admin,
    commonName: "mallory",
    usages: "client",
  });
  const tampered = der(admin.certPem).slice();
  tampered[tampered.length - 5] ^= 0x01;

  const cases: [string, Uint8Array[], RegExp][] = [
    ["self-signed with O=system:masters", [der(selfSigned.certPem)], /unknown authority/],
    ["another CA with the same name", [der(foreign.certPem)], /unknown authority/],
    ["server certificate", [der(server.certPem)], /not valid for client authentication/],
    ["no common name", [der(noCn.certPem)], /no common name/],
    [
      "signed by a leaf",
      [der(leafAsIssuer.certPem), der(admin.certPem)],
      /unknown authority|not a certificate authority/,
    ],
    ["tampered signature", [tampered], /unknown authority|invalid certificate/],
    ["garbage", [Uint8Array.of(1, 2, 3)], /invalid certificate/],
    ["nothing", [], /no client certificate/],
  ];
  for (const [name, chain, reason] of cases) {
    await t.step(name, () => {
      const result = verifyClientCertificate(chain, ca.certPem);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.reason, reason);
    });
  }
});

Deno.test("verifyClientCertificate() checks the validity period", async (t) => {
  const now = new Date();
  for (
    const [name, at, ok] of [
      ["inside", now, true],
      ["before notBefore", new Date(now.getTime() - 2 * DAY), false],
      ["after notAfter", new Date(now.getTime() + 400 * DAY), false],
    ] as const
  ) {
    await t.step(name, () => {
      const result = verifyClientCertificate([der(admin.certPem)], ca.certPem, at);
      assert.equal(result.ok, ok, result.ok ? "" : result.reason);
    });
  }
});

Deno.test("verifyClientCertificate() follows presented intermediates", async (t) => {
  const mid = intermediate(ca, "intermediate");
  const leaf = await issueCertificate({
    ca: mid,
    commonName: "bob",
    organizations: ["dev"],
    usages: "client",
  });
  const notCa = intermediate(ca, "not-a-ca", { ca: false });
  const badLeaf = await issueCertificate({ ca: notCa, commonName: "eve", usages: "client" });
  const zeroPath = intermediate(ca, "zero-path", { pathLength: 0 });
  const sub = intermediate(zeroPath, "sub");
  const deepLeaf = await issueCertificate({ ca: sub, commonName: "deep", usages: "client" });

  await t.step("valid chain", () => {
    const result = verifyClientCertificate([der(leaf.certPem), der(mid.certPem)], ca.certPem);
    assert.ok(result.ok, result.ok ? "" : result.reason);
    assert.equal(result.commonName, "bob");
    assert.equal(result.chain.length, 3);
  });
  await t.step("missing intermediate", () => {
    assert.equal(verifyClientCertificate([der(leaf.certPem)], ca.certPem).ok, false);
  });
  await t.step("intermediate without CA:true", () => {
    const result = verifyClientCertificate([der(badLeaf.certPem), der(notCa.certPem)], ca.certPem);
    assert.equal(result.ok, false);
  });
  await t.step("path length exceeded", () => {
    const result = verifyClientCertificate(
      [der(deepLeaf.certPem), der(sub.certPem), der(zeroPath.certPem)],
      ca.certPem,
    );
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, /path length/);
  });
  await t.step("intermediate from another CA", () => {
    const result = verifyClientCertificate([der(leaf.certPem), der(mid.certPem)], otherCa.certPem);
    assert.equal(result.ok, false);
  });
});

Deno.test("verifyClientCertificate() accepts any CA of a bundle", () => {
  const bundle = otherCa.certPem + ca.certPem;
  const parsed = parseCertificateBundle(bundle);
  assert.equal(parsed.length, 2);
  const result = verifyClientCertificate([der(admin.certPem)], parsed);
  assert.ok(result.ok);
});

Deno.test("verifyClientCertificate() reports a bad CA bundle instead of throwing", () => {
  const result = verifyClientCertificate([der(admin.certPem)], "not a bundle");
  assert.equal(result.ok, false);
});
