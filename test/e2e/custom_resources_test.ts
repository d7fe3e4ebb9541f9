/**
 * End to end over HTTPS: a CustomResourceDefinition's lifecycle (names, Established,
 * storedVersions, deletion removing instances) and serving its instances (verbs, status and
 * scale subresources, Table with printer columns, Protobuf refused, strategic merge refused).
 */
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.ts";
import { jsonCall } from "../support/json_call.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { CRDS, createEstablished, cronTab, cronTabCrd, GROUP } from "./_crd_helpers.ts";

const NS = `/apis/${GROUP}/v1/namespaces/default/crontabs`;
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const PB = "application/vnd.kubernetes.protobuf";

async function withServer(fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

Deno.test("CustomResourceDefinition lifecycle: names accepted, established, stored versions", async () => {
  await withServer(async (t) => {
    const crd = await createEstablished(t, cronTabCrd());
    const conds = Object.fromEntries(
      // deno-lint-ignore no-explicit-any
      crd.status.conditions.map((c: any) => [c.type, c]),
    );
    assert.equal(conds.NamesAccepted.status, "True");
    assert.equal(conds.NamesAccepted.reason, "NoConflicts");
    assert.equal(conds.NamesAccepted.message, "no conflicts found");
    assert.equal(conds.Established.reason, "InitialNamesAccepted");
    assert.equal(conds.Established.message, "the initial names have been accepted");
    assert.deepEqual(crd.status.storedVersions, ["v1"]);
    assert.equal(crd.status.acceptedNames.kind, "CronTab");
    assert.deepEqual(crd.status.acceptedNames.shortNames, ["ct"]);
    // The cleanup finalizer is added by the first DELETE, as kube's CRD REST does.
    assert.equal(crd.metadata.finalizers, undefined);
  });
});

Deno.test("CustomResourceDefinition with conflicting names is not accepted nor served", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd());
    // Same kind and list kind in the same group, another plural: the last conflict found
    // (ListKindConflict) is reported, as kube's naming controller does.
    const other = cronTabCrd({ plural: "othertabs" });
    assert.equal((await jsonCall(t, "POST", CRDS, other)).status, 201);
    const crd = await eventually("NamesAccepted False", async () => {
      const got = (await jsonCall(t, "GET", `${CRDS}/othertabs.${GROUP}`)).json;
      // deno-lint-ignore no-explicit-any
      const c = got.status?.conditions?.find((c: any) => c.type === "NamesAccepted");
      return c?.status === "False" ? got : undefined;
    });
    // deno-lint-ignore no-explicit-any
    const byType = (type: string) => crd.status.conditions.find((c: any) => c.type === type);
    assert.equal(byType("NamesAccepted").reason, "ListKindConflict");
    assert.equal(byType("NamesAccepted").message, '"CronTabList" is already in use');
    assert.equal(byType("Established").status, "False");
    assert.equal(byType("Established").reason, "NotAccepted");
    assert.equal(byType("Established").message, "not all names are accepted");
    const list = await jsonCall(t, "GET", `/apis/${GROUP}/v1/othertabs`);
    assert.equal(list.status, 404);
    // Deleting the first frees the kind: the second is accepted.
    await jsonCall(t, "DELETE", `${CRDS}/crontabs.${GROUP}`);
    await eventually("the second established", async () => {
      const got = (await jsonCall(t, "GET", `/apis/${GROUP}/v1/othertabs`)).status;
      return got === 200 || undefined;
    });
  });
});

