import assert from "node:assert/strict";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  protobufMessageName,
} from "../../../../shared/codec/protobuf/mod.ts";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";
import { rbacV1Messages } from "../../../../shared/codec/protobuf/schema/rbac_v1.ts";

const testdata = new URL("../../../testdata/protobuf/", import.meta.url);
const GV = "rbac.authorization.k8s.io/v1";

function readJson(name: string): Record<string, unknown>[] {
  return JSON.parse(Deno.readTextFileSync(new URL(name, testdata)));
}

Deno.test("rbacV1Messages resolves every referenced message, with unique field numbers", () => {
  for (const name of Object.keys(rbacV1Messages)) {
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

Deno.test("rbacV1Messages carries the field numbers and JSON rules of kubernetes/api", async (t) => {
  // [message, json, number, keepZero], read from rbac/v1 generated.proto and types.go (v0.32).
  const cases: [string, string, number, boolean][] = [
    ["rbac.v1.ClusterRole", "aggregationRule", 3, false],
    ["rbac.v1.PolicyRule", "nonResourceURLs", 5, false],
    ["rbac.v1.PolicyRule", "resourceNames", 4, false],
    ["rbac.v1.Subject", "apiGroup", 2, false],
    ["rbac.v1.Subject", "name", 3, true],
    ["rbac.v1.Subject", "namespace", 4, false],
    ["rbac.v1.RoleRef", "apiGroup", 1, true],
    ["rbac.v1.RoleRef", "kind", 2, true],
    ["rbac.v1.RoleBinding", "roleRef", 3, false],
    ["rbac.v1.AggregationRule", "clusterRoleSelectors", 1, false],
  ];
  for (const [message, json, no, keepZero] of cases) {
    await t.step(`${message}.${json}`, () => {
      const f = messageInfo(message)?.fields.find((x) => x.json === json);
      assert.equal(f?.no, no);
      assert.equal(f?.keepZero, keepZero);
    });
  }
});

Deno.test("hasProtobuf() accepts every kind rbac.authorization.k8s.io/v1 registers", () => {
  const kinds = [
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Status",
    "DeleteOptions",
  ];
  for (const kind of kinds) {
    assert.ok(hasProtobuf(GV, kind), kind);
    assert.ok(messageInfo(protobufMessageName(GV, kind) ?? ""), kind);
  }
  assert.equal(hasProtobuf(GV, "PolicyRule"), false);
  assert.equal(hasProtobuf("rbac.authorization.k8s.io/v1beta1", "Role"), false);
});

Deno.test("encodeObject() round trips rbac.authorization.k8s.io/v1 objects losslessly", async (t) => {
  for (const [i, obj] of readJson("rbac_v1.json").entries()) {
    await t.step(`${i}: ${obj.kind} ${(obj.metadata as { name?: string }).name ?? ""}`, () => {
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
    });
  }
});

Deno.test("decodeObject() drops empty rbac lists, which Protobuf cannot tell from absent ones", () => {
  // Go decodes them as nil slices too (and renders `"rules": null`, which this codec omits).
  const obj = { apiVersion: GV, kind: "ClusterRole", metadata: { name: "x" }, rules: [] };
  assert.deepStrictEqual(decodeObject(encodeObject(obj)), {
    apiVersion: GV,
    kind: "ClusterRole",
    metadata: { name: "x" },
  });
});

Deno.test("decodeObject() decodes what kubectl 1.32 sends for rbac create commands", async (t) => {
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  const roleRef = (kind: string, name: string) => ({
    apiGroup: "rbac.authorization.k8s.io",
    kind,
    name,
  });
  const cases: [string, string, Record<string, unknown>][] = [
    ["create rolebinding x --clusterrole=view --user=jane -n default", "create_rolebinding.bin", {
      apiVersion: GV,
      kind: "RoleBinding",
      metadata: { name: "x", namespace: "default", creationTimestamp: null },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" }],
      roleRef: roleRef("ClusterRole", "view"),
    }],
    ["create clusterrole r --verb=get --resource=pods", "create_clusterrole.bin", {
      apiVersion: GV,
      kind: "ClusterRole",
      metadata: { name: "r", creationTimestamp: null },
      rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    }],
    [
      "create clusterrolebinding crb --clusterrole=view --group=devs --serviceaccount=default:sa",
      "create_clusterrolebinding.bin",
      {
        apiVersion: GV,
        kind: "ClusterRoleBinding",
        metadata: { name: "crb", creationTimestamp: null },
        subjects: [
          { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "devs" },
          { kind: "ServiceAccount", name: "sa", namespace: "default" },
        ],
        roleRef: roleRef("ClusterRole", "view"),
      },
    ],
    [
      "create role ro --verb=get,list --resource=pods,configmaps --resource-name=a",
      "create_role.bin",
      {
        apiVersion: GV,
        kind: "Role",
        metadata: { name: "ro", creationTimestamp: null },
        rules: [{
          verbs: ["get", "list"],
          apiGroups: [""],
          resources: ["pods", "configmaps"],
          resourceNames: ["a"],
        }],
      },
    ],
    [
      // Go's JSON also has `"rules": null` here (a nil slice without omitempty).
      "create clusterrole agg --aggregation-rule=team=a",
      "create_clusterrole_aggregation.bin",
      {
        apiVersion: GV,
        kind: "ClusterRole",
        metadata: { name: "agg", creationTimestamp: null },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: "a" } }] },
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
