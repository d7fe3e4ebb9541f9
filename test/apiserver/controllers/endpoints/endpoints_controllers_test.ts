import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { EndpointsController } from "../../../../apiserver/controllers/endpoints/endpoints_controller.ts";
import { EndpointSliceMirroringController } from "../../../../apiserver/controllers/endpoints/endpoint_slice_mirroring_controller.ts";
import { EndpointSliceController } from "../../../../apiserver/controllers/endpoints/endpoint_slice_controller.ts";
import { eventually } from "../../../support/eventually.ts";
import { type FeedEnv, markPod, withFeedEnv } from "../_feed_env.ts";

const deadline = { timeoutMs: 30_000, intervalMs: 50 };

async function withControllers(fn: (env: FeedEnv) => Promise<void>, maxPerSlice?: number) {
  await withFeedEnv("endpoints_", async (env) => {
    const ep = new EndpointsController({ registry: env.registry, feed: env.feed });
    const sl = new EndpointSliceController({
      registry: env.registry,
      feed: env.feed,
      maxEndpointsPerSlice: maxPerSlice,
    });
    await ep.start();
    await sl.start();
    try {
      await fn(env);
    } finally {
      await sl.stop();
      await ep.stop();
    }
  });
}

function pod(name: string, labels: Record<string, string>, port = 8080): KubeObject {
  return {
    metadata: { name, labels },
    spec: {
      nodeName: "node-a",
      containers: [{ name: "c", image: "x", ports: [{ name: "http", containerPort: port }] }],
    },
  } as unknown as KubeObject;
}

const service = {
  metadata: { name: "web", labels: { tier: "front" } },
  spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
} as unknown as KubeObject;

async function slicesOf(env: FeedEnv, svc: string) {
  const list = await env.store("discovery.k8s.io", "v1", "endpointslices").list("default", {
    plan: { mode: "latest" },
  });
  return list.items.filter((s) =>
    s.metadata.labels?.["kubernetes.io/service-name"] === svc
  ) as (KubeObject & { endpoints?: Record<string, unknown>[]; ports?: unknown[] })[];
}

async function endpointsOf(env: FeedEnv, name: string) {
  try {
    return await env.store("", "v1", "endpoints").get("default", name) as KubeObject & {
      subsets?: {
        addresses?: { ip: string }[];
        notReadyAddresses?: { ip: string }[];
        ports?: unknown[];
      }[];
    };
  } catch {
    return undefined;
  }
}

