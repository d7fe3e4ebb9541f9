/**
 * End to end: server-side apply, strategic merge patch and managedFields upkeep over HTTPS
 * (status codes, Status bodies, managedFields entries, preconditions, dryRun).
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const CM = "/api/v1/namespaces/default/configmaps";

async function patch(
  t: TestServer,
  path: string,
  type: string,
  body: unknown,
  query = "",
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t.fetch(`${path}${query}`, {
    method: "PATCH",
    headers: { "content-type": type, "user-agent": "e2e-agent/1.0 (test)", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

type Entry = { manager: string; operation: string; fieldsV1: unknown };

function entries(o: Record<string, unknown>): Entry[] {
  return ((o.metadata as { managedFields?: Entry[] }).managedFields ?? []);
}

const APPLY = "application/apply-patch+yaml";

Deno.test("server-side apply over HTTP: create, conflict, force, managedFields", async () => {
  const t = await startTestServer();
  try {
    const cm = (data: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a" },
      data,
    });
    const missing = await patch(t, `${CM}/a`, APPLY, cm({ x: "1" }));
    assert.equal(missing.status, 422);
    assert.match(
      String(missing.body.message),
      /fieldManager: Required value: is required for apply patch/,
    );

    const created = await patch(t, `${CM}/a`, APPLY, cm({ x: "1", y: "2" }), "?fieldManager=one");
    assert.equal(created.status, 201);
    const e = entries(created.body);
    assert.equal(e.length, 1);
    assert.deepEqual(Object.keys(e[0]), [
      "manager",
      "operation",
      "apiVersion",
      "time",
      "fieldsType",
      "fieldsV1",
    ]);
    assert.deepEqual(e[0].fieldsV1, { "f:data": { "f:x": {}, "f:y": {} } });

    const conflict = await patch(t, `${CM}/a`, APPLY, cm({ x: "9" }), "?fieldManager=two");
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.reason, "Conflict");
    assert.equal(
      conflict.body.message,
      'Apply failed with 1 conflict: conflict with "one": .data.x',
    );
    assert.deepEqual((conflict.body.details as { causes: unknown[] }).causes, [
      { reason: "FieldManagerConflict", message: 'conflict with "one"', field: ".data.x" },
    ]);

    const dry = await patch(
      t,
      `${CM}/a`,
      APPLY,
      cm({ x: "9" }),
      "?fieldManager=two&force=true&dryRun=All",
    );
    assert.equal(dry.status, 200);
    assert.equal((dry.body.data as Record<string, string>).x, "9");
    const still = await (await t.fetch(`${CM}/a`)).json();
    assert.equal(still.data.x, "1");

    const forced = await patch(t, `${CM}/a`, APPLY, cm({ x: "9" }), "?fieldManager=two&force=true");
    assert.equal(forced.status, 200);
    assert.deepEqual(entries(forced.body).map((x) => [x.manager, x.fieldsV1]), [
      ["one", { "f:data": { "f:y": {} } }],
      ["two", { "f:data": { "f:x": {} } }],
    ]);

    const withMf = await patch(t, `${CM}/a`, APPLY, {
      ...cm({}),
      metadata: { name: "a", managedFields: [{ manager: "x" }] },
    }, "?fieldManager=one");
    assert.equal(withMf.status, 400);
    assert.equal(withMf.body.message, "metadata.managedFields must be nil");

    const forceOnMerge = await patch(
      t,
      `${CM}/a`,
      "application/merge-patch+json",
      {},
      "?force=true",
    );
    assert.equal(forceOnMerge.status, 422);

    // A merge patch without fieldManager is an Update by the User-Agent's product name.
    const merged = await patch(t, `${CM}/a`, "application/merge-patch+json", { data: { z: "3" } });
    assert.equal(merged.status, 200);
    const upd = entries(merged.body).find((x) => x.manager === "e2e-agent");
    assert.deepEqual(upd && [upd.operation, upd.fieldsV1], ["Update", { "f:data": { "f:z": {} } }]);

    // Clearing managedFields with one empty entry.
    const reset = await patch(t, `${CM}/a`, "application/merge-patch+json", {
      metadata: { managedFields: [{}] },
    });
    assert.equal(reset.status, 200);
    assert.deepEqual(entries(reset.body), []);

    // A stale resourceVersion in the body is a precondition.
    const stale = await patch(t, `${CM}/a`, "application/merge-patch+json", {
      metadata: { resourceVersion: "1" },
      data: { q: "1" },
    });
    assert.equal(stale.status, 409);
    const ifMatch = await patch(
      t,
      `${CM}/a`,
      "application/json-patch+json",
      [
        { op: "add", path: "/data/w", value: "1" },
      ],
      "",
      { "if-match": '"1"' },
    );
    assert.equal(ifMatch.status, 409);
  } finally {
    await t.close();
  }
});

Deno.test("server-side apply of a member of the wrong shape is 400 and changes nothing", async (t) => {
  const s = await startTestServer();
  try {
    const created = await patch(s, `${CM}/shape`, APPLY, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "shape", labels: { a: "b" } },
      data: { k: "v" },
    }, "?fieldManager=one");
    assert.equal(created.status, 201);
    const before = await (await s.fetch(`${CM}/shape`)).json();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["metadata as a number", { metadata: 7 }, ".metadata: expected map, got 7"],
      [
        "labels as a number",
        { metadata: { name: "shape", labels: 5 } },
        ".metadata.labels: expected map, got 5",
      ],
      [
        "finalizers as a string",
        { metadata: { name: "shape", finalizers: "x" } },
        '.metadata.finalizers: expected list, got "x"',
      ],
      [
        "a data value as a number",
        { metadata: { name: "shape" }, data: { k: 1 } },
        ".data.k: expected string, got 1",
      ],
    ];
    for (const [name, body, detail] of cases) {
      await t.step(name, async () => {
        for (const path of [`${CM}/shape`, `${CM}/absent`]) {
          const r = await patch(
            s,
            path,
            APPLY,
            { apiVersion: "v1", kind: "ConfigMap", ...body },
            "?fieldManager=two&force=true",
          );
          assert.equal(r.status, 400, JSON.stringify(r.body));
          assert.equal(r.body.reason, "BadRequest");
          assert.match(String(r.body.message), /^failed to create typed patch object \(/);
          assert.ok(
            String(r.body.message).endsWith(`Kind=ConfigMap): ${detail}`),
            String(r.body.message),
          );
        }
      });
    }
    assert.deepEqual(await (await s.fetch(`${CM}/shape`)).json(), before);
    assert.equal((await s.fetch(`${CM}/absent`)).status, 404);
  } finally {
    await s.close();
  }
});

Deno.test("JSON patch limits: operations (413) and what copies may add (422)", async () => {
  const s = await startTestServer();
  try {
    const made = await s.fetch(CM, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "jp" }, data: { k: "v" } }),
    });
    assert.equal(made.status, 201);
    const before = await made.json();
    const JP = "application/json-patch+json";
    const many = Array.from(
      { length: 10_001 },
      () => ({ op: "test", path: "/kind", value: "ConfigMap" }),
    );
    const tooMany = await patch(s, `${CM}/jp`, JP, many);
    assert.equal(tooMany.status, 413);
    assert.equal(
      tooMany.body.message,
      "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    );
    // 40 copies of metadata.annotations into itself would double it 40 times.
    const doubling = [
      { op: "add", path: "/metadata/annotations", value: { a: "x".repeat(1000) } },
      ...Array.from({ length: 40 }, (_, i) => ({
        op: "copy",
        from: "/metadata/annotations",
        path: `/metadata/annotations/c${i}`,
      })),
    ];
    const grown = await patch(s, `${CM}/jp`, JP, doubling);
    assert.equal(grown.status, 422);
    assert.match(String(grown.body.message), /exceeding the limit 3145728$/);
    assert.deepEqual(await (await s.fetch(`${CM}/jp`)).json(), before);
  } finally {
    await s.close();
  }
});

Deno.test("strategic merge patch over HTTP merges pod containers by name", async () => {
  const t = await startTestServer();
  try {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "a", image: "i1" }, { name: "b", image: "i2" }] },
    };
    const res = await t.fetch("/api/v1/namespaces/default/pods?fieldManager=creator", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(pod),
    });
    assert.equal(res.status, 201);
    const created = await res.json();
    assert.deepEqual(entries(created).map((e) => [e.manager, e.operation]), [[
      "creator",
      "Update",
    ]]);
    const smp = await patch(
      t,
      "/api/v1/namespaces/default/pods/p",
      "application/strategic-merge-patch+json",
      { spec: { containers: [{ name: "b", image: "i3" }] } },
      "?fieldManager=patcher",
    );
    assert.equal(smp.status, 200);
    const spec = smp.body.spec as { containers: { name: string; image: string }[] };
    assert.deepEqual(spec.containers.map((c) => `${c.name}=${c.image}`), ["a=i1", "b=i3"]);
    const bad = await patch(
      t,
      "/api/v1/namespaces/default/pods/p",
      "application/strategic-merge-patch+json",
      { spec: { containers: [{ image: "x" }] } },
    );
    assert.equal(bad.status, 422);
  } finally {
    await t.close();
  }
});
