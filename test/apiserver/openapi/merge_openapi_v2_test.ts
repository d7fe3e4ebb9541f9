import assert from "node:assert/strict";
import { mergeOpenApiV2 } from "../../../apiserver/openapi/merge_openapi_v2.ts";

Deno.test("mergeOpenApiV2() adds the paths and definitions the local document lacks", () => {
  const local = {
    swagger: "2.0",
    paths: { "/api/v1/pods": { get: "local" } },
    definitions: { "io.k8s.A": { type: "local" } },
  };
  const merged = mergeOpenApiV2(local, [
    {
      paths: { "/apis/x/v1/flunders": { get: "remote" }, "/api/v1/pods": { get: "remote" } },
      definitions: { "io.k8s.A": { type: "remote" }, "x.Flunder": { type: "object" } },
    },
    { paths: { "/apis/x/v1/flunders": { get: "later" } } },
  ]);
  assert.deepEqual(merged, {
    swagger: "2.0",
    paths: {
      "/api/v1/pods": { get: "local" },
      "/apis/x/v1/flunders": { get: "remote" },
    },
    definitions: { "io.k8s.A": { type: "local" }, "x.Flunder": { type: "object" } },
  });
  assert.equal(mergeOpenApiV2(local, []), local);
});
