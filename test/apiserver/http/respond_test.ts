import assert from "node:assert/strict";
import {
  compressResponse,
  GZIP_THRESHOLD_BYTES,
  warningHeader,
} from "../../../apiserver/http/respond.ts";
import { fixedBody, fixedResponse } from "../../../shared/http/https_server.ts";

const gunzip = async (bytes: ArrayBuffer) =>
  await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")))
    .text();

Deno.test("compressResponse() gzips large bodies for clients that accept gzip", async (t) => {
  const big = JSON.stringify({ items: Array.from({ length: 20000 }, (_, i) => ({ i })) });
  assert.ok(big.length >= GZIP_THRESHOLD_BYTES);
  const res = (body: string) =>
    new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  const req = (accept?: string) =>
    new Request("https://x/", accept ? { headers: { "accept-encoding": accept } } : {});
  await t.step("large body, gzip accepted", async () => {
    const out = await compressResponse(req("gzip, br"), res(big));
    assert.equal(out.headers.get("content-encoding"), "gzip");
    assert.equal(out.headers.get("vary"), "Accept-Encoding");
    assert.equal(out.headers.get("content-type"), "application/json");
    assert.equal(await gunzip(await out.arrayBuffer()), big);
  });
  await t.step("small body stays as is", async () => {
    const out = await compressResponse(req("gzip"), res("{}"));
    assert.equal(out.headers.get("content-encoding"), null);
    assert.equal(await out.text(), "{}");
  });
  await t.step("large fixed body, gzip accepted", async () => {
    const fixed = fixedResponse(big, {
      status: 200,
      headers: { "content-type": "application/json" },
    });
    const out = await compressResponse(req("gzip"), fixed);
    assert.equal(out.headers.get("content-encoding"), "gzip");
    assert.equal(out.headers.get("vary"), "Accept-Encoding");
    assert.equal(out.headers.get("content-type"), "application/json");
    assert.equal(await gunzip(await out.arrayBuffer()), big);
  });
  await t.step("small fixed body stays the same fixed response, with Vary", async () => {
    for (const body of ["{}", "é".repeat(GZIP_THRESHOLD_BYTES / 2 - 1)]) {
      const fixed = fixedResponse(body, { status: 200 });
      const out = await compressResponse(req("gzip"), fixed);
      assert.equal(out, fixed);
      assert.equal(fixedBody(out), body);
      assert.equal(out.headers.get("vary"), "Accept-Encoding");
      assert.equal(out.headers.get("content-encoding"), null);
    }
  });
  await t.step("fixed body just over the threshold in UTF-8 is gzipped", async () => {
    const body = "é".repeat(GZIP_THRESHOLD_BYTES / 2);
    const out = await compressResponse(req("gzip"), fixedResponse(body, { status: 200 }));
    assert.equal(out.headers.get("content-encoding"), "gzip");
    assert.equal(await gunzip(await out.arrayBuffer()), body);
  });
  await t.step("empty fixed body (HEAD) stays as is", async () => {
    const fixed = fixedResponse(null, { status: 200 });
    const out = await compressResponse(req("gzip"), fixed);
    assert.equal(out, fixed);
    assert.equal(out.headers.get("vary"), null);
  });
  await t.step("gzip not accepted", async () => {
    const out = await compressResponse(req("gzip;q=0"), res(big));
    assert.equal(out.headers.get("content-encoding"), null);
    assert.equal(await out.text(), big);
  });
});

Deno.test("warningHeader() quotes the text as Kubernetes does and keeps the header legal", () => {
  assert.equal(warningHeader('unknown field "a"'), '299 - "unknown field \\"a\\""');
  assert.equal(warningHeader("back\\slash"), '299 - "back\\\\slash"');
  assert.equal(warningHeader("two\r\nlines\0"), '299 - "two  lines "');
  // Non-ASCII text goes out as its UTF-8 bytes, one latin1 character each.
  assert.equal(warningHeader("é"), '299 - "\xc3\xa9"');
  assert.doesNotThrow(() => new Headers().append("Warning", warningHeader("ключ ✓ 😀")));
});
