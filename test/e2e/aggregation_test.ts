/**
 * The aggregation layer end to end: a fake extension API server (its own CA, HTTPS, asking for
 * a client certificate) registered through a Service, an EndpointSlice and an APIService;
 * through our server: availability, discovery, create/get/list/watch proxied with the caller's
 * identity as front-proxy headers and never their credentials, RBAC before proxying, 503 while
 * the extension is down, recovery when it is back; kubectl where present.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { call } from "./foundation_helpers.ts";
import {
  type FakeExtension,
  GROUP,
  OPENAPI_DOC,
  startFakeExtension,
  VERSION,
} from "./_fake_extension_server.ts";

const NS = "wardle";
const SVC = "api";
const API_SERVICE = `${VERSION}.${GROUP}`;
const BASE = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/flunders`;

interface Ctx {
  s: TestServer;
  ext: FakeExtension;
  dir: string;
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function availability(s: TestServer): Promise<Record<string, string> | undefined> {
  const r = await call<{ status?: { conditions?: Record<string, string>[] } }>(
    s,
    "GET",
    `/apis/apiregistration.k8s.io/v1/apiservices/${API_SERVICE}`,
  );
  return r.body.status?.conditions?.find((c) => c.type === "Available");
}

/**
 * A non-loopback IPv4 address of this machine (EndpointSlices may not name loopback ones), or
 * undefined when there is none.
 */
function hostAddress(): string | undefined {
  return Deno.networkInterfaces().find((i) => i.family === "IPv4" && !i.address.startsWith("127."))
    ?.address;
}

/**
 * A Service (no selector) with an EndpointSlice to the fake on this machine's address, or,
 * without one, an ExternalName Service to localhost; then the APIService (port defaulted).
 */
