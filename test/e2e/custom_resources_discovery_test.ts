/**
 * End to end over HTTPS: a custom resource in legacy and aggregated discovery as soon as its
 * definition is established (versions in kube-aware order, shortNames, categories, verbs,
 * subresources, storageVersionHash), gone once the definition is deleted; served again after
 * a restart before the server reports ready; a schema change applying to the next write;
 * watch of instances.
 */
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.ts";
import { jsonCall } from "../support/json_call.ts";
import { startTestServer } from "../support/test_server.ts";
import { CRDS, createEstablished, cronTab, cronTabCrd, GROUP } from "./_crd_helpers.ts";

const AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

Deno.test("custom resources in legacy and aggregated discovery, dropped on delete", async () => {
  const t = await startTestServer();
  try {
    await createEstablished(t, cronTabCrd());
    const group = await jsonCall(t, "GET", `/apis/${GROUP}`);
    assert.equal(group.status, 200);
    // deno-lint-ignore no-explicit-any
    assert.deepEqual(group.json.versions.map((v: any) => v.version), ["v1", "v1beta1"]);
    assert.equal(group.json.preferredVersion.version, "v1");
    const groups = (await jsonCall(t, "GET", "/apis")).json.groups;
    // deno-lint-ignore no-explicit-any
    const names = groups.map((g: any) => g.name);
    // metrics.k8s.io keeps metrics-server's priority (100), below custom groups' 1000.
    assert.deepEqual(names.slice(-2), [GROUP, "metrics.k8s.io"], "custom groups come after kube's");
    const list = await jsonCall(t, "GET", `/apis/${GROUP}/v1`);
    // deno-lint-ignore no-explicit-any
    const byName = new Map(list.json.resources.map((r: any) => [r.name, r]));
    // deno-lint-ignore no-explicit-any
    const main = byName.get("crontabs") as any;
    assert.equal(main.singularName, "crontab");
    assert.equal(main.kind, "CronTab");
    assert.equal(main.namespaced, true);
    assert.deepEqual(main.shortNames, ["ct"]);
    assert.deepEqual(main.categories, ["all"]);
    assert.deepEqual(main.verbs, [
      "create",
      "delete",
      "deletecollection",
      "get",
      "list",
      "patch",
      "update",
      "watch",
    ]);
    assert.equal(typeof main.storageVersionHash, "string");
    // deno-lint-ignore no-explicit-any
    const scale = byName.get("crontabs/scale") as any;
    assert.deepEqual([scale.group, scale.version, scale.kind], ["autoscaling", "v1", "Scale"]);
    assert.ok(byName.has("crontabs/status"));
    const beta = await jsonCall(t, "GET", `/apis/${GROUP}/v1beta1`);
    // deno-lint-ignore no-explicit-any
    const betaMain = beta.json.resources.find((r: any) => r.name === "crontabs");
    assert.equal(betaMain.storageVersionHash, main.storageVersionHash);

    const agg = await jsonCall(t, "GET", "/apis", undefined, { accept: AGGREGATED });
    // deno-lint-ignore no-explicit-any
    const item = agg.json.items.find((i: any) => i.metadata.name === GROUP);
    // deno-lint-ignore no-explicit-any
    assert.deepEqual(item.versions.map((v: any) => v.version), ["v1", "v1beta1"]);
    const res = item.versions[0].resources[0];
    assert.equal(res.resource, "crontabs");
    assert.equal(res.scope, "Namespaced");
    assert.equal(res.singularResource, "crontab");
    assert.deepEqual(res.shortNames, ["ct"]);
    assert.deepEqual(res.categories, ["all"]);
    // deno-lint-ignore no-explicit-any
    assert.deepEqual(res.subresources.map((s: any) => s.subresource), ["status", "scale"]);

    await jsonCall(t, "DELETE", `${CRDS}/crontabs.${GROUP}`);
    await eventually("the group gone from discovery", async () => {
      return (await jsonCall(t, "GET", `/apis/${GROUP}`)).status === 404 || undefined;
    });
    const after = await jsonCall(t, "GET", "/apis", undefined, { accept: AGGREGATED });
    // deno-lint-ignore no-explicit-any
    assert.ok(!after.json.items.some((i: any) => i.metadata.name === GROUP));
  } finally {
    await t.close();
  }
});

Deno.test("established custom resources are served again after a restart, before ready", async () => {
  const dir = await Deno.makeTempDir({ prefix: "crd-restart-" });
  try {
    const first = await startTestServer([], { dir, keepDir: true });
    try {
      await createEstablished(first, cronTabCrd());
      const ns = `/apis/${GROUP}/v1/namespaces/default/crontabs`;
      assert.equal((await jsonCall(first, "POST", ns, cronTab("kept"))).status, 201);
    } finally {
      await first.close();
    }
    // startTestServer waits for ready: the resource must be served at once.
    const second = await startTestServer([], { dir, keepDir: true });
    try {
      const got = await jsonCall(
        second,
        "GET",
        `/apis/${GROUP}/v1/namespaces/default/crontabs/kept`,
      );
      assert.equal(got.status, 200, JSON.stringify(got.json));
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("a definition update (printer columns, shortNames) applies to the next request", async () => {
  const t = await startTestServer();
  try {
    const crd = await createEstablished(t, cronTabCrd());
    const ns = `/apis/${GROUP}/v1/namespaces/default/crontabs`;
    await jsonCall(t, "POST", ns, cronTab("u"));
    crd.spec.versions[0].additionalPrinterColumns = [
      { name: "Image", type: "string", jsonPath: ".spec.image" },
    ];
    crd.spec.names.shortNames = ["ct", "cts"];
    const put = await jsonCall(t, "PUT", `${CRDS}/crontabs.${GROUP}`, crd);
    assert.equal(put.status, 200, JSON.stringify(put.json));
    const table = "application/json;as=Table;v=v1;g=meta.k8s.io";
    await eventually("the new columns", async () => {
      const got = await jsonCall(t, "GET", ns, undefined, { accept: table });
      // deno-lint-ignore no-explicit-any
      const names = got.json.columnDefinitions.map((c: any) => c.name);
      return names.join(",") === "Name,Image" || undefined;
    });
    const list = await jsonCall(t, "GET", `/apis/${GROUP}/v1`);
    // deno-lint-ignore no-explicit-any
    const main = list.json.resources.find((r: any) => r.name === "crontabs");
    assert.deepEqual(main.shortNames, ["ct", "cts"]);
  } finally {
    await t.close();
  }
});

Deno.test("custom resources: watch sees added, modified and deleted instances", async () => {
  const t = await startTestServer();
  try {
    await createEstablished(t, cronTabCrd());
    const ns = `/apis/${GROUP}/v1/namespaces/default/crontabs`;
    const res = await t.fetch(`${ns}?watch=true`);
    assert.equal(res.status, 200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    await jsonCall(t, "POST", ns, cronTab("w"));
    await jsonCall(t, "PATCH", `${ns}/w`, { spec: { image: "x" } }, {
      "content-type": "application/merge-patch+json",
    });
    await jsonCall(t, "DELETE", `${ns}/w`);
    const types: string[] = [];
    let buf = "";
    while (types.length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const ev = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        types.push(ev.type);
        assert.equal(ev.object.kind, "CronTab");
      }
    }
    await reader.cancel();
    assert.deepEqual(types, ["ADDED", "MODIFIED", "DELETED"]);
  } finally {
    await t.close();
  }
});
