import assert from "node:assert/strict";
import {
  decodeBody,
  decodeRequestBody,
  MAX_BODY_BYTES,
  readBody,
} from "../../../apiserver/http/body.ts";
import { decodeEnvelope, encodeObject } from "../../../shared/codec/protobuf/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { assertRejectsStatus } from "../../support/assert_throws_status.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("readBody() reads a request body", async (t) => {
  await t.step("no body is empty", async () => {
    assert.equal((await readBody(new Request("http://x/", { method: "POST" }))).byteLength, 0);
  });
  await t.step("chunks are joined", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc("ab"));
        c.enqueue(enc("cd"));
        c.close();
      },
    });
    const req = new Request("http://x/", { method: "POST", body: stream });
    assert.equal(new TextDecoder().decode(await readBody(req)), "abcd");
  });
  await t.step("exactly the limit is accepted", async () => {
    const req = new Request("http://x/", { method: "POST", body: new Uint8Array(MAX_BODY_BYTES) });
    assert.equal((await readBody(req)).byteLength, MAX_BODY_BYTES);
  });
  await t.step("beyond the limit is 413", async () => {
    const req = new Request("http://x/", {
      method: "POST",
      body: new Uint8Array(MAX_BODY_BYTES + 1),
    });
    await assert.rejects(readBody(req), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 413);
      assert.equal(e.reason, "RequestEntityTooLarge");
      return true;
    });
  });
});

Deno.test("decodeRequestBody() decodes JSON, YAML and Protobuf bodies", async (t) => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } };
  const cases: [string, string | null, Uint8Array, unknown, string][] = [
    ["no Content-Type is JSON", null, enc(JSON.stringify(cm)), cm, "json"],
    ["JSON", "application/json", enc(JSON.stringify(cm)), cm, "json"],
    ["JSON with charset", "application/json; charset=utf-8", enc('{"a":1}'), { a: 1 }, "json"],
    ["YAML", "application/yaml", enc("a: 1\nb: [x, y]\n"), { a: 1, b: ["x", "y"] }, "yaml"],
    ["x-yaml", "application/x-yaml", enc("a: b\n"), { a: "b" }, "yaml"],
    ["YAML with a document marker", "application/yaml", enc("---\na: 1\n"), { a: 1 }, "yaml"],
    [
      "Protobuf",
      "application/vnd.kubernetes.protobuf",
      encodeObject(cm),
      cm,
      "protobuf",
    ],
  ];
  for (const [name, ct, bytes, want, format] of cases) {
    await t.step(name, async () => {
      const got = await decodeRequestBody(ct, bytes);
      assert.deepEqual(got.value, want);
      assert.equal(got.format, format);
      assert.deepEqual(got.duplicates, []);
    });
  }
});

Deno.test("decodeRequestBody() reports duplicated fields only when asked", async (t) => {
  const cases: [string, string, string, string[]][] = [
    ["JSON", "application/json", '{"a":1,"a":2,"b":{"c":1,"c":2}}', [
      'duplicate field "a"',
      'duplicate field "b.c"',
    ]],
    ["YAML", "application/yaml", "a: 1\nb: 2\na: 3\n", ['line 3: key "a" already set in map']],
    ["none", "application/json", '{"a":1}', []],
  ];
  for (const [name, ct, text, want] of cases) {
    await t.step(name, async () => {
      const asked = await decodeRequestBody(ct, enc(text), { findDuplicates: true });
      assert.deepEqual(asked.duplicates, want);
      assert.deepEqual((await decodeRequestBody(ct, enc(text))).duplicates, []);
    });
  }
});

Deno.test("decodeRequestBody() answers 4xx for malformed or unsupported bodies", async (t) => {
  const cases: [string, string | null, Uint8Array, number, RegExp][] = [
    ["empty JSON", "application/json", enc(""), 400, /unexpected end of JSON input/],
    ["whitespace JSON", null, enc("  \n"), 400, /unexpected end of JSON input/],
    ["broken JSON", "application/json", enc("{"), 400, /json parse error/],
    ["empty YAML", "application/yaml", enc(""), 400, /empty/],
    ["two YAML documents", "application/yaml", enc("a: 1\n---\nb: 2\n"), 400, /one YAML/],
    ["broken YAML", "application/yaml", enc("a: [1\n"), 400, /YAML to JSON/],
    ["alias bomb", "application/yaml", enc(aliasBomb()), 400, /YAML to JSON/],
    ["text/plain", "text/plain", enc("x"), 415, /unknown format/],
    ["unparseable Content-Type", "garbage", enc("{}"), 415, /unknown format/],
    ["broken Protobuf", "application/vnd.kubernetes.protobuf", enc("k8s\0\xff"), 400, /EOF/],
    ["Protobuf without the magic", "application/vnd.kubernetes.protobuf", enc("{}"), 400, /./],
  ];
  for (const [name, ct, bytes, code, msg] of cases) {
    await t.step(name, async () => {
      const err = await assertRejectsStatus(decodeRequestBody(ct, bytes), code);
      assert.match(err.message, msg);
    });
  }
  await t.step("Protobuf for a kind without it is 415", async () => {
    const bytes = encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } });
    const err = await assertRejectsStatus(
      decodeRequestBody("application/vnd.kubernetes.protobuf", bytes, { protobuf: false }),
      415,
    );
    assert.match(err.message, /application\/json, application\/yaml$/);
  });
});

