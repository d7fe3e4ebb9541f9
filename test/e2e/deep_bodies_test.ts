/**
 * Bodies nested a million deep (issue: a 2 MB YAML body of brackets held the event loop for
 * ~10 s and grew the heap by a gigabyte before its 400). Each is refused with the depth message,
 * and the server keeps answering others while it does.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const N = 1_000_000;
const YAML_HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nx: ";

const cases: Array<[string, string, string, string, string]> = [
  [
    "create, YAML flow sequences",
    "POST",
    CMS,
    "application/yaml",
    YAML_HEAD + "[".repeat(N) + "]".repeat(N),
  ],
  [
    "create, YAML flow mappings",
    "POST",
    CMS,
    "application/yaml",
    YAML_HEAD + "{a: ".repeat(N / 2) + "1" + "}".repeat(N / 2),
  ],
  [
    "apply, YAML",
    "PATCH",
    `${CMS}/y?fieldManager=m`,
    "application/apply-patch+yaml",
    YAML_HEAD + "[".repeat(N) + "]".repeat(N),
  ],
  [
    "create, JSON",
    "POST",
    CMS,
    "application/json",
    '{"metadata":{"name":"x"},"x":' + "[".repeat(N) + "]".repeat(N) + "}",
  ],
  [
    "merge patch",
    "PATCH",
    `${CMS}/y`,
    "application/merge-patch+json",
    '{"x":' + "[".repeat(N) + "]".repeat(N) + "}",
  ],
  [
    "JSON patch",
    "PATCH",
    `${CMS}/y`,
    "application/json-patch+json",
    '[{"op":"add","path":"/x","value":' + "[".repeat(N) + "]".repeat(N) + "}]",
  ],
];

Deno.test("decodeRequestBody() refuses bodies nested a million deep before parsing them", async (t) => {
  const s = await startTestServer();
  try {
    const created = await s.fetch(CMS, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "y" } }),
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    for (const [name, method, path, type, body] of cases) {
      await t.step(name, async () => {
        const attack = s.fetch(path, { method, headers: { "content-type": type }, body });
        const ready = s.fetch("/readyz");
        const [res, readyRes] = await Promise.all([attack, ready]);
        assert.equal(readyRes.status, 200);
        await readyRes.body?.cancel();
        const status = await res.json();
        assert.equal(res.status, 400, JSON.stringify(status));
        assert.match(status.message, /the request body exceeds the maximum nesting depth of 1000$/);
      });
    }
  } finally {
    await s.close();
  }
});
