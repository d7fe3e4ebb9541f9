/**
 * Our server as an extension API server behind another of our servers (see
 * _extension_apiserver.ts): through the main server, discovery, kubectl
 * create/get/list/watch/delete of the extension's Flunders, the caller's identity at the
 * extension, the main server's RBAC and the extension's SubjectAccessReview path; directly at
 * the extension, forged identity headers and a front-proxy certificate with a name not
 * allowed; an outage (Available False, 503) and the recovery.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { KUBECTL, kubectlFor, kubectlOk, runKubectl, spawnKubectl } from "../support/kubectl.ts";
import { call } from "./foundation_helpers.ts";
import {
  API_SERVICE,
  availability,
  BASE,
  extensionEvents,
  GROUP,
  NS,
  type Pair,
  restartExtension,
  startPair,
  stopPair,
  until,
  VERSION,
} from "./_extension_apiserver.ts";

async function discovery(p: Pair): Promise<void> {
  const groups = await call<{ groups: { name: string }[] }>(p.main, "GET", "/apis");
  assert.ok(groups.body.groups.some((g) => g.name === GROUP), "the group is not in /apis");
  const gv = await call<{ resources: { name: string; kind: string }[] }>(
    p.main,
    "GET",
    `/apis/${GROUP}/${VERSION}`,
  );
  assert.equal(gv.status, 200, gv.text);
  assert.deepEqual(gv.body.resources.map((r) => [r.name, r.kind]), [["flunders", "Flunder"]]);
  await until("the group in aggregated discovery", async () => {
    const r = await call<{ items: { metadata: { name: string } }[] }>(
      p.main,
      "GET",
      "/apis",
      undefined,
      { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" },
    );
    return r.body.items.some((i) => i.metadata.name === GROUP);
  });
}

async function mergedOpenApiV2(p: Pair): Promise<void> {
  const path = `/apis/${GROUP}/${VERSION}/namespaces/{namespace}/flunders`;
  const res = await until("the extension's paths in /openapi/v2", async () => {
    const r = await p.main.fetch("/openapi/v2", { headers: { accept: "application/json" } });
    const doc = await r.json() as {
      paths: Record<string, unknown>;
      definitions: Record<string, unknown>;
    };
    return doc.paths[path] ? { doc, etag: r.headers.get("etag")! } : undefined;
  });
  assert.ok(res.doc.definitions["com.example.wardle.v1alpha1.Flunder"], "no Flunder definition");
  assert.ok(res.doc.paths["/api/v1/namespaces/{namespace}/pods"], "the local paths stay");
  const again = await p.main.fetch("/openapi/v2", {
    headers: { accept: "application/json", "if-none-match": res.etag },
  });
  await again.body?.cancel();
  assert.equal(again.status, 304);
  const proto = await p.main.fetch("/openapi/v2", {
    headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" },
  });
  const bytes = new Uint8Array(await proto.arrayBuffer());
  assert.equal(proto.status, 200);
  assert.ok(new TextDecoder().decode(bytes).includes(path), "the path is not in the Protobuf form");
}

async function metric(p: Pair, line: RegExp): Promise<string | undefined> {
  const text = await (await p.main.fetch("/metrics")).text();
  return text.split("\n").find((l) => line.test(l));
}

async function kubectlVerbs(p: Pair): Promise<void> {
  if (!KUBECTL) {
    console.warn("kubectl is not on PATH: skipping the kubectl steps");
    const one = await call(p.main, "POST", BASE, { metadata: { name: "one" } });
    assert.equal(one.status, 201, one.text);
    return;
  }
  const target = kubectlFor(p.main);
  const manifest = join(p.dir, "flunder.json");
  const flunder = (name: string) =>
    JSON.stringify({ apiVersion: `${GROUP}/${VERSION}`, kind: "Flunder", metadata: { name } });
  await Deno.writeTextFile(manifest, flunder("one"));
  const created = kubectlOk(await runKubectl(target, ["create", "-n", NS, "-f", manifest]));
  assert.match(created, /flunder\.wardle\.example\.com\/one created/);
  const got = kubectlOk(
    await runKubectl(target, ["get", "flunder", "one", "-n", NS, "-o", "json"]),
  );
  assert.equal(JSON.parse(got).metadata.name, "one");
  const watch = spawnKubectl(target, [
    "get",
    "flunders",
    "-n",
    NS,
    "--watch",
    "--output-watch-events",
    "-o",
    "json",
  ]);
  const reader = watch.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const waitFor = async (type: string, name: string) => {
    const event = new RegExp(`"type":"${type}","object":.*"name":"${name}"`);
    while (!seen.split("\n").some((line) => event.test(line))) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the watch ended before ${type} ${name}: ${seen}`);
      seen += value;
    }
  };
  try {
    await waitFor("ADDED", "one");
    await Deno.writeTextFile(manifest, flunder("two"));
    kubectlOk(await runKubectl(target, ["create", "-n", NS, "-f", manifest]));
    await waitFor("ADDED", "two");
    const list = kubectlOk(await runKubectl(target, ["get", "flunders", "-n", NS]));
    assert.match(list, /^NAME\s+AGE$/m);
    assert.match(list, /^one\s/m);
    assert.match(list, /^two\s/m);
    const deleted = kubectlOk(await runKubectl(target, ["delete", "flunder", "two", "-n", NS]));
    assert.match(deleted, /flunder\.wardle\.example\.com "two" deleted/);
    await waitFor("DELETED", "two");
  } finally {
    watch.kill();
    await reader.cancel().catch(() => {});
    await watch.status;
    await watch.stderr.cancel().catch(() => {});
  }
  const services = kubectlOk(await runKubectl(target, ["get", "apiservices", API_SERVICE]));
  assert.match(
    services,
    new RegExp(`^${API_SERVICE.replaceAll(".", "\\.")}\\s+${NS}/api\\s+True`, "m"),
  );
}

async function identityAndRbac(p: Pair): Promise<void> {
  const rbac = "/apis/rbac.authorization.k8s.io/v1";
  const role = await call(p.main, "POST", `${rbac}/namespaces/${NS}/roles`, {
    metadata: { name: "flunder-reader" },
    rules: [{ apiGroups: [GROUP], resources: ["flunders"], verbs: ["get", "list"] }],
  });
  assert.equal(role.status, 201, role.text);
  const binding = await call(p.main, "POST", `${rbac}/namespaces/${NS}/rolebindings`, {
    metadata: { name: "bob-reads-flunders" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "flunder-reader" },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "bob" }],
  });
  assert.equal(binding.status, 201, binding.text);
  const bob = { authorization: "Bearer bob-token" };
  const list = await until("bob may list through the main server", async () => {
    const r = await call<{ items: unknown[] }>(p.main, "GET", BASE, undefined, bob);
    return r.status === 200 ? r : undefined;
  });
  assert.ok(list.body.items.length >= 1);
  const events = await until("the extension's audit event of bob's list", async () => {
    const e = (await extensionEvents(p)).filter((e) => e.user.username === "bob");
    return e.length > 0 ? e : undefined;
  });
  assert.deepEqual(events[0].user.groups, ["system:authenticated"]);
  assert.equal(events[0].responseStatus?.code, 200);
  // Bob may not create: the main server answers 403 and the extension never hears of it.
  const denied = await call(p.main, "POST", BASE, { metadata: { name: "x" } }, bob);
  assert.equal(denied.status, 403, denied.text);
  const carol = await call(p.main, "GET", BASE, undefined, { authorization: "Bearer carol-token" });
  assert.equal(carol.status, 403, carol.text);
  assert.match(JSON.parse(carol.text).message, /User "carol" cannot list resource "flunders"/);
  const counted = await metric(
    p,
    /^apiserver_request_total\{.*group="wardle\.example\.com".*resource="flunders".*verb="LIST"/,
  );
  assert.ok(counted, "proxied requests are not in apiserver_request_total");
  const all = await extensionEvents(p);
  assert.ok(!all.some((e) => e.user.username === "carol"), "carol's request reached the extension");
  assert.ok(!all.some((e) => e.verb === "create" && e.user.username === "bob"));
}

/** Directly at the extension with a token: TokenReview and SubjectAccessReview at the main server. */
async function subjectAccessReviewPath(p: Pair): Promise<void> {
  const carol = { authorization: "Bearer carol-token" };
  const denied = await call(p.ext, "GET", BASE, undefined, carol);
  assert.equal(denied.status, 403, denied.text);
  assert.match(JSON.parse(denied.text).message, /User "carol" cannot list resource "flunders"/);
  const unknown = await call(p.ext, "GET", BASE, undefined, { authorization: "Bearer nobody" });
  assert.equal(unknown.status, 401, unknown.text);
  const binding = await call(
    p.main,
    "POST",
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`,
    {
      metadata: { name: "carol-reads-flunders" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "flunder-reader" },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "carol" }],
    },
  );
  assert.equal(binding.status, 201, binding.text);
  await until("carol allowed at the extension", async () => {
    return (await call(p.ext, "GET", BASE, undefined, carol)).status === 200;
  });
}

async function forgedHeaders(p: Pair): Promise<void> {
  const forged = {
    "x-remote-user": "kubernetes-admin",
    "x-remote-group": "system:masters",
  };
  const res = await p.ext.fetch(BASE, { auth: false, headers: forged });
  const text = await res.text();
  assert.equal(res.status, 403, text);
  assert.match(JSON.parse(text).message, /User "system:anonymous" cannot list/);
  const frontProxyCa = p.main.server.pki.frontProxyCa!;
  const fetchWith = async (commonName: string) => {
    const cert = await issueCertificate({ ca: frontProxyCa, commonName, usages: "client" });
    const client = Deno.createHttpClient({
      caCerts: [p.ext.server.caPem],
      cert: cert.certPem,
      key: cert.keyPem,
    });
    try {
      const r = await fetch(p.ext.server.url + BASE, {
        headers: { "x-remote-user": "bob", "x-remote-group": "system:authenticated" },
        client,
      });
      return { status: r.status, text: await r.text() };
    } finally {
      client.close();
    }
  };
  const intruder = await fetchWith("intruder");
  assert.equal(intruder.status, 401, intruder.text);
  const proxy = await fetchWith("front-proxy-client");
  assert.equal(proxy.status, 200, proxy.text);
}

async function outageAndRecovery(p: Pair): Promise<void> {
  await p.ext.close();
  const down = await until("Available False", async () => {
    const a = await availability(p.main);
    return a?.status === "False" ? a : undefined;
  });
  assert.equal(down.reason, "FailedDiscoveryCheck");
  const r = await p.main.fetch(BASE);
  assert.equal(r.status, 503);
  assert.equal(await r.text(), "service unavailable\n");
  const name = `name="${API_SERVICE}"`;
  assert.match(
    (await metric(p, new RegExp(`^aggregator_unavailable_apiservice\\{${name}`)))!,
    / 1$/,
  );
  assert.match(
    (await metric(p, new RegExp(`^aggregator_unavailable_apiservice_total\\{${name}`)))!,
    /reason="FailedDiscoveryCheck"\} 1$/,
  );
  await restartExtension(p);
  await until("Available True", async () => (await availability(p.main))?.status === "True");
  const back = await call<{ items: unknown[] }>(p.main, "GET", BASE);
  assert.equal(back.status, 200, back.text);
  assert.ok(back.body.items.length >= 1, "the extension's objects survive its restart");
  assert.match(
    (await metric(p, new RegExp(`^aggregator_unavailable_apiservice\\{${name}`)))!,
    / 0$/,
  );
}

Deno.test("extension API server: our server behind another through an APIService", async (t) => {
  const p = await startPair();
  try {
    await t.step("discovery through the main server", () => discovery(p));
    await t.step("OpenAPI v2 merged with the extension's", () => mergedOpenApiV2(p));
    await t.step("kubectl create/get/list/watch/delete", () => kubectlVerbs(p));
    await t.step("the caller's identity and the main server's RBAC", () => identityAndRbac(p));
    await t.step(
      "TokenReview and SubjectAccessReview against the main server",
      () => subjectAccessReviewPath(p),
    );
    await t.step("forged headers and an unlisted front-proxy name", () => forgedHeaders(p));
    await t.step("outage and recovery", () => outageAndRecovery(p));
  } finally {
    await stopPair(p);
  }
});
