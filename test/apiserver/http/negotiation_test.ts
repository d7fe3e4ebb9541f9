import assert from "node:assert/strict";
import {
  type MediaType,
  negotiateOutput,
  parseAccept,
  parseMediaType,
} from "../../../apiserver/http/negotiation.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

Deno.test("parseMediaType() splits type, subtype, parameters and weight", async (t) => {
  const cases: [string, string, MediaType | undefined][] = [
    ["plain", "application/json", {
      type: "application",
      subtype: "json",
      params: {},
      q: 1,
    }],
    ["case and spaces", "  Application/JSON ; Charset = utf-8 ", {
      type: "application",
      subtype: "json",
      params: { charset: "utf-8" },
      q: 1,
    }],
    ["Table parameters", "application/json;as=Table;g=meta.k8s.io;v=v1", {
      type: "application",
      subtype: "json",
      params: { as: "Table", g: "meta.k8s.io", v: "v1" },
      q: 1,
    }],
    ["quoted value", 'application/json;profile="x"', {
      type: "application",
      subtype: "json",
      params: { profile: "x" },
      q: 1,
    }],
    ["weight", "application/yaml;q=0.5", {
      type: "application",
      subtype: "yaml",
      params: {},
      q: 0.5,
    }],
    ["bad weight is 0", "application/yaml;q=abc", {
      type: "application",
      subtype: "yaml",
      params: {},
      q: 0,
    }],
    ["parameter without a value is skipped", "application/json;foo", {
      type: "application",
      subtype: "json",
      params: {},
      q: 1,
    }],
    ["wildcard", "*/*", { type: "*", subtype: "*", params: {}, q: 1 }],
    ["no subtype", "application", undefined],
    ["empty subtype", "application/", undefined],
    ["two slashes", "application/json/x", undefined],
    ["empty", "", undefined],
  ];
  for (const [name, input, want] of cases) {
    await t.step(name, () => assert.deepEqual(parseMediaType(input), want));
  }
});

Deno.test("parseAccept() orders media ranges by weight, stable for ties", async (t) => {
  const cases: [string, string | null, string[]][] = [
    ["null", null, []],
    ["blank", "  ", []],
    ["one", "application/json", ["application/json"]],
    ["order kept for equal weights", "application/yaml, application/json", [
      "application/yaml",
      "application/json",
    ]],
    ["higher weight first", "application/json;q=0.2, application/yaml;q=0.9, */*", [
      "*/*",
      "application/yaml",
      "application/json",
    ]],
    ["q=0 dropped", "application/json;q=0, application/yaml", ["application/yaml"]],
    ["malformed ranges dropped", "garbage, application/json", ["application/json"]],
  ];
  for (const [name, header, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(parseAccept(header).map((m) => `${m.type}/${m.subtype}`), want);
    });
  }
});

Deno.test("negotiateOutput() picks the response encoding", async (t) => {
  const cases: [string, string | null, Parameters<typeof negotiateOutput>[1], string][] = [
    ["no Accept", null, {}, "json"],
    ["empty Accept", "", {}, "json"],
    ["wildcard", "*/*", {}, "json"],
    ["application wildcard", "application/*", {}, "json"],
    ["yaml", "application/yaml", {}, "yaml"],
    ["json with charset", "application/json; charset=utf-8", {}, "json"],
    ["protobuf for a kind with protobuf", "application/vnd.kubernetes.protobuf", {
      protobuf: true,
    }, "protobuf"],
    [
      "protobuf falls back for a kind without it",
      "application/vnd.kubernetes.protobuf,application/json",
      {},
      "json",
    ],
    ["weight decides", "application/json;q=0.1,application/yaml", {}, "yaml"],
    ["unknown first, known later", "text/html, application/yaml", {}, "yaml"],
    [
      "Table when the verb serves it is still JSON",
      "application/json;as=Table;g=meta.k8s.io;v=v1",
      { representations: ["Table"] },
      "json",
    ],
    [
      "Table not served falls through to plain JSON",
      "application/json;as=Table;g=meta.k8s.io;v=v1,application/yaml",
      {},
      "yaml",
    ],
    ["watch stream", "application/json;stream=watch", { watch: true }, "json"],
  ];
  for (const [name, accept, opts, want] of cases) {
    await t.step(name, () => assert.equal(negotiateOutput(accept, opts), want));
  }
});

Deno.test("negotiateOutput() answers 406 listing what it serves", async (t) => {
  const cases: [string, string, Parameters<typeof negotiateOutput>[1], string][] = [
    ["text/html", "text/html", {}, "application/json, application/yaml"],
    [
      "protobuf only, kind without it",
      "application/vnd.kubernetes.protobuf",
      {},
      "application/json, application/yaml",
    ],
    [
      "text/plain for a protobuf kind",
      "text/plain",
      { protobuf: true },
      "application/json, application/yaml, application/vnd.kubernetes.protobuf",
    ],
    ["stream outside a watch", "application/json;stream=watch", {}, "application/json"],
  ];
  for (const [name, accept, opts, listed] of cases) {
    await t.step(name, () => {
      assert.throws(() => negotiateOutput(accept, opts), (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, 406);
        assert.equal(e.reason, "NotAcceptable");
        assert.ok(e.status.message?.includes(listed), e.status.message ?? "");
        return true;
      });
    });
  }
});
