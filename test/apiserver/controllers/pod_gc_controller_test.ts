import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { PodGcController } from "../../../apiserver/controllers/pod_gc_controller.ts";
import { gone } from "../../support/registry_harness.ts";
import { withFeedEnv } from "./_feed_env.ts";

function pod(name: string, node: string): KubeObject {
  return {
    metadata: { name },
    spec: { nodeName: node || undefined, containers: [{ name: "c", image: "x" }] },
  } as unknown as KubeObject;
}

Deno.test("PodGcController deletes terminated pods over the threshold, orphans and unscheduled terminating pods", async () => {
  await withFeedEnv("podgc_", async (env) => {
    const pods = env.store("", "v1", "pods");
    await env.store("", "v1", "nodes").create("", { metadata: { name: "alive" } });
    for (const name of ["done-1", "done-2", "done-3"]) {
      const p = await pods.create("default", pod(name, "alive"));
      await pods.guaranteedUpdate(
        "default",
        p.metadata.name!,
        (cur) => {
          cur!.status = { phase: "Succeeded" };
          return cur;
        },
        {},
        { subresource: "status" },
      );
      await new Promise((r) => setTimeout(r, 1100)); // distinct creation seconds
    }
    await pods.create("default", pod("orphan", "vanished"));
    await pods.create("default", pod("running", "alive"));
    const unscheduled = await pods.create("default", {
      ...pod("unscheduled", ""),
      metadata: { name: "unscheduled", finalizers: ["example.com/hold"] },
    } as KubeObject);
    await pods.delete("default", unscheduled.metadata.name!);
    let t = Date.now();
    const gc = new PodGcController({
      registry: env.registry,
      feed: env.feed,
      terminatedPodThreshold: 2,
      periodMs: 3_600_000,
      now: () => t,
    });
    await gc.start();
    try {
      await gc.collect();
      assert.ok(await gone(pods, "default", "done-1"), "the oldest terminated pod goes");
      assert.ok(!(await gone(pods, "default", "done-2")));
      assert.ok(!(await gone(pods, "default", "orphan")), "quarantined for 40 s");
      t += 41_000;
      await gc.collect();
      assert.ok(await gone(pods, "default", "orphan"));
      assert.ok(!(await gone(pods, "default", "running")));
    } finally {
      await gc.stop();
    }
  });
});
