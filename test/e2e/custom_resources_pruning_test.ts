/**
 * End to end: fields a custom resource's schema does not declare are pruned on write and
 * reported by `fieldValidation` as for built-in kinds (Warn: a Warning header; Strict: 400;
 * Ignore: silently dropped). Skips while the structural schema engine is the placeholder
 * (which prunes nothing).
 */
import assert from "node:assert/strict";
import { compileCustomResourceSchema } from "../../apiserver/registry/apiextensions/schema/custom_resource_schema.ts";
import { jsonCall } from "../support/json_call.ts";
import { startTestServer } from "../support/test_server.ts";
import { createEstablished, cronTab, cronTabCrd, GROUP } from "./_crd_helpers.ts";

const NS = `/apis/${GROUP}/v1/namespaces/default/crontabs`;

function enginePrunes(): boolean {
  const schema = compileCustomResourceSchema({
    type: "object",
    properties: { spec: { type: "object", properties: {} } },
  });
  return schema.prune({ metadata: {}, spec: { x: 1 } }).length > 0;
}

const PRUNES = enginePrunes();
if (!PRUNES) console.warn("the structural schema engine prunes nothing yet: skipping pruning");

Deno.test({
  name: "custom resources: unknown fields pruned and reported by fieldValidation",
  ignore: !PRUNES,
  async fn() {
    const t = await startTestServer();
    try {
      await createEstablished(t, cronTabCrd());
      const body = { ...cronTab("p"), spec: { ...cronTab("p").spec, extra: 1 } };
      const res = await t.fetch(NS, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 201);
      assert.match(res.headers.get("warning") ?? "", /unknown field \\?"spec.extra\\?"/);
      const created = await res.json();
      assert.equal(created.spec.extra, undefined);
      const strict = await jsonCall(t, "POST", `${NS}?fieldValidation=Strict`, {
        ...body,
        metadata: { name: "q" },
      });
      assert.equal(strict.status, 400);
      assert.equal(strict.json.message, 'strict decoding error: unknown field "spec.extra"');
      const ignored = await t.fetch(`${NS}?fieldValidation=Ignore`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, metadata: { name: "r" } }),
      });
      assert.equal(ignored.status, 201);
      assert.equal(ignored.headers.get("warning"), null);
      assert.equal((await ignored.json()).spec.extra, undefined);
    } finally {
      await t.close();
    }
  },
});