async function register(c: Ctx): Promise<void> {
  const { s, ext } = c;
  const ns = await call(s, "POST", "/api/v1/namespaces", { metadata: { name: NS } });
  assert.equal(ns.status, 201);
  const address = hostAddress();
  const svc = await call(s, "POST", `/api/v1/namespaces/${NS}/services`, {
    metadata: { name: SVC },
    spec: address
      ? { ports: [{ port: 443, targetPort: ext.port }] }
      : { type: "ExternalName", externalName: "localhost" },
  });
  assert.equal(svc.status, 201, svc.text);
  if (address) {
    const slice = await call(
      s,
      "POST",
      `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
      {
        metadata: { name: `${SVC}-1`, labels: { "kubernetes.io/service-name": SVC } },
        addressType: "IPv4",
        endpoints: [{ addresses: [address], conditions: { ready: true } }],
        ports: [{ name: "", port: ext.port, protocol: "TCP" }],
      },
    );
    assert.equal(slice.status, 201, slice.text);
  }
  const service = address
    ? { namespace: NS, name: SVC }
    : { namespace: NS, name: SVC, port: ext.port };
  const api = await call(s, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
    metadata: { name: API_SERVICE },
    spec: {
      group: GROUP,
      version: VERSION,
      service,
      caBundle: btoa(ext.ca.certPem),
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  });
  assert.equal(api.status, 201, api.text);
  const spec = (api.body as unknown as { spec: { service: { port: number } } }).spec;
  assert.equal(spec.service.port, address ? 443 : ext.port);
}

/** The last request the extension saw for the flunders (not a discovery or health check). */
function lastProxied(ext: FakeExtension) {
  return ext.seen.findLast((x) => x.path.startsWith(BASE))!;
}

async function proxiedVerbs(c: Ctx): Promise<void> {
  const { s, ext } = c;
  const disc = await call<{ resources: { name: string }[] }>(s, "GET", `/apis/${GROUP}/${VERSION}`);
  assert.equal(disc.status, 200, disc.text);
  assert.deepEqual(disc.body.resources.map((r) => r.name), ["flunders"]);
  const created = await call(s, "POST", BASE, { metadata: { name: "one" }, spec: { x: 1 } });
  assert.equal(created.status, 201, created.text);
  const got = await call(s, "GET", `${BASE}/one`);
  assert.equal(got.status, 200);
  assert.equal(got.body.metadata.name, "one");
  const list = await call<{ items: unknown[] }>(s, "GET", BASE);
  assert.equal(list.body.items.length, 1);
  const last = lastProxied(ext);
  assert.equal(last.user, "kubernetes-admin");
  assert.deepEqual(last.groups, ["system:masters", "system:authenticated"]);
  assert.equal(last.clientCertCN, "front-proxy-client");
  assert.ok(ext.seen.every((x) => !x.authorization && !x.impersonation), "credentials forwarded");
}

async function proxiedWatch(c: Ctx): Promise<void> {
  const { s } = c;
  const ac = new AbortController();
  const res = await s.fetch(`${BASE}?watch=true`, { signal: ac.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const nextEvent = async () => {
    while (!buf.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("watch ended");
      buf += value;
    }
    const i = buf.indexOf("\n");
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    return JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
  };
  assert.equal((await nextEvent()).object.metadata.name, "one");
  assert.equal((await call(s, "POST", BASE, { metadata: { name: "two" } })).status, 201);
  const ev = await nextEvent();
  assert.deepEqual([ev.type, ev.object.metadata.name], ["ADDED", "two"]);
  ac.abort();
  await reader.cancel().catch(() => {});
}

async function identityAndRbac(c: Ctx): Promise<void> {
  const { s, ext } = c;
  const imp = await call(s, "GET", `${BASE}/one`, undefined, {
    "Impersonate-User": "alice",
    "Impersonate-Group": "system:masters",
    "Impersonate-Extra-Team%2FName": "blue",
  });
  assert.equal(imp.status, 200, imp.text);
  const seen = lastProxied(ext);
  assert.equal(seen.user, "alice");
  assert.deepEqual(seen.groups, ["system:masters", "system:authenticated"]);
  assert.deepEqual(seen.extra, { "team/name": ["blue"] });
  assert.ok(!seen.impersonation && !seen.authorization);
  const denied = await call(s, "GET", BASE, undefined, { authorization: "Bearer bob-token" });
  assert.equal(denied.status, 403, denied.text);
  assert.match(JSON.parse(denied.text).message, /User "bob" cannot list resource "flunders"/);
  assert.ok(!ext.seen.some((x) => x.user === "bob"), "a forbidden request reached the extension");
}

/** The group names of /apis, and the versions of aggregated discovery's remote group. */
async function discovery(s: TestServer) {
  const legacy = await call<{ groups: { name: string }[] }>(s, "GET", "/apis");
  const aggregated = await call<
    {
      items: {
        metadata: { name: string };
        versions: { version: string; resources: unknown[] }[];
      }[];
    }
  >(s, "GET", "/apis", undefined, {
    accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
  });
  return {
    names: legacy.body.groups.map((g) => g.name),
    remote: aggregated.body.items.find((i) => i.metadata.name === GROUP),
    aggregatedNames: aggregated.body.items.map((i) => i.metadata.name),
  };
}

async function mergedDiscovery(c: Ctx): Promise<void> {
  const { s } = c;
  const d = await until("the remote group in aggregated discovery", async () => {
    const d = await discovery(s);
    return d.remote ? d : undefined;
  });
  assert.deepEqual(d.names.slice(0, 3), ["apiregistration.k8s.io", "apps", "events.k8s.io"]);
  // The resource metrics group keeps metrics-server's low priority (100): it comes last.
  assert.deepEqual(d.names.slice(-2), [GROUP, "metrics.k8s.io"]);
  assert.deepEqual(d.aggregatedNames, d.names);
  assert.deepEqual(d.remote!.versions.map((v) => v.version), [VERSION]);
  assert.deepEqual(d.remote!.versions[0].resources, [{
    resource: "flunders",
    responseKind: { group: "", version: "", kind: "Flunder" },
    scope: "Namespaced",
    singularResource: "flunder",
    verbs: ["create", "get", "list", "watch"],
  }]);
  const index = await until("the remote OpenAPI v3 document", async () => {
    const r = await call<{ paths: Record<string, { serverRelativeURL: string }> }>(
      s,
      "GET",
      "/openapi/v3",
    );
    return r.body.paths[`apis/${GROUP}/${VERSION}`] ? r.body : undefined;
  });
  assert.ok(index.paths["apis/apps/v1"], "the local documents stay listed");
  const doc = await call(s, "GET", index.paths[`apis/${GROUP}/${VERSION}`].serverRelativeURL);
  assert.equal(doc.status, 200);
  assert.deepEqual(doc.body, OPENAPI_DOC);
  const group = await call<{ preferredVersion: { version: string } }>(s, "GET", `/apis/${GROUP}`);
  assert.equal(group.body.preferredVersion.version, VERSION);
}

async function kubectlSteps(c: Ctx): Promise<void> {
  const kubectl = "/usr/bin/kubectl";
  try {
    await Deno.stat(kubectl);
  } catch {
    console.log("kubectl not found: skipping the kubectl steps");
    return;
  }
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(kubectl, {
      args: [`--kubeconfig=${c.s.server.kubeconfigPath}`, ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.ok(out.success, text);
    return text;
  };
  const services = await run("get", "apiservices");
  assert.match(services, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/m);
  assert.match(services, /^v1\.\s+Local\s+True\s+\S+$/m);
  assert.match(services, /^v1\.apps\s+Local\s+True\s+\S+$/m);
  assert.match(
    services,
    new RegExp(`^${API_SERVICE.replaceAll(".", "\\.")}\\s+${NS}/${SVC}\\s+True\\s+\\S+$`, "m"),
  );
  const manifest = join(c.dir, "flunder.json");
  await Deno.writeTextFile(
    manifest,
    JSON.stringify({
      apiVersion: `${GROUP}/${VERSION}`,
      kind: "Flunder",
      metadata: { name: "kube" },
    }),
  );
  assert.match(
    await run("create", "-n", NS, "-f", manifest),
    /flunder\.wardle\.example\.com\/kube created/,
  );
  const flunders = await run("get", "flunders", "-n", NS);
  assert.match(flunders, /^NAME\s+AGE/m);
  assert.match(flunders, /^one\s/m);
  assert.match(flunders, /^kube\s/m);
}

async function removal(c: Ctx): Promise<void> {
  const { s } = c;
  const del = await call(s, "DELETE", `/apis/apiregistration.k8s.io/v1/apiservices/${API_SERVICE}`);
  assert.equal(del.status, 200, del.text);
  await until("the remote group gone from discovery", async () => {
    const d = await discovery(s);
    return !d.remote && !d.names.includes(GROUP) ? true : undefined;
  });
  assert.equal((await call(s, "GET", `${BASE}/one`)).status, 404);
  const index = await call<{ paths: Record<string, unknown> }>(s, "GET", "/openapi/v3");
  assert.equal(index.body.paths[`apis/${GROUP}/${VERSION}`], undefined);
}

async function outageAndRecovery(c: Ctx): Promise<void> {
  const { s, ext } = c;
  await ext.stop();
  const down = await until("Available False", async () => {
    const a = await availability(s);
    return a?.status === "False" ? a : undefined;
  });
  assert.equal(down.reason, "FailedDiscoveryCheck");
  assert.match(down.message, /connection refused/);
  const r = await s.fetch(BASE);
  assert.equal(r.status, 503);
  assert.equal(await r.text(), "service unavailable\n");
  await ext.restart();
  await until("Available True", async () => {
    const a = await availability(s);
    return a?.status === "True" ? a : undefined;
  });
  assert.equal((await call(s, "GET", `${BASE}/one`)).status, 200);
}

/** An upgrade request through our server reaches the extension, which echoes upper-cased. */
async function proxiedUpgrade({ s, ext }: Ctx): Promise<void> {
  const conn = await Deno.connectTls({
    hostname: "127.0.0.1",
    port: s.server.port,
    caCerts: [s.server.caPem],
  });
  try {
    await conn.write(new TextEncoder().encode(
      `GET ${BASE}/one/shout HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.server.adminToken}\r\n` +
        "Connection: Upgrade\r\nUpgrade: echo\r\n\r\nhello",
    ));
    let text = "";
    const buf = new Uint8Array(4096);
    const deadline = Date.now() + 30_000;
    while (!text.includes("HELLO") && Date.now() < deadline) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    assert.match(text, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    assert.match(text, /HELLO$/);
  } finally {
    conn.close();
  }
  const seen = ext.seen.findLast((r) => r.path === `${BASE}/one/shout`);
  assert.equal(seen?.user, "kubernetes-admin");
  assert.equal(seen?.authorization, false);
}

Deno.test("aggregation: an extension API server behind an APIService", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "aggregation-test-" });
  await Deno.writeTextFile(join(dir, "tokens.csv"), "bob-token,bob,uid-bob\n");
  const ext = await startFakeExtension(NS, SVC);
  const s = await startTestServer([`--token-auth-file=${join(dir, "tokens.csv")}`], {
    optionsHook: (o) => {
      o.aggregatorResyncMs = 1_000;
    },
  });
  const c: Ctx = { s, ext, dir };
  try {
    await t.step("register and become Available", async () => {
      await register(c);
      const a = await until("Available True", async () => {
        const a = await availability(s);
        return a?.status === "True" ? a : undefined;
      });
      assert.deepEqual([a.reason, a.message], ["Passed", "all checks passed"]);
    });
    await t.step("get, list and create through the proxy", () => proxiedVerbs(c));
    await t.step("watch through the proxy", () => proxiedWatch(c));
    await t.step("a connection upgrade passes through the proxy", () => proxiedUpgrade(c));
    await t.step("identity headers and RBAC", () => identityAndRbac(c));
    await t.step("discovery lists the remote group in kube's order", () => mergedDiscovery(c));
    await t.step("kubectl", () => kubectlSteps(c));
    await t.step("outage and recovery", () => outageAndRecovery(c));
    await t.step("a deleted APIService leaves discovery", () => removal(c));
  } finally {
    await s.close();
    await ext.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
