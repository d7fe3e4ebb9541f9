/**
 * End to end with the real kubectl against a custom resource whose schema carries CEL rules and
 * a map list: a rule rejecting a write with its message, a transition rule (`oldSelf`)
 * rejecting an update, `kubectl explain` of the kind, and `apply --server-side` by two managers
 * that share the items of a list keyed by `name`. Skips where kubectl is absent.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { eventually } from "../support/eventually.ts";
import { startTestServer } from "../support/test_server.ts";

const GROUP = "rules.example.com";

/** A Gateway kind: replicas bounded by a rule, an immutable mode, ports keyed by name. */
function gatewayCrd() {
  const port = {
    type: "object",
    required: ["name"],
    properties: { name: { type: "string" }, port: { type: "integer" } },
  };
  const spec = {
    type: "object",
    description: "The desired gateway.",
    "x-kubernetes-validations": [
      { rule: "self.replicas <= 10", message: "replicas must be at most 10" },
      { rule: "self.mode == oldSelf.mode", message: "mode is immutable" },
    ],
    properties: {
      mode: { type: "string", description: "How traffic is routed." },
      replicas: { type: "integer" },
      ports: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: port,
      },
    },
  };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `gateways.${GROUP}` },
    spec: {
      group: GROUP,
      names: { plural: "gateways", singular: "gateway", kind: "Gateway" },
      scope: "Namespaced",
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
      }],
    },
  };
}

function gateway(spec: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: `${GROUP}/v1`,
    kind: "Gateway",
    metadata: { name: "gw", namespace: "default" },
    spec,
  });
}

Deno.test({
  name: "kubectl meets a custom resource's CEL rules, explain and shared server-side apply",
  ignore: skipWithoutKubectl("the kubectl custom resource rule tests"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      ok(await kubectl(k, ["apply", "-f", "-"], JSON.stringify(gatewayCrd())));
      ok(await kubectl(k, ["wait", "--for=condition=Established", `crd/gateways.${GROUP}`]));
      // Discovery is cached by kubectl: the first apply may need a fresh one.
      await eventually("the first manager's apply", async () => {
        const r = await kubectl(
          k,
          ["apply", "--server-side", "--field-manager=a", "-f", "-"],
          gateway({
            mode: "http",
            replicas: 2,
            ports: [{ name: "web", port: 80 }],
          }),
        );
        return r.code === 0;
      }, { timeoutMs: 60_000 });
      ok(
        await kubectl(
          k,
          ["apply", "--server-side", "--field-manager=b", "-f", "-"],
          gateway({ ports: [{ name: "admin", port: 9000 }] }),
        ),
      );
      const got = JSON.parse(ok(await kubectl(k, ["get", "gateway", "gw", "-o", "json"])));
      assert.deepEqual(
        got.spec.ports.map((p: { name: string }) => p.name).sort(),
        ["admin", "web"],
        "both managers' ports are kept",
      );

      const tooMany = await kubectl(k, [
        "patch",
        "gateway",
        "gw",
        "--type=merge",
        "-p",
        '{"spec":{"replicas":11}}',
      ]);
      assert.notEqual(tooMany.code, 0);
      assert.match(tooMany.stderr, /replicas must be at most 10/);
      const modeChange = await kubectl(k, [
        "patch",
        "gateway",
        "gw",
        "--type=merge",
        "-p",
        '{"spec":{"mode":"tcp"}}',
      ]);
      assert.notEqual(modeChange.code, 0);
      assert.match(modeChange.stderr, /mode is immutable/);

      const explained = await eventually("kubectl explain of the kind", async () => {
        const r = await kubectl(k, ["explain", "gateways.spec"]);
        return r.code === 0 ? r.stdout : undefined;
      }, { timeoutMs: 60_000 });
      assert.match(explained, /The desired gateway\./);
      assert.match(explained, /mode\s+<string>/);
      assert.match(explained, /How traffic is routed\./);
    } finally {
      await s.close();
    }
  },
});