Deno.test("EndpointsController and EndpointSliceController follow a Service's ready pods", async () => {
  await withControllers(async (env) => {
    const pods = env.store("", "v1", "pods");
    await env.store("", "v1", "services").create("default", service);
    // An empty Service: Endpoints without subsets and one placeholder slice.
    await eventually("empty endpoints", async () => !!(await endpointsOf(env, "web")), deadline);
    await eventually(
      "placeholder slice",
      async () => (await slicesOf(env, "web")).length === 1,
      deadline,
    );
    const a = await pods.create("default", pod("a", { app: "web" }));
    const b = await pods.create("default", pod("b", { app: "web" }));
    await pods.create("default", pod("other", { app: "other" }));
    await markPod(env, a, true, { ip: "10.0.0.1" });
    await markPod(env, b, false, { ip: "10.0.0.2" });
    await eventually("endpoints", async () => {
      const ep = await endpointsOf(env, "web");
      const s = ep?.subsets?.[0];
      return s?.addresses?.[0]?.ip === "10.0.0.1" && s?.notReadyAddresses?.[0]?.ip === "10.0.0.2";
    }, deadline);
    const ep = (await endpointsOf(env, "web"))!;
    assert.deepEqual(ep.subsets![0].ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
    assert.equal(ep.metadata.labels?.tier, "front");
    await eventually("slice", async () => {
      const [s] = await slicesOf(env, "web");
      return s?.endpoints?.length === 2;
    }, deadline);
    const [slice] = await slicesOf(env, "web");
    assert.equal(
      slice.metadata.labels?.["endpointslice.kubernetes.io/managed-by"],
      "endpointslice-controller.k8s.io",
    );
    assert.equal(slice.metadata.ownerReferences?.[0].kind, "Service");
    assert.deepEqual(slice.ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
    const byIp = Object.fromEntries(slice.endpoints!.map((e) => [(e.addresses as string[])[0], e]));
    assert.deepEqual(byIp["10.0.0.1"].conditions, {
      ready: true,
      serving: true,
      terminating: false,
    });
    assert.deepEqual(byIp["10.0.0.2"].conditions, {
      ready: false,
      serving: false,
      terminating: false,
    });
    assert.equal(byIp["10.0.0.1"].nodeName, "node-a");

    // A deleted pod leaves both.
    await pods.delete("default", "a", { gracePeriodSeconds: 0 });
    await eventually("a gone", async () => {
      const e = await endpointsOf(env, "web");
      const [s] = await slicesOf(env, "web");
      return !e?.subsets?.[0]?.addresses && s?.endpoints?.length === 1;
    }, deadline);

    // The Service deleted: its Endpoints go.
    await env.store("", "v1", "services").delete("default", "web");
    await eventually("endpoints deleted", async () => !(await endpointsOf(env, "web")), deadline);
  });
});

Deno.test("EndpointSliceController splits endpoints over slices of at most the maximum", async () => {
  await withControllers(async (env) => {
    const pods = env.store("", "v1", "pods");
    await env.store("", "v1", "services").create("default", service);
    for (let i = 0; i < 5; i++) {
      const p = await pods.create("default", pod(`p${i}`, { app: "web" }));
      await markPod(env, p, true, { ip: `10.0.1.${i + 1}` });
    }
    await eventually("3 slices", async () => {
      const slices = await slicesOf(env, "web");
      const total = slices.reduce((n, s) => n + (s.endpoints?.length ?? 0), 0);
      return slices.length === 3 && total === 5 &&
        slices.every((s) => (s.endpoints?.length ?? 0) <= 2);
    }, deadline);
  }, 2);
});

Deno.test("EndpointSliceMirroringController mirrors the Endpoints of a Service without a selector", async () => {
  await withFeedEnv("mirroring_", async (env) => {
    const c = new EndpointSliceMirroringController({ registry: env.registry, feed: env.feed });
    await c.start();
    try {
      await env.store("", "v1", "services").create("default", {
        metadata: { name: "ext" },
        spec: { ports: [{ name: "db", port: 5432 }] },
      } as unknown as KubeObject);
      const endpoints = env.store("", "v1", "endpoints");
      await endpoints.create("default", {
        metadata: { name: "ext", labels: { team: "data" } },
        subsets: [{
          addresses: [{ ip: "192.0.2.10" }],
          notReadyAddresses: [{ ip: "192.0.2.11" }],
          ports: [{ name: "db", port: 5432 }],
        }],
      } as unknown as KubeObject);
      await eventually(
        "mirrored",
        async () => (await slicesOf(env, "ext"))[0]?.endpoints?.length === 2,
        deadline,
      );
      const [slice] = await slicesOf(env, "ext");
      assert.equal(
        slice.metadata.labels?.["endpointslice.kubernetes.io/managed-by"],
        "endpointslicemirroring-controller.k8s.io",
      );
      assert.equal(slice.metadata.labels?.team, "data");
      assert.equal(slice.metadata.ownerReferences?.[0].kind, "Endpoints");
      assert.deepEqual(slice.ports, [{ name: "db", port: 5432, protocol: "TCP" }]);
      assert.deepEqual(slice.endpoints!.map((e) => [(e.addresses as string[])[0], e.conditions]), [
        ["192.0.2.10", { ready: true }],
        ["192.0.2.11", { ready: false }],
      ]);
      // Marked skip-mirror: the mirrored slice goes.
      await endpoints.guaranteedUpdate("default", "ext", (cur) => {
        cur!.metadata.labels = { "endpointslice.kubernetes.io/skip-mirror": "true" };
        return cur;
      });
      await eventually(
        "unmirrored",
        async () => (await slicesOf(env, "ext")).length === 0,
        deadline,
      );
    } finally {
      await c.stop();
    }
  });
});
