import assert from "node:assert/strict";
import { ConversionMemo } from "../../../../apiserver/registry/generic/conversion_memo.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";

const obj = (uid: string, rv: string, spec = {}) =>
  ({ apiVersion: "example.com/v2", metadata: { uid, resourceVersion: rv }, spec }) as KubeObject;

Deno.test("ConversionMemo.convert() converts each object state once for every caller", async () => {
  const batches: number[] = [];
  const memo = new ConversionMemo(async (objs) => {
    batches.push(objs.length);
    await new Promise((r) => setTimeout(r, 5));
    return objs.map((o) => ({ ...o, apiVersion: "example.com/v1" }));
  });
  const [a, b] = await Promise.all([
    memo.convert([obj("1", "5"), obj("2", "6")]),
    memo.convert([obj("1", "5"), obj("2", "6"), obj("3", "7")]),
  ]);
  assert.deepEqual(batches, [2, 1], "the second caller converts only the unknown object");
  assert.deepEqual(a.map((o) => o.apiVersion), ["example.com/v1", "example.com/v1"]);
  assert.equal(b.length, 3);
  assert.notEqual(a[0], b[0], "each caller gets its own copy");
  // A DELETED event's previous state at the same resourceVersion is another state.
  await memo.convert([obj("1", "5")], ["deleted"]);
  assert.deepEqual(batches, [2, 1, 1]);
});

Deno.test("ConversionMemo.convert() does not keep failures", async () => {
  let fail = true;
  const memo = new ConversionMemo((objs) =>
    fail ? Promise.reject(new Error("down")) : Promise.resolve(objs)
  );
  await assert.rejects(memo.convert([obj("1", "5")]), /down/);
  fail = false;
  assert.equal((await memo.convert([obj("1", "5")])).length, 1);
});
