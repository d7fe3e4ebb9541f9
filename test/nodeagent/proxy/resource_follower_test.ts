import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { followResource } from "../../../nodeagent/proxy/resource_follower.ts";
import { startTestServer } from "../../support/test_server.ts";
import { eventually } from "../../support/eventually.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };

Deno.test("followResource() lists, then follows additions, updates and deletions in every namespace", async () => {
  const ts = await startTestServer();
  const stop = new AbortController();
  let seen: KubeObject[] = [];
  const names = () => seen.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
  try {
    await ts.client.create({ ...CONFIGMAPS, namespace: "default" }, {
      metadata: { name: "before", namespace: "default" },
    } as KubeObject);
    const following = followResource({
      client: ts.client,
      ref: CONFIGMAPS,
      signal: stop.signal,
      onChange: (objects) => seen = objects,
    });
    await eventually("the list", () => names().includes("default/before"));
    await ts.client.create({ ...CONFIGMAPS, namespace: "kube-system" }, {
      metadata: { name: "after", namespace: "kube-system" },
      data: { a: "1" },
    } as KubeObject);
    await eventually("the addition", () => names().includes("kube-system/after"));
    await ts.client.update({ ...CONFIGMAPS, namespace: "kube-system", name: "after" }, {
      metadata: { name: "after", namespace: "kube-system" },
      data: { a: "2" },
    } as KubeObject);
    await eventually(
      "the update",
      () => seen.some((o) => o.metadata.name === "after" && (o.data as { a: string }).a === "2"),
    );
    await ts.client.delete({ ...CONFIGMAPS, namespace: "default", name: "before" });
    await eventually("the deletion", () => !names().includes("default/before"));
    stop.abort();
    await following;
    assert.ok(names().includes("kube-system/after"));
  } finally {
    stop.abort();
    await ts.close();
  }
});
