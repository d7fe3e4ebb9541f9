/**
 * End-to-end over HTTPS for certificates.k8s.io/v1 CertificateSigningRequest: create (the
 * requester recorded by the server), get in JSON and Protobuf, list as Table, update and the
 * four patch types (the spec stays), the /approval and /status subresources with Kubernetes'
 * rules, watch, field selectors, validation errors, and kubectl certificate approve/deny.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { createCA, issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { base64, certificateRequestPem } from "../support/certificate_request.ts";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

function csr(name: string, extra: Json = {}): Json {
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: {
      request: base64(certificateRequestPem(name, ["dev"])),
      signerName: "example.com/signer",
      usages: ["digital signature", "client auth"],
      ...extra,
    },
  };
}

async function withServer(fn: (t: TestServer) => Promise<void>) {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function send(t: TestServer, method: string, path: string, body: unknown, type?: string) {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": type ?? "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function approve(t: TestServer, name: string, type = "Approved"): Promise<Json> {
  const cur = await (await t.fetch(`${CSRS}/${name}`)).json();
  cur.status.conditions = [
    ...(cur.status.conditions ?? []),
    { type, status: "True", reason: "Test", message: "by the test" },
  ];
  return await send(t, "PUT", `${CSRS}/${name}/approval`, cur);
}

Deno.test("CertificateSigningRequest serves every verb, Protobuf and Table", async () => {
  await withServer(async (t) => {
    const w = await watch(t, "watch=true", CSRS);
    const created = await write(t, "POST", CSRS, {
      ...csr("alice"),
      spec: {
        ...csr("alice").spec,
        username: "mallory",
        groups: ["evil"],
        expirationSeconds: 3600,
      },
      status: { conditions: [{ type: "Approved", status: "True" }] },
    });
    assert.notEqual(created.spec.username, "mallory");
    assert.ok(created.spec.username, "the requester is recorded");
    assert.ok(!created.spec.groups?.includes("evil"));
    assert.ok(created.spec.groups?.includes("system:authenticated"));
    assert.deepEqual(created.status, {});
    assert.equal((await w.next())?.type, "ADDED");

    const asJson = await (await t.fetch(`${CSRS}/alice`)).json();
    const res = await t.fetch(`${CSRS}/alice`, { headers: { accept: PB } });
    assert.equal(res.headers.get("content-type"), PB);
    const asPb = decodeObject(new Uint8Array(await res.arrayBuffer()));
    assert.deepEqual(asPb, asJson);
    const put = await t.fetch(`${CSRS}/alice`, {
      method: "PUT",
      headers: { "content-type": PB, accept: "application/json" },
      body: encodeObject(asPb),
    });
    assert.equal(put.status, 200, await put.clone().text());
    assert.deepEqual(await put.json(), asJson);

    const table = await (await t.fetch(CSRS, { headers: { accept: TABLE } })).json();
    assert.deepEqual(
      table.columnDefinitions.map((d: Json) => d.name),
      ["Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"],
    );
    const row = table.rows[0].cells;
    assert.deepEqual([row[0], row[2], row[3], row[4], row[5]], [
      "alice",
      "example.com/signer",
      created.spec.username,
      "60m",
      "Pending",
    ]);

    // The spec never changes after creation: updates and patches keep it.
    const spec = asJson.spec;
    const changed = await write(t, "PUT", `${CSRS}/alice`, {
      ...asJson,
      metadata: { ...asJson.metadata, labels: { a: "b" } },
      spec: { ...spec, signerName: "example.com/other" },
    });
    assert.deepEqual(changed.spec, spec);
    assert.equal(changed.metadata.labels.a, "b");
    for (
      const [type, body] of [
        ["application/merge-patch+json", {
          metadata: { labels: { m: "1" } },
          spec: { usages: ["any"] },
        }],
        ["application/json-patch+json", [{ op: "add", path: "/metadata/labels/j", value: "1" }]],
        ["application/strategic-merge-patch+json", { metadata: { labels: { s: "1" } } }],
      ] as const
    ) {
      const r = await send(t, "PATCH", `${CSRS}/alice`, body, type);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.spec, spec);
    }
    const applied = await send(
      t,
      "PATCH",
      `${CSRS}/alice?fieldManager=tester`,
      JSON.stringify({
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { name: "alice", labels: { applied: "yes" } },
      }),
      "application/apply-patch+yaml",
    );
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    assert.equal(applied.body.metadata.labels.applied, "yes");
    assert.equal(applied.body.metadata.labels.m, "1");

    const bySigner = await (await t.fetch(
      `${CSRS}?fieldSelector=spec.signerName%3Dexample.com%2Fsigner`,
    )).json();
    assert.deepEqual(bySigner.items.map((i: Json) => i.metadata.name), ["alice"]);
    const none = await (await t.fetch(`${CSRS}?fieldSelector=spec.signerName%3Dx.io%2Fy`)).json();
    assert.equal(none.items.length, 0);

    const disc = await (await t.fetch("/apis/certificates.k8s.io/v1")).json();
    const names = disc.resources.map((r: Json) => r.name).sort();
    assert.deepEqual(names, [
      "certificatesigningrequests",
      "certificatesigningrequests/approval",
      "certificatesigningrequests/status",
    ]);
    const main = disc.resources.find((r: Json) => r.name === "certificatesigningrequests");
    assert.deepEqual([main.shortNames, main.namespaced], [["csr"], false]);

    const del = await t.fetch(`${CSRS}/alice`, { method: "DELETE" });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    let ev = await w.next();
    while (ev && ev.type !== "DELETED") ev = await w.next();
    assert.equal(ev?.type, "DELETED");
    await w.cancel();
  });
});

Deno.test("approval conditions go through /approval and the certificate through /status", async () => {
  await withServer(async (t) => {
    await write(t, "POST", CSRS, csr("bob"));
    // Through the main resource or /status, an Approved condition is not taken.
    const viaMain = await send(t, "PATCH", `${CSRS}/bob`, {
      status: { conditions: [{ type: "Approved", status: "True" }] },
    }, "application/merge-patch+json");
    assert.deepEqual(viaMain.body.status, {});
    const viaStatus = await send(t, "PATCH", `${CSRS}/bob/status`, {
      status: { conditions: [{ type: "Approved", status: "True" }] },
    }, "application/merge-patch+json");
    assert.equal(viaStatus.status, 422);
    assert.equal(
      viaStatus.body.message,
      'CertificateSigningRequest.certificates.k8s.io "bob" is invalid: status.conditions: ' +
        'Forbidden: updates may not add a condition of type "Approved"',
    );

    const approved = await approve(t, "bob");
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const cond = approved.body.status.conditions[0];
    assert.deepEqual([cond.type, cond.status, cond.reason], ["Approved", "True", "Test"]);
    assert.ok(cond.lastUpdateTime && cond.lastTransitionTime, "timestamps are filled in");

    const denied = await approve(t, "bob", "Denied");
    assert.equal(denied.status, 422);
    assert.match(
      denied.body.message,
      /status.conditions\[1\].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive/,
    );
    const cur = await (await t.fetch(`${CSRS}/bob`)).json();
    const removed = await send(t, "PUT", `${CSRS}/bob/approval`, {
      ...cur,
      status: { conditions: [] },
    });
    assert.equal(removed.status, 422);
    assert.match(removed.body.message, /updates may not remove a condition of type "Approved"/);

    const ca = await createCA("test-signer");
    const issued = await issueCertificate({ ca, commonName: "bob", usages: "client" });
    const certificate = base64(issued.certPem);
    const viaMainCert = await send(t, "PATCH", `${CSRS}/bob`, {
      status: { certificate },
    }, "application/merge-patch+json");
    assert.equal(viaMainCert.body.status.certificate, undefined);
    const bad = await send(t, "PATCH", `${CSRS}/bob/status`, {
      status: { certificate: base64("not a certificate") },
    }, "application/merge-patch+json");
    assert.equal(bad.status, 422);
    assert.match(
      bad.body.message,
      /status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block/,
    );
    const signed = await send(t, "PATCH", `${CSRS}/bob/status`, {
      status: { certificate },
    }, "application/merge-patch+json");
    assert.equal(signed.status, 200, JSON.stringify(signed.body));
    assert.equal(signed.body.status.certificate, certificate);
    assert.equal(signed.body.status.conditions[0].type, "Approved");
    const again = await send(t, "PATCH", `${CSRS}/bob/status`, {
      status: { certificate: base64(ca.certPem) },
    }, "application/merge-patch+json");
    assert.equal(again.status, 422);
    assert.match(again.body.message, /updates may not modify existing certificate content/);

    const table = await (await t.fetch(`${CSRS}/bob`, { headers: { accept: TABLE } })).json();
    assert.equal(table.rows[0].cells[5], "Approved,Issued");
    assert.equal(table.rows[0].cells[4], "<none>");
  });
});

async function invalid(t: TestServer, body: Json): Promise<string> {
  const r = await send(t, "POST", CSRS, body);
  assert.equal(r.status, 422, JSON.stringify(r.body));
  return r.body.message;
}

Deno.test("CertificateSigningRequest rejects invalid requests with Kubernetes' messages", async () => {
  await withServer(async (t) => {
    const prefix = (n: string) =>
      `CertificateSigningRequest.certificates.k8s.io "${n}" is invalid: `;
    assert.equal(
      await invalid(t, csr("a", { request: base64("hello") })),
      prefix("a") +
        "spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: " +
        "PEM block type must be CERTIFICATE REQUEST",
    );
    assert.equal(
      await invalid(t, csr("b", { signerName: "" })),
      prefix("b") + "spec.signerName: Required value",
    );
    assert.equal(
      await invalid(t, csr("c", { signerName: "signer" })),
      prefix("c") +
        'spec.signerName: Invalid value: "signer": must be a fully qualified domain and path ' +
        "of the form 'example.com/signer-name'",
    );
    assert.equal(
      await invalid(t, csr("d", { signerName: "example/signer" })),
      prefix("d") +
        'spec.signerName: Invalid value: "example": should be a domain with at least two ' +
        "segments separated by dots",
    );
    assert.equal(
      await invalid(t, csr("e", { expirationSeconds: 599 })),
      prefix("e") +
        "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 " +
        "seconds (10 minutes)",
    );
    assert.equal(
      await invalid(t, csr("f", { usages: [] })),
      prefix("f") + "spec.usages: Required value",
    );
    assert.match(
      await invalid(t, csr("g", { usages: ["flying", "any", "any"] })),
      /spec.usages\[0\]: Unsupported value: "flying": supported values: "any", "cert sign", .*"timestamping", spec.usages\[2\]: Duplicate value: "any"/,
    );
    assert.equal(
      await invalid(t, csr("h", { signerName: "kubernetes.io/legacy-unknown" })),
      prefix("h") +
        'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName ' +
        "is not allowed via this API version",
    );
    // A request whose signature does not verify.
    const pem = certificateRequestPem("z");
    const lines = pem.split("\n");
    const sig = lines.length - 3;
    lines[sig] = lines[sig].slice(0, 8) + (lines[sig][8] === "A" ? "B" : "A") +
      lines[sig].slice(9);
    assert.match(
      await invalid(t, csr("i", { request: base64(lines.join("\n")) })),
      /spec.request: Invalid value: \[\]byte\{.*\}: (x509: ECDSA verification failure|asn1: )/,
    );
  });
});

Deno.test({
  name: "kubectl get csr, certificate approve and certificate deny work against the server",
  ignore: skipWithoutKubectl("the kubectl certificate tests"),
  async fn() {
    await withServer(async (t) => {
      const k = kubectlFor(t);
      const manifest = (name: string) => JSON.stringify(csr(name, { expirationSeconds: 86400 }));
      ok(await kubectl(k, ["create", "-f", "-"], manifest("one")));
      ok(await kubectl(k, ["create", "-f", "-"], manifest("two")));
      const table = ok(await kubectl(k, ["get", "csr"]));
      assert.match(
        table,
        /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\n/,
      );
      assert.match(table, /\none\s+\S+\s+example.com\/signer\s+\S+\s+24h\s+Pending\n/);
      assert.match(
        ok(await kubectl(k, ["certificate", "approve", "one"])),
        /certificatesigningrequest.certificates.k8s.io\/one approved/,
      );
      assert.match(
        ok(await kubectl(k, ["certificate", "deny", "two"])),
        /certificatesigningrequest.certificates.k8s.io\/two denied/,
      );
      const after = ok(await kubectl(k, ["get", "certificatesigningrequests"]));
      assert.match(after, /\none\s+.*\s+Approved\n/);
      assert.match(after, /\ntwo\s+.*\s+Denied\n/);
      const one = JSON.parse(ok(await kubectl(k, ["get", "csr", "one", "-o", "json"])));
      assert.equal(one.status.conditions[0].reason, "KubectlApprove");
      const explained = ok(await kubectl(k, ["explain", "csr.spec.signerName"]));
      assert.match(explained, /KIND:\s+CertificateSigningRequest/);
      const described = ok(await kubectl(k, ["describe", "csr", "one"]));
      assert.match(described, /Signer:\s+example.com\/signer/);
      const denyApproved = await kubectl(k, ["certificate", "deny", "one"]);
      assert.notEqual(denyApproved.code, 0);
      assert.match(denyApproved.stderr, /is already Approved/);
    });
  },
});

Deno.test("approving, signing and kube-apiserver-client requests are checked as Kubernetes' admission does", async () => {
  await withServer(async (t) => {
    const bob = { "impersonate-user": "bob", "impersonate-extra-scopes": "view" };
    const asBob = async (method: string, path: string, body: unknown) => {
      const res = await t.fetch(path, {
        method,
        headers: { ...bob, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    await write(t, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      metadata: { name: "csr-editor" },
      rules: [{
        apiGroups: ["certificates.k8s.io"],
        resources: [
          "certificatesigningrequests",
          "certificatesigningrequests/approval",
          "certificatesigningrequests/status",
        ],
        verbs: ["*"],
      }],
    });
    await write(t, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      metadata: { name: "bob-csr-editor" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "csr-editor" },
      subjects: [{ kind: "User", name: "bob", apiGroup: "rbac.authorization.k8s.io" }],
    });
    const created = await asBob("POST", CSRS, csr("bobs"));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.spec.username, "bob");
    assert.deepEqual(created.body.spec.extra, { scopes: ["view"] });
    const pb = await t.fetch(`${CSRS}/bobs`, { headers: { accept: PB } });
    assert.deepEqual(decodeObject(new Uint8Array(await pb.arrayBuffer())), created.body);
    const cur = created.body;
    cur.status.conditions = [{ type: "Approved", status: "True", reason: "Bob" }];
    const refused = await asBob("PUT", `${CSRS}/bobs/approval`, cur);
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'certificatesigningrequests.certificates.k8s.io "bobs" is forbidden: user not permitted ' +
        'to approve requests with signerName "example.com/signer"',
    );
    await write(t, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      metadata: { name: "example-approver" },
      rules: [{
        apiGroups: ["certificates.k8s.io"],
        resources: ["signers"],
        resourceNames: ["example.com/*"],
        verbs: ["approve"],
      }],
    });
    await write(t, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      metadata: { name: "bob-approver" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "example-approver",
      },
      subjects: [{ kind: "User", name: "bob", apiGroup: "rbac.authorization.k8s.io" }],
    });
    const allowed = await asBob("PUT", `${CSRS}/bobs/approval`, cur);
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    const ca = await createCA("test-signer");
    const sign = await asBob("PUT", `${CSRS}/bobs/status`, {
      ...allowed.body,
      status: { ...allowed.body.status, certificate: base64(ca.certPem) },
    });
    assert.equal(sign.status, 403);
    assert.match(sign.body.message, /user not permitted to sign requests with signerName/);

    const masters = await send(t, "POST", CSRS, {
      ...csr("root"),
      spec: {
        ...csr("root").spec,
        request: base64(certificateRequestPem("root", ["system:masters"])),
        signerName: "kubernetes.io/kube-apiserver-client",
      },
    });
    assert.equal(masters.status, 403);
    assert.equal(
      masters.body.message,
      'certificatesigningrequests.certificates.k8s.io "root" is forbidden: use of ' +
        "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed",
    );
  });
});
