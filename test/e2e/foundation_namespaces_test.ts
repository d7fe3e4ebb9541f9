/**
 * End-to-end: namespace lifecycle (system namespaces, missing and terminating namespaces,
 * deletion of contents then the namespace), Secret data handling and name validation per kind.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
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
import { eventually } from "../support/eventually.ts";

Deno.test("namespace lifecycle", async (t) => {
  const s = await startTestServer();
  try {
    await t.step("the system namespaces exist and are Active", async () => {
      for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
        const ns = assertOk(await call(s, "GET", `/api/v1/namespaces/${name}`), 200);
        assert.deepEqual(ns.spec, { finalizers: ["kubernetes"] });
        assert.deepEqual(ns.status, { phase: "Active" });
      }
    });
    await t.step("system namespaces cannot be deleted", async () => {
      for (const name of ["default", "kube-system", "kube-public"]) {
        const st = assertStatus(await call(s, "DELETE", `/api/v1/namespaces/${name}`), 403);
        assert.equal(st.reason, "Forbidden");
        assert.equal(st.details?.name, name);
        assertOk(await call(s, "GET", `/api/v1/namespaces/${name}`), 200);
      }
    });
    await t.step("create in a missing namespace is 404", async () => {
      const st = assertStatus(
        await call(s, "POST", "/api/v1/namespaces/nowhere/configmaps", { metadata: { name: "a" } }),
        404,
        "NotFound",
      );
      assert.equal(st.details?.kind, "namespaces");
      assert.equal(st.details?.name, "nowhere");
      assert.equal(st.message, 'namespaces "nowhere" not found');
    });
    await t.step("create in a terminating namespace is 403; it goes when emptied", async () => {
      await createNamespace(s, "term");
      await createConfigMap(s, "term", "held", { metadata: { finalizers: ["example.com/hold"] } });
      const del = assertOk(await call(s, "DELETE", "/api/v1/namespaces/term"), 200);
      assert.ok(del.metadata.deletionTimestamp);
      assert.equal((del.status as { phase: string }).phase, "Terminating");
      const st = assertStatus(
        await call(s, "POST", "/api/v1/namespaces/term/configmaps", { metadata: { name: "new" } }),
        403,
        "Forbidden",
      );
      assert.match(
        st.message!,
        /unable to create new content in namespace term because it is being terminated/,
      );
      // The controller deletes the content; the finalizer holds the ConfigMap and the namespace.
      await eventually("the ConfigMap to be marked deleted", async () => {
        const cm = await call(s, "GET", "/api/v1/namespaces/term/configmaps/held");
        return cm.status === 200 && !!cm.body.metadata.deletionTimestamp;
      });
      assertOk(await call(s, "GET", "/api/v1/namespaces/term"), 200);
      const cm = assertOk(await call(s, "GET", "/api/v1/namespaces/term/configmaps/held"));
      cm.metadata.finalizers = [];
      assertOk(await call(s, "PUT", "/api/v1/namespaces/term/configmaps/held", cm), 200);
      await eventually("namespace term to go", async () => {
        return (await call(s, "GET", "/api/v1/namespaces/term")).status === 404;
      });
    });
    await t.step("deleting a namespace removes every object in it, then itself", async () => {
      await createNamespace(s, "doomed");
      await createNamespace(s, "survivor");
      const paths = [
        "/api/v1/namespaces/doomed/configmaps",
        "/api/v1/namespaces/doomed/secrets",
        "/api/v1/namespaces/doomed/serviceaccounts",
        "/api/v1/namespaces/doomed/events",
        "/apis/coordination.k8s.io/v1/namespaces/doomed/leases",
      ];
      for (const p of paths) {
        const extra = p.endsWith("/events")
          ? { involvedObject: { kind: "ConfigMap", name: "x", namespace: "doomed" } }
          : {};
        assertOk(await call(s, "POST", p, { metadata: { name: "x" }, ...extra }), 201);
      }
      assertOk(
        await call(s, "POST", "/api/v1/namespaces/doomed/pods", {
          metadata: { name: "p" },
          spec: { containers: [{ name: "c", image: "busybox" }] },
        }),
        201,
      );
      await createConfigMap(s, "survivor", "x");
      assertOk(await call(s, "DELETE", "/api/v1/namespaces/doomed"), 200);
      await eventually("namespace doomed to go", async () => {
        return (await call(s, "GET", "/api/v1/namespaces/doomed")).status === 404;
      });
      for (const p of [...paths, "/api/v1/namespaces/doomed/pods"]) {
        assert.deepEqual(assertOk(await list(s, p), 200).items, [], p);
      }
      assertOk(await call(s, "GET", "/api/v1/namespaces/survivor/configmaps/x"), 200);
      // The name can be used again.
      await createNamespace(s, "doomed");
    });
    await t.step("a namespace cannot lose its finalizer through a plain update", async () => {
      const ns = assertOk(await call(s, "GET", "/api/v1/namespaces/survivor"));
      ns.spec = { finalizers: [] };
      const r = assertOk(await call(s, "PUT", "/api/v1/namespaces/survivor", ns), 200);
      assert.deepEqual(r.spec, { finalizers: ["kubernetes"] });
    });
  } finally {
    await s.close();
  }
});

Deno.test("Secret data, stringData and type", async (t) => {
  const s = await startTestServer();
  try {
    await createNamespace(s, "sec");
    const base = "/api/v1/namespaces/sec/secrets";
    let secret!: KubeObject;
    await t.step("stringData merges into data as base64 and is never returned", async () => {
      secret = assertOk(
        await call(s, "POST", base, {
          metadata: { name: "s" },
          data: { a: btoa("from-data"), b: btoa("kept") },
          stringData: { a: "from-stringData", c: "ünïcode" },
        }),
        201,
      );
      assert.equal(secret.type, "Opaque");
      assert.equal(secret.stringData, undefined);
      const data = secret.data as Record<string, string>;
      assert.equal(atob(data.a), "from-stringData");
      assert.equal(atob(data.b), "kept");
      assert.equal(
        new TextDecoder().decode(Uint8Array.from(atob(data.c), (c) => c.charCodeAt(0))),
        "ünïcode",
      );
      const got = assertOk(await call(s, "GET", `${base}/s`), 200);
      assert.deepEqual(got.data, secret.data);
      assert.equal(got.stringData, undefined);
    });
    await t.step("stringData on update", async () => {
      const body = structuredClone(secret);
      body.stringData = { d: "new" };
      const r = assertOk(await call(s, "PUT", `${base}/s`, body), 200);
      assert.equal(atob((r.data as Record<string, string>).d), "new");
      assert.equal(r.stringData, undefined);
      secret = r;
    });
    await t.step("type is immutable", async () => {
      const body = structuredClone(secret);
      body.type = "kubernetes.io/tls";
      const st = assertStatus(await call(s, "PUT", `${base}/s`, body), 422, "Invalid");
      assert.equal(st.details?.causes?.[0].field, "type");
      assert.match(st.message!, /field is immutable/);
    });
    await t.step("other types are kept; illegal base64 is 422", async () => {
      const r = assertOk(
        await call(s, "POST", base, { metadata: { name: "t" }, type: "example.com/custom" }),
        201,
      );
      assert.equal(r.type, "example.com/custom");
      const st = assertStatus(
        await call(s, "POST", base, { metadata: { name: "u" }, data: { a: "not base64!" } }),
        422,
        "Invalid",
      );
      assert.equal(st.details?.causes?.[0].field, "data[a]");
      assert.doesNotMatch(st.message!, /not base64!/, "secret values are not echoed");
    });
    await t.step("field selector on type", async () => {
      const l = assertOk(await list(s, `${base}?fieldSelector=type%3DOpaque`), 200);
      assert.deepEqual(names(l), ["s"]);
    });
  } finally {
    await s.close();
  }
});

Deno.test("names are validated per kind", async (t) => {
  const s = await startTestServer();
  try {
    await createNamespace(s, "names");
    const long = (n: number) => "a".repeat(n);
    const cases: [string, string, string, number][] = [
      // [collection, name, why, expected status]
      ["/api/v1/namespaces", "ok-name", "label", 201],
      ["/api/v1/namespaces", "has.dot", "namespaces are DNS-1123 labels", 422],
      ["/api/v1/namespaces", long(64), "labels are at most 63", 422],
      ["/api/v1/namespaces", "Upper", "lower case only", 422],
      ["/api/v1/namespaces/names/configmaps", "has.dot", "subdomain", 201],
      ["/api/v1/namespaces/names/configmaps", long(253), "subdomain up to 253", 201],
      ["/api/v1/namespaces/names/configmaps", long(254), "subdomain at most 253", 422],
      ["/api/v1/namespaces/names/configmaps", "bad_name", "no underscores", 422],
      ["/api/v1/namespaces/names/configmaps", "-lead", "alphanumeric start", 422],
      ["/api/v1/namespaces/names/secrets", "a.b-c", "subdomain", 201],
      ["/api/v1/nodes", "node.example.com", "subdomain", 201],
      ["/api/v1/nodes", "Node", "lower case", 422],
    ];
    for (const [path, name, why, code] of cases) {
      await t.step(
        `${path} ${name.length > 20 ? `${name.length} chars` : name}: ${code} (${why})`,
        async () => {
          const r = await call(s, "POST", path, { metadata: { name } });
          if (code === 201) assertOk(r, 201);
          else {
            const st = assertStatus(r, 422, "Invalid");
            assert.equal(st.details?.causes?.[0].field, "metadata.name");
          }
        },
      );
    }
    await t.step("a missing name is 422", async () => {
      const st = assertStatus(
        await call(s, "POST", "/api/v1/namespaces/names/configmaps", { metadata: {} }),
        422,
        "Invalid",
      );
      assert.match(st.message!, /metadata.name: Required value: name or generateName is required/);
    });
    await t.step("an invalid generateName is 422", async () => {
      const st = assertStatus(
        await call(s, "POST", "/api/v1/namespaces/names/configmaps", {
          metadata: { generateName: "Bad_" },
        }),
        422,
        "Invalid",
      );
      assert.equal(st.details?.causes?.[0].field, "metadata.generateName");
    });
  } finally {
    await s.close();
  }
});