Deno.test("custom resources: create, get, list, update, patch, delete, generation and status", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd());
    const created = await jsonCall(t, "POST", NS, { ...cronTab("a"), status: { replicas: 9 } });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.metadata.generation, 1);
    assert.equal(created.json.status, undefined, "status ignored on create with /status");
    const got = await jsonCall(t, "GET", `${NS}/a`);
    assert.equal(got.json.spec.cronSpec, "* * * * */5");
    assert.equal(got.json.apiVersion, `${GROUP}/v1`);
    const list = await jsonCall(t, "GET", NS);
    assert.equal(list.json.kind, "CronTabList");
    assert.equal(list.json.items.length, 1);
    // Update of spec bumps the generation; status stays.
    const upd = await jsonCall(t, "PUT", `${NS}/a`, {
      ...got.json,
      spec: { ...got.json.spec, image: "other" },
      status: { replicas: 3 },
    });
    assert.equal(upd.status, 200, JSON.stringify(upd.json));
    assert.equal(upd.json.metadata.generation, 2);
    assert.equal(upd.json.status, undefined);
    // Status through /status: generation unchanged.
    const st = await jsonCall(t, "PUT", `${NS}/a/status`, {
      ...upd.json,
      status: { replicas: 3, conditions: [{ type: "Ready", status: "True" }] },
    });
    assert.equal(st.status, 200, JSON.stringify(st.json));
    assert.equal(st.json.status.replicas, 3);
    assert.equal(st.json.metadata.generation, 2);
    const merge = await jsonCall(t, "PATCH", `${NS}/a`, { spec: { replicas: 2 } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(merge.json.spec.replicas, 2);
    const jp = await jsonCall(t, "PATCH", `${NS}/a`, [
      { op: "replace", path: "/spec/image", value: "jp" },
    ], { "content-type": "application/json-patch+json" });
    assert.equal(jp.json.spec.image, "jp");
    const smp = await jsonCall(t, "PATCH", `${NS}/a`, { spec: { replicas: 4 } }, {
      "content-type": "application/strategic-merge-patch+json",
    });
    assert.equal(smp.status, 415);
    assert.match(
      smp.json.message,
      /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
    );
    const del = await jsonCall(t, "DELETE", `${NS}/a`);
    assert.equal(del.status, 200);
    assert.equal(del.json.kind, "CronTab", "the deleted object is returned");
    assert.equal((await jsonCall(t, "GET", `${NS}/a`)).status, 404);
  });
});

Deno.test("custom resources: scale subresource as autoscaling/v1 Scale", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd());
    await jsonCall(t, "POST", NS, cronTab("s", { replicas: 3 }));
    await jsonCall(t, "PATCH", `${NS}/s/status`, {
      status: { replicas: 2, labelSelector: "app=s" },
    }, { "content-type": "application/merge-patch+json" });
    const scale = await jsonCall(t, "GET", `${NS}/s/scale`);
    assert.equal(scale.status, 200, JSON.stringify(scale.json));
    assert.equal(scale.json.kind, "Scale");
    assert.equal(scale.json.apiVersion, "autoscaling/v1");
    assert.equal(scale.json.spec.replicas, 3);
    assert.deepEqual(scale.json.status, { replicas: 2, selector: "app=s" });
    const put = await jsonCall(t, "PUT", `${NS}/s/scale`, { ...scale.json, spec: { replicas: 5 } });
    assert.equal(put.status, 200, JSON.stringify(put.json));
    assert.equal(put.json.spec.replicas, 5);
    assert.equal((await jsonCall(t, "GET", `${NS}/s`)).json.spec.replicas, 5);
    const patched = await jsonCall(t, "PATCH", `${NS}/s/scale`, { spec: { replicas: 1 } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(patched.json.spec.replicas, 1);
    const neg = await jsonCall(t, "PUT", `${NS}/s/scale`, {
      ...scale.json,
      metadata: { name: "s" },
      spec: { replicas: -1 },
    });
    assert.equal(neg.status, 422);
    // A negative replicas value in the object itself is refused by the scale checks.
    const bad = await jsonCall(t, "POST", NS, cronTab("bad", { replicas: -2 }));
    assert.equal(bad.status, 422);
    assert.equal(bad.json.details.causes[0].field, ".spec.replicas");
    assert.match(bad.json.details.causes[0].message, /should be a non-negative integer/);
  });
});

Deno.test("custom resources: Table with printer columns, wide priority, default Age", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd());
    await jsonCall(t, "POST", NS, cronTab("p", { replicas: 3 }));
    await jsonCall(t, "PATCH", `${NS}/p/status`, {
      status: {
        conditions: [{ type: "Other", status: "False" }, { type: "Ready", status: "True" }],
      },
    }, { "content-type": "application/merge-patch+json" });
    const table = await jsonCall(t, "GET", NS, undefined, { accept: TABLE });
    assert.equal(table.json.kind, "Table");
    // deno-lint-ignore no-explicit-any
    const cols = table.json.columnDefinitions.map((c: any) => [c.name, c.type, c.priority]);
    assert.deepEqual(cols, [
      ["Name", "string", 0],
      ["Spec", "string", 0],
      ["Replicas", "integer", 0],
      ["Ready", "string", 0],
      ["Image", "string", 1],
      ["Age", "date", 0],
    ]);
    const cells = table.json.rows[0].cells;
    assert.deepEqual(cells.slice(0, 5), ["p", "* * * * */5", 3, "True", "my-cron-image"]);
    assert.match(cells[5], /^\d+s$/);
  });
});

