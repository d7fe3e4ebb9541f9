import assert from "node:assert/strict";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  protobufMessageName,
} from "../../../../shared/codec/protobuf/mod.ts";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";
import { networkingV1Messages } from "../../../../shared/codec/protobuf/schema/networking_v1.ts";

const testdata = new URL("../../../testdata/protobuf/", import.meta.url);
const GV = "networking.k8s.io/v1";

function readJson(name: string): Record<string, unknown>[] {
  return JSON.parse(Deno.readTextFileSync(new URL(name, testdata)));
}

Deno.test("networkingV1Messages resolves every referenced message, with unique field numbers", () => {
  for (const name of Object.keys(networkingV1Messages)) {
    const info = messageInfo(name);
    assert.ok(info, name);
    assert.equal(new Set(info.fields.map((f) => f.no)).size, info.fields.length, name);
    assert.equal(new Set(info.fields.map((f) => f.json)).size, info.fields.length, name);
    for (const f of info.fields) {
      if (f.kind !== "message") continue;
      const ref = f.message ?? "";
      assert.ok(SPECIAL_MESSAGES.has(ref) || messageInfo(ref), `${name}.${f.json} -> ${ref}`);
    }
  }
});

Deno.test("networkingV1Messages carries the field numbers and JSON rules of kubernetes/api", async (t) => {
  // [message, json, number, keepZero], read from networking/v1 generated.proto and types.go (v0.32).
  const cases: [string, string, number, boolean][] = [
    ["networking.v1.IngressSpec", "ingressClassName", 4, true],
    ["networking.v1.IngressBackend", "service", 4, false],
    ["networking.v1.IngressBackend", "resource", 3, false],
    ["networking.v1.HTTPIngressPath", "pathType", 3, true],
    ["networking.v1.IngressLoadBalancerIngress", "ports", 4, false],
    ["networking.v1.ServiceBackendPort", "number", 2, false],
    ["networking.v1.NetworkPolicyPort", "endPort", 3, true],
    ["networking.v1.NetworkPolicySpec", "policyTypes", 4, false],
    ["networking.v1.IngressClassParametersReference", "namespace", 5, true],
  ];
  for (const [message, json, no, keepZero] of cases) {
    await t.step(`${message}.${json}`, () => {
      const f = messageInfo(message)?.fields.find((x) => x.json === json);
      assert.equal(f?.no, no);
      assert.equal(f?.keepZero, keepZero);
    });
  }
});

Deno.test("hasProtobuf() accepts every kind networking.k8s.io/v1 registers", () => {
  const kinds = [
    "Ingress",
    "IngressList",
    "IngressClass",
    "IngressClassList",
    "NetworkPolicy",
    "NetworkPolicyList",
    "Status",
    "DeleteOptions",
  ];
  for (const kind of kinds) {
    assert.ok(hasProtobuf(GV, kind), kind);
    assert.ok(messageInfo(protobufMessageName(GV, kind) ?? ""), kind);
  }
});

Deno.test("encodeObject() round trips networking.k8s.io/v1 objects losslessly", async (t) => {
  for (const [i, obj] of readJson("networking_v1.json").entries()) {
    await t.step(`${i}: ${obj.kind} ${(obj.metadata as { name?: string }).name ?? ""}`, () => {
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
    });
  }
});

Deno.test("decodeObject() decodes what kubectl 1.32 sends for networking.k8s.io/v1 create commands", async (t) => {
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  const cases: [string, string, Record<string, unknown>][] = [
    [
      "create ingress site --class=nginx --rule=foo.com/bar*=svc:8080,tls=cert",
      "create_ingress.bin",
      {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": { "name": "site", "creationTimestamp": null },
        "spec": {
          "ingressClassName": "nginx",
          "tls": [{ "hosts": ["foo.com"], "secretName": "cert" }],
          "rules": [{
            "host": "foo.com",
            "http": {
              "paths": [{
                "path": "/bar",
                "pathType": "Prefix",
                "backend": { "service": { "name": "svc", "port": { "number": 8080 } } },
              }],
            },
          }],
        },
        "status": { "loadBalancer": {} },
      },
    ],
  ];
  for (const [command, file, expected] of cases) {
    await t.step(command, () => {
      const obj = decodeObject(Deno.readFileSync(new URL(`kubectl/${file}`, testdata)));
      assert.deepStrictEqual(obj, expected);
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), expected);
    });
  }
});
