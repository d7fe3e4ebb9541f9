/**
 * End-to-end: label selectors (every operator), field selectors (metadata and per-kind fields,
 * unsupported labels) and Kubernetes' boolean query parsing.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import {
  assertOk,
  assertStatus,
  call,
  createConfigMap,
  createNamespace,
  list,
  names,
} from "./foundation_helpers.ts";

Deno.test("list filters by label and field selectors", async (t) => {
  const s = await startTestServer();
  try {
    await createNamespace(s, "sel");
    await createNamespace(s, "other");
    await createConfigMap(s, "sel", "a", { metadata: { labels: { env: "prod", tier: "web" } } });
    await createConfigMap(s, "sel", "b", { metadata: { labels: { env: "dev", tier: "db" } } });
    await createConfigMap(s, "sel", "c", { metadata: { labels: { env: "test" } } });
    await createConfigMap(s, "sel", "d");
    await createConfigMap(s, "other", "a", { metadata: { labels: { env: "prod" } } });
    const cms = "/api/v1/namespaces/sel/configmaps";

    const labelCases: [string, string[]][] = [
      ["env=prod", ["a"]],
      ["env==prod", ["a"]],
      ["env!=prod", ["b", "c", "d"]],
      ["env in (prod,dev)", ["a", "b"]],
      ["env notin (prod,dev)", ["c", "d"]],
      ["tier", ["a", "b"]],
      ["!tier", ["c", "d"]],
      ["env=prod,tier=web", ["a"]],
      ["env,!tier", ["c"]],
      ["", ["a", "b", "c", "d"]],
    ];
    for (const [selector, want] of labelCases) {
      await t.step(`labelSelector ${JSON.stringify(selector)}`, async () => {
        const l = assertOk(
          await list(s, `${cms}?labelSelector=${encodeURIComponent(selector)}`),
          200,
        );
        assert.deepEqual(names(l), want);
      });
    }
    await t.step("a malformed label selector is 400", async () => {
      for (const bad of ["env in (prod", "=x", "env===a", "a b"]) {
        assertStatus(
          await list(s, `${cms}?labelSelector=${encodeURIComponent(bad)}`),
          400,
          "BadRequest",
        );
      }
    });
    await t.step("labelSelector across all namespaces", async () => {
      const l = assertOk(await list(s, `/api/v1/configmaps?labelSelector=env%3Dprod`), 200);
      assert.deepEqual(
        l.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`),
        ["other/a", "sel/a"],
      );
    });

    const fieldCases: [string, string, string[]][] = [
      [cms, "metadata.name=b", ["b"]],
      [cms, "metadata.name==b", ["b"]],
      [cms, "metadata.name!=b", ["a", "c", "d"]],
      ["/api/v1/configmaps", "metadata.namespace=other", ["a"]],
      ["/api/v1/configmaps", "metadata.namespace!=other,metadata.name=a", ["a"]],
      ["/api/v1/namespaces", "metadata.name=sel", ["sel"]],
    ];
    for (const [path, selector, want] of fieldCases) {
      await t.step(`fieldSelector ${selector} on ${path}`, async () => {
        const l = assertOk(
          await list(s, `${path}?fieldSelector=${encodeURIComponent(selector)}`),
          200,
        );
        assert.deepEqual(names(l), want);
      });
    }
    await t.step("fieldSelector spec.nodeName on pods", async () => {
      for (const [name, node] of [["p1", "n1"], ["p2", "n2"], ["p3", ""]]) {
        const spec: Record<string, unknown> = { containers: [{ name: "c", image: "busybox" }] };
        if (node) spec.nodeName = node;
        assertOk(
          await call(s, "POST", "/api/v1/namespaces/sel/pods", { metadata: { name }, spec }),
          201,
        );
      }
      const pods = "/api/v1/namespaces/sel/pods";
      assert.deepEqual(
        names(assertOk(await list(s, `${pods}?fieldSelector=spec.nodeName%3Dn1`))),
        ["p1"],
      );
      assert.deepEqual(
        names(assertOk(await list(s, `/api/v1/pods?fieldSelector=spec.nodeName%3D`))),
        ["p3"],
      );
      assert.deepEqual(
        names(assertOk(await list(s, `${pods}?fieldSelector=spec.nodeName!%3Dn1`))),
        ["p2", "p3"],
      );
    });
    await t.step("an unsupported field label is 400", async () => {
      const cases: [string, string, RegExp][] = [
        [cms, "spec.nodeName=x", /"spec.nodeName" is not a known field selector/],
        [cms, "data.x=1", /"data.x" is not a known field selector/],
        ["/api/v1/pods", "spec.image=x", /field label not supported: spec.image/],
      ];
      for (const [path, sel, message] of cases) {
        const st = assertStatus(
          await list(s, `${path}?fieldSelector=${encodeURIComponent(sel)}`),
          400,
          "BadRequest",
        );
        assert.match(st.message!, message);
      }
    });
    await t.step("a malformed field selector is 400", async () => {
      assertStatus(await list(s, `${cms}?fieldSelector=${encodeURIComponent("nonsense")}`), 400);
    });
    await t.step("selectors with paging still page through every match", async () => {
      const first = assertOk(await list(s, `${cms}?labelSelector=env&limit=1`), 200);
      assert.deepEqual(names(first), ["a"]);
      assert.equal(first.metadata.remainingItemCount, undefined);
      const rest = assertOk(
        await list(
          s,
          `${cms}?labelSelector=env&limit=5&continue=${
            encodeURIComponent(first.metadata.continue!)
          }`,
        ),
      );
      assert.deepEqual(names(rest), ["b", "c"]);
    });
    await t.step("deletecollection honours the selectors", async () => {
      assertOk(await call(s, "DELETE", `${cms}?labelSelector=env%20in%20(dev,test)`), 200);
      assert.deepEqual(names(assertOk(await list(s, cms))), ["a", "d"]);
    });
  } finally {
    await s.close();
  }
});

Deno.test("boolean query values parse as Kubernetes parses them", async (t) => {
  const s = await startTestServer();
  try {
    // dryRun is not boolean; orphanDependents is: every true form orphans (adds the finalizer).
    await createNamespace(s, "bools");
    for (const [i, q] of ["true", "True", "1", ""].entries()) {
      await t.step(`orphanDependents=${JSON.stringify(q)} is true`, async () => {
        const name = `t${i}`;
        await createConfigMap(s, "bools", name, { metadata: { finalizers: ["example.com/x"] } });
        const path = `/api/v1/namespaces/bools/configmaps/${name}?orphanDependents` +
          (q === "" ? "" : `=${q}`);
        const deleted = assertOk(await call(s, "DELETE", path), 200);
        assert.ok(deleted.metadata.deletionTimestamp);
        assert.ok(deleted.metadata.finalizers?.includes("orphan"), JSON.stringify(deleted));
      });
    }
    for (const [i, q] of ["false", "False", "0"].entries()) {
      await t.step(`orphanDependents=${q} is false`, async () => {
        const name = `f${i}`;
        await createConfigMap(s, "bools", name, { metadata: { finalizers: ["example.com/x"] } });
        const deleted = assertOk(
          await call(
            s,
            "DELETE",
            `/api/v1/namespaces/bools/configmaps/${name}?orphanDependents=${q}`,
          ),
          200,
        );
        assert.deepEqual(deleted.metadata.finalizers, ["example.com/x"]);
      });
    }
    await t.step("watch=false is a list; watch=0 is a list", async () => {
      for (const q of ["watch=false", "watch=0", "watch=False"]) {
        const l = assertOk(await list(s, `/api/v1/namespaces?${q}`), 200);
        assert.equal(l.kind, "NamespaceList");
      }
    });
  } finally {
    await s.close();
  }
});
