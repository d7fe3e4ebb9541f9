import assert from "node:assert/strict";
import { join } from "node:path";
import { type HttpsServer, serveHttps } from "../../../shared/http/https_server.ts";
import { bootstrapPki } from "../../../apiserver/pki/bootstrap_pki.ts";
import { verifyClientCertificate } from "../../../shared/pki/verify_client_certificate.ts";
import { writeAdminKubeconfig } from "../../../apiserver/pki/write_admin_kubeconfig.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { RestClient, type WatchEvent } from "../../../shared/client/rest_client.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

interface Seen {
  method: string;
  path: string;
  query: string;
  contentType: string | null;
  auth: string | null;
  body: string;
}

/** A tiny fake API server: records requests, answers from a map of configmaps. */
async function fakeApi(dataDir: string) {
  const pki = await bootstrapPki({ dataDir, hostname: "test" });
  const seen: Seen[] = [];
  const store = new Map<string, KubeObject>();
  const server: HttpsServer = await serveHttps(async (req, conn) => {
    const url = new URL(req.url);
    const body = await req.text();
    seen.push({
      method: req.method,
      path: url.pathname,
      query: url.search,
      contentType: req.headers.get("content-type"),
      auth: req.headers.get("authorization"),
      body,
    });
    if (url.pathname === "/whoami") {
      const v = verifyClientCertificate(conn.peerCertificates, pki.clientCa.certPem);
      return Response.json(v.ok ? { user: v.commonName, groups: v.organizations } : {});
    }
    const m = url.pathname.match(/^\/api\/v1\/namespaces\/([^/]+)\/configmaps(?:\/([^/]+))?$/);
    if (!m) throw StatusError.pathNotFound();
    const [, ns, name] = m;
    if (url.searchParams.get("watch") === "true") {
      const enc = new TextEncoder();
      return new Response(
        new ReadableStream({
          start(c) {
            for (const obj of store.values()) {
              c.enqueue(enc.encode(JSON.stringify({ type: "ADDED", object: obj }) + "\n"));
            }
            c.enqueue(enc.encode('{"type":"BOOKMARK","object":{"metadata":{}}}\n'));
            c.close();
          },
        }),
      );
    }
    switch (req.method) {
      case "GET":
        if (!name) {
          return Response.json({
            apiVersion: "v1",
            kind: "ConfigMapList",
            metadata: { resourceVersion: "7" },
            items: [...store.values()],
          });
        }
        if (!store.has(name)) {
          throw StatusError.notFound({ group: "", resource: "configmaps" }, name);
        }
        return Response.json(store.get(name));
      case "POST": {
        const obj = JSON.parse(body) as KubeObject;
        obj.metadata.namespace = ns;
        store.set(obj.metadata.name!, obj);
        return Response.json(obj, { status: 201 });
      }
      case "PUT":
      case "PATCH": {
        const obj = req.method === "PUT"
          ? JSON.parse(body)
          : { ...store.get(name)!, data: JSON.parse(body).data };
        store.set(name, obj);
        return Response.json(obj);
      }
      case "DELETE":
        store.delete(name);
        return Response.json({ kind: "Status", apiVersion: "v1", status: "Success", code: 200 });
    }
    throw StatusError.methodNotSupported({ group: "", resource: "configmaps" }, req.method);
  }, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: pki.serving.certPem,
    keyPem: pki.serving.keyPem,
    requestClientCert: true,
  });
  return { pki, seen, server, url: `https://127.0.0.1:${server.port}` };
}

const cm = { group: "", version: "v1", resource: "configmaps", namespace: "ns1" };

Deno.test("RestClient performs every verb over TLS with the kubeconfig's token", async () => {
  const dataDir = await Deno.makeTempDir();
  const api = await fakeApi(dataDir);
  const path = join(dataDir, "admin.kubeconfig");
  await writeAdminKubeconfig(path, {
    server: api.url,
    caPem: api.pki.caPem,
    token: api.pki.adminToken,
  });
  const client = await RestClient.fromKubeconfig(path);
  try {
    const created = await client.create<KubeObject>(cm, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a" },
      data: { k: "v" },
    });
    assert.equal(created.metadata.namespace, "ns1");
    assert.equal((await client.get({ ...cm, name: "a" })).metadata.name, "a");

    const list = await client.list(cm, { labelSelector: "app=x", limit: 5, continue: "tok" });
    assert.equal(list.items.length, 1);
    const listReq = api.seen.at(-1)!;
    assert.equal(listReq.query, "?labelSelector=app%3Dx&limit=5&continue=tok");

    await client.update({ ...cm }, { metadata: { name: "a" }, data: { k: "w" } });
    assert.equal(api.seen.at(-1)!.method, "PUT");
    assert.equal(api.seen.at(-1)!.path, "/api/v1/namespaces/ns1/configmaps/a");

    const patched = await client.patch<KubeObject>(
      { ...cm, name: "a" },
      { data: { k: "p" } },
      "application/merge-patch+json",
    );
    assert.deepEqual(patched.data, { k: "p" });
    assert.equal(api.seen.at(-1)!.contentType, "application/merge-patch+json");

    await client.delete({ ...cm, name: "a" }, { propagationPolicy: "Background" });
    const del = api.seen.at(-1)!;
    assert.equal(del.method, "DELETE");
    assert.deepEqual(JSON.parse(del.body), {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Background",
    });

    for (const s of api.seen) assert.equal(s.auth, `Bearer ${api.pki.adminToken}`);

    const raw = await client.request("GET", "/nowhere", { query: { a: "1" } });
    assert.equal(raw.status, 404);
    assert.equal(JSON.parse(raw.body).kind, "Status");
  } finally {
    client.close();
    await api.server.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("RestClient throws StatusError built from the Status body", async () => {
  const dataDir = await Deno.makeTempDir();
  const api = await fakeApi(dataDir);
  const client = new RestClient({ server: api.url, caPem: api.pki.caPem });
  try {
    const err = await client.get({ ...cm, name: "missing" }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 404);
    assert.equal(err.reason, "NotFound");
    assert.equal(err.status.details?.name, "missing");
  } finally {
    client.close();
    await api.server.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("RestClient presents a client certificate", async () => {
  const dataDir = await Deno.makeTempDir();
  const api = await fakeApi(dataDir);
  const client = new RestClient({
    server: api.url,
    caPem: api.pki.caPem,
    clientCertPem: api.pki.adminClient.certPem,
    clientKeyPem: api.pki.adminClient.keyPem,
  });
  try {
    const who = JSON.parse((await client.request("GET", "/whoami")).body);
    assert.deepEqual(who, { user: "kubernetes-admin", groups: ["system:masters"] });
  } finally {
    client.close();
    await api.server.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("RestClient.watch() delivers newline-delimited events", async () => {
  const dataDir = await Deno.makeTempDir();
  const api = await fakeApi(dataDir);
  const client = new RestClient({ server: api.url, caPem: api.pki.caPem });
  try {
    await client.create(cm, { metadata: { name: "w1" } });
    await client.create(cm, { metadata: { name: "w2" } });
    const events: WatchEvent[] = [];
    await client.watch(cm, { resourceVersion: "0" }, (e) => {
      events.push(e);
    });
    assert.deepEqual(events.map((e) => e.type), ["ADDED", "ADDED", "BOOKMARK"]);
    assert.deepEqual(events.slice(0, 2).map((e) => e.object.metadata.name), ["w1", "w2"]);
    assert.equal(api.seen.at(-1)!.query, "?resourceVersion=0&watch=true");
  } finally {
    client.close();
    await api.server.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
