import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

/** A Warning header's bytes (latin1 characters) read back as the UTF-8 text they carry. */
function utf8(header: string | null): string {
  const bytes = Uint8Array.from(header ?? "", (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

Deno.test("writes whose warnings carry non-latin1 text succeed with the warning sent as UTF-8", async (t) => {
  const s = await startTestServer();
  try {
    await t.step("POST with an unknown non-latin1 field is 201 and stored", async () => {
      const res = await s.fetch(CONFIGMAPS, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "u1" },
          "ключ": "x",
        }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      assert.equal(utf8(res.headers.get("warning")), '299 - "unknown field \\"ключ\\""');
      await res.body?.cancel();
      const get = await s.fetch(`${CONFIGMAPS}/u1`);
      assert.equal(get.status, 200);
      await get.body?.cancel();
    });
    for (const type of ["application/merge-patch+json", "application/strategic-merge-patch+json"]) {
      await t.step(`a ${type} PATCH with one is 200`, async () => {
        const res = await s.fetch(`${CONFIGMAPS}/u1`, {
          method: "PATCH",
          headers: { "content-type": type },
          body: JSON.stringify({ data: { a: "b" }, "名前": 1 }),
        });
        assert.equal(res.status, 200, await res.clone().text());
        assert.match(utf8(res.headers.get("warning")), /unknown field \\"名前\\"/);
        await res.body?.cancel();
      });
    }
  } finally {
    await s.close();
  }
});
