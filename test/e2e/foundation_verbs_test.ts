/**
 * End-to-end: every verb on every built-in kind and path shape (core and named group,
 * namespaced and cluster scope, all-namespaces list, status subresource, HEAD), server-set
 * metadata, conflicts, create-on-update, finalizers, preconditions, propagationPolicy,
 * gracePeriodSeconds and deletecollection.
 */
import assert from "node:assert/strict";
import type { KubeList, KubeObject, Status } from "../../shared/api/meta/v1/types.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
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

const NS = "verbs";

interface KindCase {
  resource: string;
  apiVersion: string;
  kind: string;
  /** The collection path (namespaced kinds in NS). */
  collection: string;
  /** The all-namespaces collection, for namespaced kinds. */
  allNamespaces?: string;
  body(): Record<string, unknown>;
  /** Changes something outside metadata and status. */
  mutate(o: KubeObject): void;
  /** Two valid, different status values (subresource kinds only). */
  status?: [Record<string, unknown>, Record<string, unknown>];
  createOnUpdate: boolean;
  deleteCollection: boolean;
}

const core = (r: string) => `/api/v1/namespaces/${NS}/${r}`;

const KINDS: KindCase[] = [
  {
    resource: "configmaps",
    apiVersion: "v1",
    kind: "ConfigMap",
    collection: core("configmaps"),
    allNamespaces: "/api/v1/configmaps",
    body: () => ({ data: { a: "1" } }),
    mutate: (o) => o.data = { a: "2" },
    createOnUpdate: false,
    deleteCollection: true,
  },
  {
    resource: "events",
    apiVersion: "v1",
    kind: "Event",
    collection: core("events"),
    allNamespaces: "/api/v1/events",
    body: () => ({
      involvedObject: { kind: "ConfigMap", name: "x", namespace: NS },
      reason: "Test",
      message: "first",
      type: "Normal",
    }),
    mutate: (o) => o.message = "second",
    createOnUpdate: true,
    deleteCollection: true,
  },
  {
    resource: "namespaces",
    apiVersion: "v1",
    kind: "Namespace",
    collection: "/api/v1/namespaces",
    body: () => ({}),
    // spec.finalizers change only through the finalize subresource: change labels instead.
    mutate: (o) => o.metadata.labels = { mutated: "yes" },
    status: [{
      phase: "Active",
      conditions: [{ type: "NamespaceDeletionContentFailure", status: "False" }],
    }, { phase: "Active" }],
    createOnUpdate: false,
    deleteCollection: false,
  },
  {
    resource: "nodes",
    apiVersion: "v1",
    kind: "Node",
    collection: "/api/v1/nodes",
    body: () => ({ spec: {} }),
    mutate: (o) => o.spec = { unschedulable: true },
    status: [{ addresses: [{ type: "Hostname", address: "node-one" }] }, {}],
    createOnUpdate: false,
    deleteCollection: true,
  },
  {
    resource: "pods",
    apiVersion: "v1",
    kind: "Pod",
    collection: core("pods"),
    allNamespaces: "/api/v1/pods",
    body: () => ({
      spec: {
        containers: [{
          name: "c",
          image: "busybox:1",
          command: ["sh"],
          args: ["-c", "true"],
          env: [{ name: "A", value: "b" }],
        }],
      },
    }),
    mutate: (o) => {
      const spec = o.spec as { containers: { image: string }[] };
      spec.containers[0].image = "busybox:2";
    },
    status: [{ phase: "Running" }, { phase: "Failed" }],
    createOnUpdate: false,
    deleteCollection: true,
  },
  {
    resource: "secrets",
    apiVersion: "v1",
    kind: "Secret",
    collection: core("secrets"),
    allNamespaces: "/api/v1/secrets",
    body: () => ({ data: { a: btoa("x") } }),
    mutate: (o) => o.data = { a: btoa("y") },
    createOnUpdate: false,
    deleteCollection: true,
  },
  {
    resource: "serviceaccounts",
    apiVersion: "v1",
    kind: "ServiceAccount",
    collection: core("serviceaccounts"),
    allNamespaces: "/api/v1/serviceaccounts",
    body: () => ({}),
    mutate: (o) => o.automountServiceAccountToken = false,
    createOnUpdate: false,
    deleteCollection: true,
  },
  {
    resource: "leases",
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    collection: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
    allNamespaces: "/apis/coordination.k8s.io/v1/leases",
    body: () => ({ spec: { holderIdentity: "a", leaseDurationSeconds: 10 } }),
    mutate: (o) => o.spec = { holderIdentity: "b", leaseDurationSeconds: 10 },
    createOnUpdate: true,
    deleteCollection: true,
  },
];

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function exerciseKind(s: TestServer, k: KindCase, step: Deno.TestContext) {
  const name = `${k.resource.slice(0, -1)}-one`;
  const item = `${k.collection}/${name}`;
  let created!: KubeObject;
  await step.step("create answers 201 with server-set metadata", async () => {
    created = assertOk(
      await call(s, "POST", k.collection, {
        apiVersion: k.apiVersion,
        kind: k.kind,
        // Client-set system fields are ignored.
        metadata: { name, uid: "client-uid", resourceVersion: "5", generation: 9 },
        ...k.body(),
      }),
      201,
    );
    assert.equal(created.kind, k.kind);
    assert.equal(created.apiVersion, k.apiVersion);
    assert.equal(created.metadata.name, name);
    assert.match(created.metadata.uid!, UUID);
    assert.match(created.metadata.creationTimestamp!, RFC3339);
    assert.match(created.metadata.resourceVersion!, /^[1-9][0-9]*$/);
    assert.equal(created.metadata.generation, 1);
    if (k.allNamespaces) assert.equal(created.metadata.namespace, NS);
    else assert.equal(created.metadata.namespace, undefined);
  });
  await step.step("create of an existing name is 409 AlreadyExists", async () => {
    const st = assertStatus(
      await call(s, "POST", k.collection, { metadata: { name }, ...k.body() }),
      409,
      "AlreadyExists",
    );
    assert.equal(st.details?.name, name);
    assert.equal(st.details?.kind, k.resource);
  });
  await step.step("generateName picks a unique name", async () => {
    const a = assertOk(
      await call(s, "POST", k.collection, { metadata: { generateName: "gen-" }, ...k.body() }),
      201,
    );
    assert.match(a.metadata.name!, /^gen-[a-z0-9]{5}$/);
    assert.equal(a.metadata.generateName, "gen-");
    assertOk(await call(s, "DELETE", `${k.collection}/${a.metadata.name}`), 200);
  });
  await step.step("get and HEAD", async () => {
    const got = assertOk(await call(s, "GET", item), 200);
    assert.deepEqual(got, created);
    const head = await s.fetch(item, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "application/json");
    assert.equal(await head.text(), "");
    const missing = await s.fetch(`${k.collection}/missing`, { method: "HEAD" });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  });
  await step.step("list (and all namespaces)", async () => {
    const l = assertOk(await list(s, k.collection), 200);
    assert.equal(l.kind, `${k.kind}List`);
    assert.equal(l.apiVersion, k.apiVersion);
    assert.ok(names(l).includes(name));
    for (const i of l.items) {
      assert.equal(i.kind, k.kind);
      assert.equal(i.apiVersion, k.apiVersion);
    }
    if (k.allNamespaces) {
      const all = assertOk(await list(s, k.allNamespaces), 200);
      assert.ok(all.items.some((i) => i.metadata.name === name && i.metadata.namespace === NS));
    }
  });
  let updated!: KubeObject;
  await step.step("update bumps resourceVersion, keeps uid and creationTimestamp", async () => {
    const body = structuredClone(created);
    k.mutate(body);
    updated = assertOk(await call(s, "PUT", item, body), 200);
    assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(updated.metadata.uid, created.metadata.uid);
    assert.equal(updated.metadata.creationTimestamp, created.metadata.creationTimestamp);
    if (k.resource !== "namespaces") assert.equal(updated.metadata.generation, 2);
  });
  await step.step("update with a stale resourceVersion is 409 Conflict", async () => {
    const stale = structuredClone(created);
    k.mutate(stale);
    stale.metadata.labels = { stale: "yes" };
    const st = assertStatus(await call(s, "PUT", item, stale), 409, "Conflict");
    assert.match(st.message!, /the object has been modified/);
  });
  await step.step("update without a resourceVersion is unconditional", async () => {
    const body = structuredClone(updated);
    delete body.metadata.resourceVersion;
    body.metadata.labels = { unconditional: "yes" };
    const r = assertOk(await call(s, "PUT", item, body), 200);
    assert.equal(r.metadata.labels?.unconditional, "yes");
    updated = r;
  });
  await step.step(`PUT to a missing object: ${k.createOnUpdate ? "201" : "404"}`, async () => {
    const r = await call(s, "PUT", `${k.collection}/made-by-put`, {
      metadata: { name: "made-by-put" },
      ...k.body(),
    });
    if (k.createOnUpdate) {
      assert.equal(assertOk(r, 201).metadata.name, "made-by-put");
      assert.equal(r.body.metadata.generation, 1);
      assertOk(await call(s, "DELETE", `${k.collection}/made-by-put`), 200);
    } else assertStatus(r, 404, "NotFound");
  });
  if (k.status) {
    await step.step("status subresource: get, and PUT changes only status", async () => {
      const got = assertOk(await call(s, "GET", `${item}/status`), 200);
      assert.equal(got.metadata.uid, created.metadata.uid);
      const [wanted, ignored] = k.status!;
      const body = structuredClone(got);
      body.status = wanted;
      body.metadata.labels = { via: "status" };
      const r = assertOk(await call(s, "PUT", `${item}/status`, body), 200);
      assert.deepEqual(r.status, wanted);
      assert.deepEqual(r.metadata.labels, updated.metadata.labels, "labels unchanged via status");
      // The main resource ignores status.
      const main = structuredClone(r);
      main.status = ignored;
      main.metadata.labels = { via: "main" };
      const m = assertOk(await call(s, "PUT", item, main), 200);
      assert.deepEqual(m.status, wanted);
      // Namespaces also always carry kubernetes.io/metadata.name, as in Kubernetes.
      const own: Record<string, string> = { ...(m.metadata.labels ?? {}) };
      delete own["kubernetes.io/metadata.name"];
      assert.deepEqual(own, { via: "main" });
      // Status on a missing object is 404; POST to status is 405.
      assertStatus(await call(s, "GET", `${k.collection}/missing/status`), 404, "NotFound");
      assertStatus(await call(s, "POST", `${item}/status`, body), 405, "MethodNotAllowed");
    });
  }
  await step.step("delete answers the object or kube's Success Status; then 404", async () => {
    const r = assertOk(await call<KubeObject | Status>(s, "DELETE", item), 200);
    if (r.kind === "Status") {
      assert.equal((r as Status).status, "Success");
      assert.equal((r as Status).details?.name, name);
      assert.equal((r as Status).details?.kind, k.resource);
    } else assert.equal((r as KubeObject).metadata.name, name);
    if (k.resource === "namespaces") {
      assert.ok((r as KubeObject).metadata.deletionTimestamp);
      await eventually(
        "namespace removal",
        async () => (await call(s, "GET", item)).status === 404,
      );
    } else {
      assertStatus(await call(s, "GET", item), 404, "NotFound");
    }
    const again = assertStatus(await call(s, "DELETE", item), 404, "NotFound");
    assert.equal(again.details?.name, name);
  });
  await step.step(
    `deletecollection ${k.deleteCollection ? "removes the selection" : "is 405"}`,
    async () => {
      if (!k.deleteCollection) {
        assertStatus(await call(s, "DELETE", k.collection), 405, "MethodNotAllowed");
        return;
      }
      for (const n of ["dc-a", "dc-b"]) {
        assertOk(
          await call(s, "POST", k.collection, {
            metadata: { name: n, labels: { dc: "yes" } },
            ...k.body(),
          }),
          201,
        );
      }
      const r = await call<KubeList>(s, "DELETE", `${k.collection}?labelSelector=dc%3Dyes`);
      assert.equal(r.status, 200, r.text);
      // kube-apiserver answers the list of the deleted objects.
      assert.equal(r.body.kind, `${k.kind}List`);
      assert.deepEqual(r.body.items.map((i) => i.metadata.name).sort(), ["dc-a", "dc-b"]);
      const left = assertOk(await list(s, `${k.collection}?labelSelector=dc%3Dyes`), 200);
      assert.deepEqual(left.items, []);
    },
  );
}