Deno.test("custom resources: Protobuf refused (415 body, 406 only-Protobuf Accept), JSON fallback", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd());
    await jsonCall(t, "POST", NS, cronTab("pb"));
    const only = await t.fetch(`${NS}/pb`, { headers: { accept: PB } });
    assert.equal(only.status, 406);
    await only.body?.cancel();
    const fallback = await t.fetch(`${NS}/pb`, { headers: { accept: `${PB}, application/json` } });
    assert.equal(fallback.status, 200);
    assert.match(fallback.headers.get("content-type") ?? "", /application\/json/);
    await fallback.body?.cancel();
    const body = await t.fetch(NS, {
      method: "POST",
      headers: { "content-type": PB },
      body: new Uint8Array([0x6b, 0x38, 0x73, 0x00]),
    });
    assert.equal(body.status, 415);
    await body.body?.cancel();
  });
});

Deno.test("custom resources: a non-storage served version rewrites apiVersion (None)", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd());
    const beta = `/apis/${GROUP}/v1beta1/namespaces/default/crontabs`;
    const created = await jsonCall(t, "POST", beta, {
      ...cronTab("b"),
      apiVersion: `${GROUP}/v1beta1`,
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.apiVersion, `${GROUP}/v1beta1`);
    assert.equal((await jsonCall(t, "GET", `${NS}/b`)).json.apiVersion, `${GROUP}/v1`);
    assert.equal((await jsonCall(t, "GET", `${beta}/b`)).json.apiVersion, `${GROUP}/v1beta1`);
  });
});

Deno.test("deleting a CustomResourceDefinition deletes its instances and stops serving it", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd());
    await jsonCall(t, "POST", "/api/v1/namespaces", { metadata: { name: "other" } });
    await jsonCall(t, "POST", NS, cronTab("x"));
    const other = `/apis/${GROUP}/v1/namespaces/other/crontabs`;
    assert.equal((await jsonCall(t, "POST", other, cronTab("y"))).status, 201);
    const del = await jsonCall(t, "DELETE", `${CRDS}/crontabs.${GROUP}`);
    assert.equal(del.status, 200);
    // deno-lint-ignore no-explicit-any
    const term = del.json.status.conditions.find((c: any) => c.type === "Terminating");
    assert.equal(term.reason, "InstanceDeletionPending");
    assert.deepEqual(del.json.metadata.finalizers, ["customresourcecleanup.apiextensions.k8s.io"]);
    await eventually("the definition gone", async () => {
      return (await jsonCall(t, "GET", `${CRDS}/crontabs.${GROUP}`)).status === 404 || undefined;
    });
    assert.equal((await jsonCall(t, "GET", `/apis/${GROUP}/v1/crontabs`)).status, 404);
    // Re-created, the definition serves an empty list: the instances were deleted.
    await createEstablished(t, cronTabCrd());
    assert.equal((await jsonCall(t, "GET", `/apis/${GROUP}/v1/crontabs`)).json.items.length, 0);
  });
});

Deno.test("a terminating definition refuses creates and waits for instances with finalizers", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd());
    const held = {
      ...cronTab("held"),
      metadata: { name: "held", finalizers: ["example.com/hold"] },
    };
    assert.equal((await jsonCall(t, "POST", NS, held)).status, 201);
    await jsonCall(t, "DELETE", `${CRDS}/crontabs.${GROUP}`);
    const crd = await eventually("deletion in progress", async () => {
      const got = (await jsonCall(t, "GET", `${CRDS}/crontabs.${GROUP}`)).json;
      // deno-lint-ignore no-explicit-any
      const c = got.status?.conditions?.find((c: any) => c.type === "Terminating");
      return c?.reason === "InstanceDeletionInProgress" ? got : undefined;
    });
    assert.ok(crd.metadata.deletionTimestamp);
    const refused = await jsonCall(t, "POST", NS, cronTab("late"));
    assert.equal(refused.status, 405);
    assert.equal(
      refused.json.message,
      "create not allowed while custom resource definition is terminating",
    );
    // The instance is being deleted; releasing its finalizer lets the definition go.
    const got = (await jsonCall(t, "GET", `${NS}/held`)).json;
    assert.ok(got.metadata.deletionTimestamp);
    await jsonCall(t, "PATCH", `${NS}/held`, { metadata: { finalizers: null } }, {
      "content-type": "application/merge-patch+json",
    });
    await eventually("the definition gone", async () => {
      return (await jsonCall(t, "GET", `${CRDS}/crontabs.${GROUP}`)).status === 404 || undefined;
    });
  });
});

