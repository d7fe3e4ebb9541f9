/**
 * Several versions of a custom resource end to end over HTTPS: the kinds are built here as
 * the CRD builder builds them (the storage version served from itself, the others from it),
 * converted by a test conversion webhook over HTTPS with its own CA, or by strategy None.
 */
import assert from "node:assert/strict";
import { WebhookClient } from "../../apiserver/webhook/webhook_client.ts";
import { registryEndpointSource } from "../../apiserver/webhook/service_resolver.ts";
import {
  type ConversionWebhook,
  nonLoopbackIPv4,
  startConversionWebhook,
} from "../support/conversion_webhook.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { crdOf, serveWidgets, widgetKind } from "../support/widget_versions.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const V1 = "/apis/example.com/v1/namespaces/default/widgets";
const V2 = "/apis/example.com/v2/namespaces/default/widgets";
const DEPRECATED = '299 - "example.com/v1 Widget is deprecated; use example.com/v2 Widget"';

async function call(s: TestServer, method: string, path: string, body?: unknown, type?: string) {
  const res = await s.fetch(path, {
    method,
    headers: { "content-type": type ?? "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { res, json: await res.json() as Json };
}

async function withWebhookServer(fn: (s: TestServer, hook: ConversionWebhook) => Promise<void>) {
  const s = await startTestServer();
  const hook = await startConversionWebhook();
  const client = new WebhookClient();
  try {
    serveWidgets(
      s,
      crdOf({
        strategy: "Webhook",
        webhook: {
          clientConfig: { url: hook.url, caBundle: hook.caBundle },
          conversionReviewVersions: ["v1"],
        },
      }),
      client,
    );
    await fn(s, hook);
  } finally {
    client.close();
    await hook.close();
    await s.close();
  }
}

Deno.test("a custom resource's versions are converted by its webhook on every verb", async (t) => {
  await withWebhookServer(async (s, hook) => {
    await t.step("POST at v1 stores v2 and answers v1, with the deprecation warning", async () => {
      const { res, json } = await call(s, "POST", V1, {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "a" },
        spec: { size: 1 },
      });
      assert.equal(res.status, 201, JSON.stringify(json));
      assert.equal(res.headers.get("warning"), DEPRECATED);
      assert.equal(json.apiVersion, "example.com/v1");
      assert.deepEqual(json.spec, { size: 1 });
      const v2 = await call(s, "GET", `${V2}/a`);
      assert.equal(v2.res.headers.get("warning"), null);
      assert.deepEqual(v2.json.spec, { dimensions: { size: 1 } });
      assert.ok(hook.reviews.length >= 2);
    });
    await t.step("a list is converted in one ConversionReview", async () => {
      await write(s, "POST", V2, { metadata: { name: "b" }, spec: { dimensions: { size: 2 } } });
      const before = hook.reviews.length;
      const { json } = await call(s, "GET", V1);
      assert.equal(json.kind, "WidgetList");
      assert.deepEqual(json.items.map((o: Json) => [o.apiVersion, o.spec]), [
        ["example.com/v1", { size: 1 }],
        ["example.com/v1", { size: 2 }],
      ]);
      assert.equal(hook.reviews.length, before + 1);
    });
    await t.step("merge patch and apply at v1", async () => {
      const patched = await call(
        s,
        "PATCH",
        `${V1}/a`,
        { spec: { size: 5 } },
        "application/merge-patch+json",
      );
      assert.equal(patched.res.status, 200, JSON.stringify(patched.json));
      assert.deepEqual(patched.json.spec, { size: 5 });
      assert.deepEqual((await call(s, "GET", `${V2}/a`)).json.spec, { dimensions: { size: 5 } });
      const applied = await call(
        s,
        "PATCH",
        `${V1}/c?fieldManager=test`,
        {
          apiVersion: "example.com/v1",
          kind: "Widget",
          metadata: { name: "c" },
          spec: { size: 7 },
        },
        "application/apply-patch+yaml",
      );
      assert.equal(applied.res.status, 201, JSON.stringify(applied.json));
      assert.deepEqual(applied.json.spec, { size: 7 });
      assert.equal(applied.json.metadata.managedFields[0].apiVersion, "example.com/v1");
    });
    await t.step("the status subresource at v1", async () => {
      const current = (await call(s, "GET", `${V1}/a`)).json;
      const { res, json } = await call(s, "PUT", `${V1}/a/status`, {
        ...current,
        spec: { size: 100 },
        status: { ready: true },
      });
      assert.equal(res.status, 200, JSON.stringify(json));
      assert.deepEqual([json.apiVersion, json.spec, json.status], [
        "example.com/v1",
        { size: 5 },
        { ready: true },
      ]);
      assert.deepEqual((await call(s, "GET", `${V2}/a`)).json.status, { ready: true });
    });
    await t.step("watch at v1 receives converted events", async () => {
      const w = await watch(s, "watch=1&resourceVersion=0&timeoutSeconds=30", V1);
      try {
        const initial = await w.take(3);
        assert.deepEqual(initial.map((e) => [e.type, e.object.apiVersion]), [
          ["ADDED", "example.com/v1"],
          ["ADDED", "example.com/v1"],
          ["ADDED", "example.com/v1"],
        ]);
        await write(s, "PUT", `${V2}/b`, {
          metadata: { name: "b" },
          spec: { dimensions: { size: 9 } },
        });
        const ev = await w.next();
        assert.equal(ev?.type, "MODIFIED");
        assert.deepEqual(ev?.object.spec, { size: 9 });
        hook.mode = "failed";
        await write(s, "DELETE", `${V2}/b`);
        const err = await w.next();
        assert.equal(err?.type, "ERROR");
        assert.match(err?.object.message, /widgets cannot convert today/);
        assert.equal(await w.next(), undefined, "the stream ends after a failed conversion");
      } finally {
        await w.cancel();
        hook.mode = "convert";
      }
    });
    await t.step("watchers of one version share each event's conversion", async () => {
      const rv = (await call(s, "GET", V2)).json.metadata.resourceVersion;
      const query = `watch=1&resourceVersion=${rv}&timeoutSeconds=30`;
      const watchers = [await watch(s, query, V1), await watch(s, query, V1)];
      try {
        const before = hook.reviews.length;
        await write(s, "POST", V2, { metadata: { name: "d" }, spec: { dimensions: { size: 4 } } });
        for (const w of watchers) {
          const ev = await w.next();
          assert.deepEqual([ev?.type, ev?.object.spec], ["ADDED", { size: 4 }]);
        }
        assert.equal(hook.reviews.length, before + 1);
      } finally {
        for (const w of watchers) await w.cancel();
      }
    });
    await t.step("a failing webhook is a 500 with kube's message", async () => {
      hook.mode = "failed";
      try {
        const { res, json } = await call(s, "GET", `${V1}/a`);
        assert.equal(res.status, 500);
        assert.equal(
          json.message,
          "conversion webhook for example.com/v2, Kind=Widget failed: widgets cannot convert today",
        );
        assert.equal(res.headers.get("warning"), DEPRECATED);
      } finally {
        hook.mode = "convert";
      }
    });
    await t.step("DELETE at v1 answers the object at v1; a 404 still warns", async () => {
      const { res, json } = await call(s, "DELETE", `${V1}/a`);
      assert.equal(res.status, 200, JSON.stringify(json));
      assert.deepEqual([json.apiVersion, json.spec], ["example.com/v1", { size: 5 }]);
      const missing = await call(s, "GET", `${V1}/a`);
      assert.equal(missing.res.status, 404);
      assert.equal(missing.res.headers.get("warning"), DEPRECATED);
    });
  });
});

Deno.test("objects stored at an earlier storage version stay readable (strategy None)", async () => {
  const s = await startTestServer();
  try {
    // First v1 is the storage version.
    s.server.registry.add(widgetKind("v1"));
    await write(s, "POST", V1, { metadata: { name: "old" }, spec: { size: 3 } });
    // Then v2 is, with strategy None: the old object reads at v2 with its apiVersion rewritten.
    serveWidgets(s, crdOf({ strategy: "None" }));
    const got = await call(s, "GET", `${V2}/old`);
    assert.equal(got.res.status, 200, JSON.stringify(got.json));
    assert.equal(got.json.apiVersion, "example.com/v2");
    assert.deepEqual(got.json.spec, { size: 3 });
    const list = await call(s, "GET", V2);
    assert.deepEqual(list.json.items.map((o: Json) => o.apiVersion), ["example.com/v2"]);
    const v1 = await call(s, "GET", `${V1}/old`);
    assert.equal(v1.json.apiVersion, "example.com/v1");
    assert.equal(v1.res.headers.get("warning"), DEPRECATED);
    // A write at v2 stores v2.
    const updated = await write(s, "PUT", `${V2}/old`, { ...got.json, spec: { size: 4 } });
    assert.equal(updated.apiVersion, "example.com/v2");
    const w = await watch(s, "watch=1&resourceVersion=0&timeoutSeconds=30", V1);
    try {
      const [ev] = await w.take(1);
      assert.deepEqual([ev.type, ev.object.apiVersion, ev.object.spec], [
        "ADDED",
        "example.com/v1",
        { size: 4 },
      ]);
    } finally {
      await w.cancel();
    }
  } finally {
    await s.close();
  }
});

Deno.test("a conversion webhook is reached through a Service reference", async () => {
  const address = nonLoopbackIPv4();
  if (!address) {
    console.log("skipped: no non-loopback IPv4 address for the webhook's endpoint");
    return;
  }
  const s = await startTestServer();
  const hook = await startConversionWebhook("convert", {
    dnsNames: ["widget-hook.default.svc"],
    hostname: address,
  });
  const client = new WebhookClient({ endpoints: registryEndpointSource(s.server.registry) });
  try {
    await write(s, "POST", "/api/v1/namespaces/default/services", {
      metadata: { name: "widget-hook" },
      spec: { ports: [{ name: "https", port: 443, targetPort: hook.port }] },
    });
    await write(s, "POST", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", {
      metadata: { name: "widget-hook-1", labels: { "kubernetes.io/service-name": "widget-hook" } },
      addressType: "IPv4",
      endpoints: [{ addresses: [address], conditions: { ready: true } }],
      ports: [{ name: "https", port: hook.port, protocol: "TCP" }],
    });
    const service = { namespace: "default", name: "widget-hook", path: "/convert", port: 443 };
    serveWidgets(
      s,
      crdOf({
        strategy: "Webhook",
        webhook: {
          clientConfig: { service, caBundle: hook.caBundle },
          conversionReviewVersions: ["v1", "v1beta1"],
        },
      }),
      client,
    );
    const created = await write(s, "POST", V1, { metadata: { name: "a" }, spec: { size: 2 } });
    assert.deepEqual(created.spec, { size: 2 });
    const got = await call(s, "GET", `${V2}/a`);
    assert.deepEqual(got.json.spec, { dimensions: { size: 2 } });
    assert.ok(hook.reviews.length > 0);
    await write(
      s,
      "DELETE",
      "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/widget-hook-1",
    );
    const down = await call(s, "GET", `${V1}/a`);
    assert.equal(down.res.status, 500);
    assert.equal(
      down.json.message,
      'conversion webhook for example.com/v2, Kind=Widget failed: Post "https://widget-hook.default.svc:443/convert?timeout=30s": no endpoints available for service "widget-hook"',
    );
  } finally {
    client.close();
    await hook.close();
    await s.close();
  }
});