Deno.test("every built-in kind serves every verb on every path shape", async (t) => {
  // The pods here must stay as written: no scheduler binds them meanwhile.
  const s = await startTestServer(["--disable-scheduler"]);
  try {
    await createNamespace(s, NS);
    for (const k of KINDS) {
      await t.step(k.resource, (step) => exerciseKind(s, k, step));
    }
  } finally {
    await s.close();
  }
});

Deno.test("delete honours finalizers, preconditions, propagation and grace", async (t) => {
  const s = await startTestServer();
  try {
    await createNamespace(s, NS);
    const cms = core("configmaps");
    await t.step("finalizers keep the object until an update removes the last", async () => {
      await createConfigMap(s, NS, "fin", { metadata: { finalizers: ["a.example/x", "b/y"] } });
      const del = assertOk(await call(s, "DELETE", `${cms}/fin`), 200);
      assert.ok(del.metadata.deletionTimestamp);
      assert.equal(del.metadata.deletionGracePeriodSeconds, 0);
      const still = assertOk(await call(s, "GET", `${cms}/fin`), 200);
      assert.equal(still.metadata.deletionTimestamp, del.metadata.deletionTimestamp);
      // A second delete changes nothing.
      const again = assertOk(await call(s, "DELETE", `${cms}/fin`), 200);
      assert.equal(again.metadata.resourceVersion, still.metadata.resourceVersion);
      // Creating the same name meanwhile is a conflict.
      assertStatus(await call(s, "POST", cms, { metadata: { name: "fin" } }), 409);
      // Removing one finalizer keeps it; deletionTimestamp cannot be cleared by an update.
      const one = structuredClone(still);
      one.metadata.finalizers = ["b/y"];
      delete one.metadata.deletionTimestamp;
      const kept = assertOk(await call(s, "PUT", `${cms}/fin`, one), 200);
      assert.equal(kept.metadata.deletionTimestamp, del.metadata.deletionTimestamp);
      const last = structuredClone(kept);
      last.metadata.finalizers = [];
      assertOk(await call(s, "PUT", `${cms}/fin`, last), 200);
      assertStatus(await call(s, "GET", `${cms}/fin`), 404);
    });
    await t.step("preconditions: uid and resourceVersion mismatches are 409", async () => {
      const cm = await createConfigMap(s, NS, "pre");
      const uid = await call(s, "DELETE", `${cms}/pre`, {
        kind: "DeleteOptions",
        apiVersion: "v1",
        preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
      });
      assert.match(assertStatus(uid, 409, "Conflict").message!, /UID in the precondition/);
      const rv = await call(s, "DELETE", `${cms}/pre`, {
        preconditions: { resourceVersion: "1" },
      });
      assert.match(
        assertStatus(rv, 409, "Conflict").message!,
        /ResourceVersion in the precondition/,
      );
      assertOk(
        await call(s, "DELETE", `${cms}/pre`, {
          preconditions: { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion },
        }),
        200,
      );
    });
    await t.step("propagationPolicy is validated (422) in body and query", async () => {
      await createConfigMap(s, NS, "prop");
      for (
        const r of [
          await call(s, "DELETE", `${cms}/prop`, { propagationPolicy: "Sideways" }),
          await call(s, "DELETE", `${cms}/prop?propagationPolicy=Sideways`),
          await call(s, "DELETE", `${cms}/prop`, {
            propagationPolicy: "Orphan",
            orphanDependents: true,
          }),
        ]
      ) {
        const st = assertStatus(r, 422, "Invalid");
        assert.equal(st.details?.kind, "DeleteOptions");
        assert.equal(st.details?.causes?.[0].field, "propagationPolicy");
      }
      for (const policy of ["Background", "Foreground", "Orphan"]) {
        const name = `prop-${policy.toLowerCase()}`;
        await createConfigMap(s, NS, name);
        const r = assertOk(await call(s, "DELETE", `${cms}/${name}?propagationPolicy=${policy}`));
        if (policy === "Background") assert.equal(r.metadata.deletionTimestamp, undefined);
        if (policy === "Foreground") {
          assert.ok(r.metadata.finalizers?.includes("foregroundDeletion"));
        }
        if (policy === "Orphan") assert.ok(r.metadata.finalizers?.includes("orphan"));
      }
    });
    await t.step("gracePeriodSeconds: a bound pod waits; 0 deletes at once", async () => {
      const pods = core("pods");
      assertOk(
        await call(s, "POST", pods, {
          metadata: { name: "bound" },
          spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox" }] },
        }),
        201,
      );
      const graceful = assertOk(await call(s, "DELETE", `${pods}/bound`), 200);
      assert.equal(graceful.metadata.deletionGracePeriodSeconds, 30);
      assert.ok(graceful.metadata.deletionTimestamp);
      const shorter = assertOk(
        await call(s, "DELETE", `${pods}/bound`, { gracePeriodSeconds: 0 }),
        200,
      );
      assert.equal(shorter.metadata.name, "bound");
      assertStatus(await call(s, "GET", `${pods}/bound`), 404);
      // An unbound pod goes at once whatever the grace period.
      assertOk(
        await call(s, "POST", pods, {
          metadata: { name: "unbound" },
          spec: { containers: [{ name: "c", image: "busybox" }] },
        }),
        201,
      );
      assertOk(await call(s, "DELETE", `${pods}/unbound?gracePeriodSeconds=30`), 200);
      assertStatus(await call(s, "GET", `${pods}/unbound`), 404);
    });
    await t.step("gracePeriodSeconds on kinds without graceful deletion is ignored", async () => {
      for (const g of ["1", "30", "-1"]) {
        await createConfigMap(s, NS, `grace${g}`);
        assertOk(await call(s, "DELETE", `${cms}/grace${g}?gracePeriodSeconds=${g}`), 200);
        assertStatus(await call(s, "GET", `${cms}/grace${g}`), 404);
      }
      assertStatus(await call(s, "DELETE", `${cms}/x?gracePeriodSeconds=soon`), 400);
    });
    await t.step("dryRun=All deletes nothing", async () => {
      await createConfigMap(s, NS, "dry");
      assertOk(await call(s, "DELETE", `${cms}/dry?dryRun=All`), 200);
      assertOk(await call(s, "GET", `${cms}/dry`), 200);
      assertStatus(await call(s, "DELETE", `${cms}/dry?dryRun=Some`), 400);
    });
  } finally {
    await s.close();
  }
});
