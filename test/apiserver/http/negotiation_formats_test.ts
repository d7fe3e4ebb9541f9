import assert from "node:assert/strict";
import { errorFormat, negotiate, tryNegotiate } from "../../../apiserver/http/negotiation.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

const KUBECTL_GET =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

Deno.test("negotiate() picks the best acceptable representation", async (t) => {
  const table = ["Table", "PartialObjectMetadataList"] as const;
  const cases: [string, string | null, Parameters<typeof negotiate>[1], unknown][] = [
    ["no Accept is JSON", null, {}, { format: "json" }],
    ["wildcard", "*/*", {}, { format: "json" }],
    ["yaml", "application/yaml", {}, { format: "yaml" }],
    ["protobuf with alternatives", "application/vnd.kubernetes.protobuf, application/json", {
      protobuf: true,
    }, { format: "protobuf" }],
    ["protobuf unavailable falls back", "application/vnd.kubernetes.protobuf, application/json", {
      protobuf: false,
    }, { format: "json" }],
    ["weights", "application/json;q=0.5, application/yaml", {}, { format: "yaml" }],
    ["kubectl get Table", KUBECTL_GET, { representations: table }, {
      format: "json",
      as: "Table",
      asVersion: "v1",
    }],
    ["Table v1beta1", "application/json;as=Table;v=v1beta1;g=meta.k8s.io", {
      representations: table,
    }, { format: "json", as: "Table", asVersion: "v1beta1" }],
    ["Table not served by the verb falls back", KUBECTL_GET, {}, { format: "json" }],
    [
      "Table of another group is skipped",
      "application/json;as=Table;v=v1;g=x.io,application/yaml",
      { representations: table },
      { format: "yaml" },
    ],
    ["stream ranges only for watches", "application/json;stream=watch", { watch: true }, {
      format: "json",
    }],
  ];
  for (const [name, accept, opts, want] of cases) {
    await t.step(name, () => assert.deepEqual(negotiate(accept, opts), want));
  }
});

Deno.test("negotiate() answers 406 with a Status when nothing fits", async (t) => {
  for (
    const [name, accept, opts] of [
      ["protobuf only, kind without it", "application/vnd.kubernetes.protobuf", {
        protobuf: false,
      }],
      ["Table only on a create", "application/json;as=Table;v=v1;g=meta.k8s.io", {}],
      ["text/html", "text/html", {}],
      ["stream on a get", "application/json;stream=watch", {}],
    ] as const
  ) {
    await t.step(name, () => {
      assert.equal(tryNegotiate(accept, opts), undefined);
      assert.throws(() => negotiate(accept, opts), (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, 406);
        assert.equal(e.reason, "NotAcceptable");
        return true;
      });
    });
  }
});

Deno.test("errorFormat() writes Status errors in Protobuf when asked", () => {
  assert.equal(errorFormat("application/vnd.kubernetes.protobuf, application/json"), "protobuf");
  assert.equal(errorFormat("text/html"), "json");
  assert.equal(errorFormat(null), "json");
});