Deno.test("custom resources: list paging, label and field selectors, selectableFields", async () => {
  await withServer(async (t) => {
    const def = cronTabCrd();
    // On every version: kube folds identical schemas to the top level, where per-version
    // selectable fields are refused.
    for (const v of def.spec.versions) v.selectableFields = [{ jsonPath: ".spec.image" }];
    await createEstablished(t, def);
    for (const n of ["a", "b", "c", "d", "e"]) {
      const body = { ...cronTab(n, { image: n === "c" ? "special" : "plain" }) };
      (body.metadata as Record<string, unknown>).labels = { odd: String("ace".includes(n)) };
      assert.equal((await jsonCall(t, "POST", NS, body)).status, 201);
    }
    const names: string[] = [];
    let token = "";
    const rvs = new Set<string>();
    do {
      const page = await jsonCall(t, "GET", `${NS}?limit=2&continue=${token}`);
      // deno-lint-ignore no-explicit-any
      names.push(...page.json.items.map((i: any) => i.metadata.name));
      rvs.add(page.json.metadata.resourceVersion);
      token = page.json.metadata.continue ?? "";
    } while (token);
    assert.deepEqual(names, ["a", "b", "c", "d", "e"]);
    assert.equal(rvs.size, 1, "every page at one resourceVersion");
    const odd = await jsonCall(t, "GET", `${NS}?labelSelector=odd%3Dtrue`);
    // deno-lint-ignore no-explicit-any
    assert.deepEqual(odd.json.items.map((i: any) => i.metadata.name), ["a", "c", "e"]);
    const byName = await jsonCall(t, "GET", `${NS}?fieldSelector=metadata.name%3Db`);
    assert.equal(byName.json.items.length, 1);
    const byImage = await jsonCall(t, "GET", `${NS}?fieldSelector=spec.image%3Dspecial`);
    // deno-lint-ignore no-explicit-any
    assert.deepEqual(byImage.json.items.map((i: any) => i.metadata.name), ["c"]);
    const unknown = await jsonCall(t, "GET", `${NS}?fieldSelector=spec.cronSpec%3Dx`);
    assert.equal(unknown.status, 400);
  });
});

Deno.test("custom resources: a cluster-scoped definition serves objects without namespace", async () => {
  await withServer(async (t) => {
    await createEstablished(t, cronTabCrd({ scope: "Cluster" }));
    const path = `/apis/${GROUP}/v1/crontabs`;
    const created = await jsonCall(t, "POST", path, cronTab("global"));
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.metadata.namespace, undefined);
    assert.equal((await jsonCall(t, "GET", `${path}/global`)).status, 200);
    const namespaced = await jsonCall(t, "GET", `/apis/${GROUP}/v1/namespaces/default/crontabs`);
    assert.equal(namespaced.status, 404);
  });
});

Deno.test("custom resources without /status: status is written with the object and bumps generation", async () => {
  await withServer(async (t) => {
    const def = cronTabCrd();
    for (const v of def.spec.versions) delete v.subresources;
    await createEstablished(t, def);
    const created = await jsonCall(t, "POST", NS, { ...cronTab("n"), status: { replicas: 1 } });
    assert.equal(created.json.status.replicas, 1);
    const patched = await jsonCall(t, "PATCH", `${NS}/n`, { status: { replicas: 2 } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(patched.json.status.replicas, 2);
    assert.equal(patched.json.metadata.generation, 2);
    assert.equal((await jsonCall(t, "GET", `${NS}/n/status`)).status, 404);
    const labels = await jsonCall(t, "PATCH", `${NS}/n`, { metadata: { labels: { a: "b" } } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(labels.json.metadata.generation, 2, "metadata changes keep the generation");
  });
});

Deno.test("custom resources: a storage version that is not served answers 404 and is not discovered", async () => {
  await withServer(async (t) => {
    const def = cronTabCrd();
    def.spec.versions[0].served = false;
    assert.equal((await jsonCall(t, "POST", CRDS, def)).status, 201);
    const beta = `/apis/${GROUP}/v1beta1/namespaces/default/crontabs`;
    await eventually("v1beta1 served", async () => {
      return (await jsonCall(t, "GET", beta)).status === 200 || undefined;
    });
    const created = await jsonCall(t, "POST", beta, {
      ...cronTab("b"),
      apiVersion: `${GROUP}/v1beta1`,
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal((await jsonCall(t, "GET", `${NS}/b`)).status, 404);
    assert.equal((await jsonCall(t, "GET", `/apis/${GROUP}/v1`)).status, 404);
    const group = await jsonCall(t, "GET", `/apis/${GROUP}`);
    // deno-lint-ignore no-explicit-any
    assert.deepEqual(group.json.versions.map((v: any) => v.version), ["v1beta1"]);
    // Deleting the definition deletes the objects held by the unserved version too.
    await jsonCall(t, "DELETE", `${CRDS}/crontabs.${GROUP}`);
    await eventually("the definition gone", async () => {
      return (await jsonCall(t, "GET", `${CRDS}/crontabs.${GROUP}`)).status === 404 || undefined;
    });
  });
});
