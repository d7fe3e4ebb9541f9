import assert from "node:assert/strict";
import {
  decodeEnvelope,
  decodeObject,
  encodeObject,
  PROTOBUF_MAGIC,
  ProtobufError,
} from "../../../../shared/codec/protobuf/mod.ts";

const testdata = new URL("../../../testdata/protobuf/", import.meta.url);

function readJson(name: string): unknown {
  return JSON.parse(Deno.readTextFileSync(new URL(name, testdata)));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  return new Uint8Array(clean.match(/../g)!.map((h) => parseInt(h, 16)));
}

function utf8Hex(s: string): string {
  return hex(new TextEncoder().encode(s));
}

/** A length-delimited field (wire type 2) numbered `no` holding `bodyHex`, in hex. */
function field(no: number, bodyHex: string): string {
  const len = bodyHex.length / 2;
  assert.ok(len < 128);
  return ((no << 3) | 2).toString(16).padStart(2, "0") + len.toString(16).padStart(2, "0") +
    bodyHex;
}

function assertProtobufError(fn: () => unknown, reason: string): void {
  assert.throws(fn, (e: unknown) => e instanceof ProtobufError && e.reason === reason);
}

Deno.test("encodeObject() round trips a Pod as kubectl and the kubelet send it, losslessly", () => {
  const pod = readJson("pod.json") as Record<string, unknown>;
  const bytes = encodeObject(pod);
  assert.deepEqual(Array.from(bytes.subarray(0, 4)), Array.from(PROTOBUF_MAGIC));
  assert.deepStrictEqual(decodeObject(bytes), pod);
});

Deno.test("encodeObject() round trips a Node as the kubelet sends it, losslessly", () => {
  const node = readJson("node.json") as Record<string, unknown>;
  assert.deepStrictEqual(decodeObject(encodeObject(node)), node);
});

Deno.test("encodeObject() round trips every built-in kind losslessly", async (t) => {
  const objects = readJson("objects.json") as Record<string, unknown>[];
  for (const [i, obj] of objects.entries()) {
    await t.step(`${i}: ${obj.apiVersion} ${obj.kind}`, () => {
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
    });
  }
});

Deno.test("encodeObject() writes the golden bytes of a small Namespace", () => {
  const ns = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "demo" },
    spec: { finalizers: ["kubernetes"] },
  };
  const expected = [
    "6b387300", // magic k8s\0
    "0a0f", // Unknown.typeMeta (1, LEN), 15 bytes
    "0a02" + utf8Hex("v1"), //   TypeMeta.apiVersion (1, LEN)
    "1209" + utf8Hex("Namespace"), //   TypeMeta.kind (2, LEN)
    "1216", // Unknown.raw (2, LEN), 22 bytes: the core.v1.Namespace message
    "0a06", //   Namespace.metadata (1, LEN), 6 bytes
    "0a04" + utf8Hex("demo"), //     ObjectMeta.name (1, LEN)
    "120c", //   Namespace.spec (2, LEN), 12 bytes
    "0a0a" + utf8Hex("kubernetes"), //     NamespaceSpec.finalizers (1, LEN)
    "1a00", // Unknown.contentEncoding (3, LEN), empty, as Go writes it
    "2200", // Unknown.contentType (4, LEN), empty
  ].join("");
  assert.equal(hex(encodeObject(ns)), expected);
  assert.deepStrictEqual(decodeObject(fromHex(expected)), ns);
});

Deno.test("decodeObject() reads Go-encoded scalars, times and quantities by their field numbers", () => {
  const metadata = field(
    1,
    field(1, utf8Hex("n")) + // ObjectMeta.name (1)
      field(8, "0880e2cfaa06" + "1000") + // ObjectMeta.creationTimestamp (8): seconds 1700000000, nanos 0
      "3800" + // ObjectMeta.generation (7, varint) 0: omitempty, dropped
      field(2, ""),
  ); // ObjectMeta.generateName (2) "": omitempty, dropped
  const spec = field(2, "2001"); // Node.spec (2): NodeSpec.unschedulable (4, varint) true
  const status = field(
    3, // Node.status (3)
    field(1, field(1, utf8Hex("cpu")) + field(2, field(1, utf8Hex("2")))) + // capacity (1) entry
      field(6, field(1, "0800")), // daemonEndpoints (6).kubeletEndpoint (1).Port (1) 0: kept
  );
  const envelope = "6b387300" + field(1, field(1, utf8Hex("v1")) + field(2, utf8Hex("Node"))) +
    field(2, metadata + spec + status);
  assert.deepStrictEqual(decodeObject(fromHex(envelope)), {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n", creationTimestamp: "2023-11-14T22:13:20Z" },
    spec: { unschedulable: true },
    status: { capacity: { cpu: "2" }, daemonEndpoints: { kubeletEndpoint: { Port: 0 } } },
  });
});

