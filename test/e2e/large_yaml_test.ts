/**
 * A large YAML body (parsed on the YAML decoder's worker, off the request thread) is created
 * and applied like any other, while the server keeps answering others.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

function configMapYaml(name: string, entries: number): string {
  const lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", `  name: ${name}`, "data:"];
  for (let i = 0; i < entries; i++) lines.push(`  key${i}: "value ${i} ${"x".repeat(40)}"`);
  return lines.join("\n") + "\n";
}

Deno.test("YamlDecoder serves large YAML creates and applies end to end", async (t) => {
  const s = await startTestServer();
  try {
    await t.step("a 1 MiB YAML create is 201 while readyz answers", async () => {
      const [res, ready] = await Promise.all([
        s.fetch(CMS, {
          method: "POST",
          headers: { "content-type": "application/yaml" },
          body: configMapYaml("big", 15_000),
        }),
        s.fetch("/readyz"),
      ]);
      assert.equal(ready.status, 200);
      await ready.body?.cancel();
      const body = await res.json();
      assert.equal(res.status, 201, JSON.stringify(body).slice(0, 300));
      assert.equal(Object.keys(body.data).length, 15_000);
    });
    await t.step("a large apply is 200", async () => {
      const res = await s.fetch(`${CMS}/big?fieldManager=m&force=true`, {
        method: "PATCH",
        headers: { "content-type": "application/apply-patch+yaml" },
        body: configMapYaml("big", 12_000),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body).slice(0, 300));
      assert.equal(body.data.key11999, `value 11999 ${"x".repeat(40)}`);
    });
  } finally {
    await s.close();
  }
});