Deno.test("decodeRequestBody() words undecodable bodies as kube-apiserver", async (t) => {
  const ns = { kind: "Namespace" };
  const pb = "application/vnd.kubernetes.protobuf";
  const cm = encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } });
  const cases: [string, string, Uint8Array, string][] = [
    [
      "broken JSON",
      "application/json",
      enc('{"metadata": {"name": x}}'),
      "the object provided is unrecognized (must be of type Namespace): couldn't get " +
      "version/kind; json parse error: invalid character 'x' looking for beginning of value " +
      '({"metadata": {"name": x}})',
    ],
    [
      "truncated JSON, summarized",
      "application/json",
      enc('{"metadata": {"name": "a-rather-long-name"'),
      "the object provided is unrecognized (must be of type Namespace): couldn't get " +
      "version/kind; json parse error: unexpected end of JSON input " +
      '({"metadata": {"name": "a-rathe ...)',
    ],
    [
      "empty JSON",
      "application/json",
      enc(""),
      "the object provided is unrecognized (must be of type Namespace): couldn't get " +
      "version/kind; json parse error: unexpected end of JSON input (<empty>)",
    ],
    [
      "broken YAML",
      "application/yaml",
      enc("a: b: c\n"),
      "the object provided is unrecognized (must be of type Namespace): error converting YAML " +
      "to JSON: yaml: line 1: mapping values are not allowed in this context (a: b: c\n)",
    ],
    [
      "Protobuf without the magic",
      pb,
      enc("{}"),
      "the object provided is unrecognized (must be of type Namespace): provided data does not " +
      "appear to be a protobuf message, expected prefix [107 56 115 0] ({})",
    ],
    [
      "truncated Protobuf object",
      pb,
      envelopeWithTruncatedRaw(cm),
      'ConfigMap in version "v1" cannot be handled as a Namespace: unexpected EOF',
    ],
  ];
  for (const [name, ct, bytes, message] of cases) {
    await t.step(name, async () => {
      const err = await assertRejectsStatus(decodeRequestBody(ct, bytes, ns), 400);
      assert.equal(err.message, message);
      assert.equal(err.reason, "BadRequest");
    });
  }
  await t.step("without a kind, Go's message alone", async () => {
    const err = await assertRejectsStatus(decodeRequestBody(null, enc("[1 2]")), 400);
    assert.equal(
      err.message,
      "couldn't get version/kind; json parse error: invalid character '2' after array element",
    );
  });
});

Deno.test("decodeBody() returns the decoded value", async () => {
  assert.deepEqual(await decodeBody("application/yaml", enc("a: 1")), { a: 1 });
});

/** `k8s\0` + Unknown{typeMeta, raw} of `bytes`, its raw cut short (lengths below 128). */
function envelopeWithTruncatedRaw(bytes: Uint8Array): Uint8Array {
  const env = decodeEnvelope(bytes);
  const tm = [...enc(env.apiVersion), ...enc(env.kind)];
  const typeMeta = [0x0a, env.apiVersion.length, ...enc(env.apiVersion)].concat(
    [0x12, env.kind.length, ...enc(env.kind)],
  );
  const raw = env.raw.subarray(0, env.raw.length - 3);
  assert.ok(tm.length < 120 && raw.length < 128);
  return new Uint8Array([
    ...enc("k8s\0"),
    0x0a,
    typeMeta.length,
    ...typeMeta,
    0x12,
    raw.length,
    ...raw,
  ]);
}

function aliasBomb(): string {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 0; i < 8; i++) {
    const prev = String.fromCharCode(97 + i);
    const next = String.fromCharCode(98 + i);
    lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(",")}]`);
  }
  return lines.join("\n") + "\n";
}