Deno.test("decodeObject() decodes what kubectl 1.32 sends", async (t) => {
  const cases: [string, Record<string, unknown>][] = [
    ["create_namespace.bin", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "demo", creationTimestamp: null },
      spec: {},
      status: {},
    }],
    ["create_configmap.bin", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x", creationTimestamp: null },
      data: { a: "b", c: "d" },
    }],
    ["create_secret.bin", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", creationTimestamp: null },
      data: { k: "dg==" },
      type: "Opaque",
    }],
    ["auth_can_i.bin", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: "default", verb: "list", resource: "pods" } },
      status: { allowed: false },
    }],
    ["auth_can_i_list.bin", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectRulesReview",
      metadata: { creationTimestamp: null },
      spec: { namespace: "default" },
      status: { incomplete: false },
    }],
    ["auth_whoami.bin", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
      metadata: { creationTimestamp: null },
      status: { userInfo: {} },
    }],
  ];
  for (const [file, expected] of cases) {
    await t.step(file, () => {
      const bytes = Deno.readFileSync(new URL(`kubectl/${file}`, testdata));
      const obj = decodeObject(bytes);
      assert.deepStrictEqual(obj, expected);
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), expected);
    });
  }
});

Deno.test("decodeObject() rejects a body without the k8s\\0 prefix", async (t) => {
  const cases: [string, Uint8Array][] = [
    ["JSON", new TextEncoder().encode('{"apiVersion":"v1","kind":"Namespace"}')],
    ["empty", new Uint8Array(0)],
    ["short", new Uint8Array([0x6b, 0x38, 0x73])],
    ["wrong last byte", new Uint8Array([0x6b, 0x38, 0x73, 0x01, 0x0a, 0x00])],
  ];
  for (const [name, bytes] of cases) {
    await t.step(name, () => assertProtobufError(() => decodeObject(bytes), "BadPrefix"));
  }
});

Deno.test("decodeObject() rejects kinds without Protobuf and malformed bytes", async (t) => {
  await t.step("custom resource", () => {
    const env = "6b387300" +
      field(1, field(1, utf8Hex("example.com/v1")) + field(2, utf8Hex("Widget"))) + field(2, "");
    assertProtobufError(() => decodeObject(fromHex(env)), "UnknownKind");
  });
  await t.step("truncated", () => {
    const good = encodeObject({ apiVersion: "v1", kind: "Namespace", metadata: { name: "x" } });
    assertProtobufError(() => decodeObject(good.subarray(0, good.length - 6)), "Malformed");
  });
  await t.step("wrong wire type", () => {
    const env = "6b387300" + "0a0f" + "0a02" + utf8Hex("v1") + "1209" + utf8Hex("Namespace") +
      "1202" + "0801"; // metadata (1) as a varint
    assertProtobufError(() => decodeObject(fromHex(env)), "Malformed");
  });
  await t.step("content encoding", () => {
    const env = "6b387300" + "0a0f" + "0a02" + utf8Hex("v1") + "1209" + utf8Hex("Namespace") +
      "1200" + "1a04" + utf8Hex("gzip");
    assertProtobufError(() => decodeObject(fromHex(env)), "Malformed");
  });
});

Deno.test("encodeObject() rejects kinds without Protobuf and values of the wrong type", async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["custom resource", { apiVersion: "example.com/v1", kind: "Widget" }, "UnknownKind"],
    ["no kind", { apiVersion: "v1" }, "InvalidValue"],
    ["string as number", {
      apiVersion: "v1",
      kind: "Pod",
      spec: { containers: [{ name: "c", ports: [{ containerPort: "80" }] }] },
    }, "InvalidValue"],
    [
      "bad time",
      { apiVersion: "v1", kind: "Pod", metadata: { creationTimestamp: "yesterday" } },
      "InvalidValue",
    ],
    ["bad base64", { apiVersion: "v1", kind: "Secret", data: { k: "!!" } }, "InvalidValue"],
    ["int32 overflow", { apiVersion: "v1", kind: "Event", count: 2 ** 31 }, "InvalidValue"],
  ];
  for (const [name, obj, reason] of cases) {
    await t.step(name, () => assertProtobufError(() => encodeObject(obj), reason));
  }
});

Deno.test("decodeEnvelope() exposes the typeMeta and raw bytes", () => {
  const env = decodeEnvelope(encodeObject({ apiVersion: "v1", kind: "Namespace", metadata: {} }));
  assert.equal(env.apiVersion, "v1");
  assert.equal(env.kind, "Namespace");
  assert.equal(hex(env.raw), "0a00");
  assert.equal(env.contentEncoding, "");
  assert.equal(env.contentType, "");
});
