import assert from "node:assert/strict";
import {
  AGGREGATED_V2,
  type AggregatedGroups,
  Discovery,
} from "../../../apiserver/http/discovery.ts";
import { ALL_VERBS } from "../../../apiserver/registry/generic/kind.ts";
import {
  builtinPriority,
  CUSTOM_RESOURCE_PRIORITY,
} from "../../../apiserver/aggregator/priorities.ts";
import { compareKubeAwareVersions } from "../../../apiserver/http/version_priority.ts";
import { withRegistryHarness } from "../../support/registry_harness.ts";

function aggregated(remote: ReturnType<AggregatedGroups["remote"]>): AggregatedGroups {
  return {
    remote: () => remote,
    priority: (g, v) =>
      g === "wardle.example.com"
        ? { group: 1500, version: v === "v1beta1" ? 20 : 10 }
        : builtinPriority(g, v) ?? CUSTOM_RESOURCE_PRIORITY,
    compareVersions: compareKubeAwareVersions,
  };
}

Deno.test("Discovery.handle() with the aggregator lists remote groups in kube's order", async () => {
  await withRegistryHarness("discovery_aggregated_test_", async ({ registry }) => {
    const remote = [
      { group: "wardle.example.com", version: "v1alpha1", stale: false, resources: [] },
      {
        group: "wardle.example.com",
        version: "v1beta1",
        stale: true,
        resources: [
          {
            name: "flunders",
            singularName: "flunder",
            namespaced: true,
            kind: "Flunder",
            verbs: ["get"],
          },
          {
            name: "flunders/status",
            singularName: "",
            namespaced: true,
            kind: "Flunder",
            verbs: ["get"],
          },
        ],
      },
      { group: "unfetched.example.com", version: "v1", stale: false },
    ];
    const discovery = new Discovery(registry, () => new Set(ALL_VERBS), aggregated(remote));
    const get = async (accept?: string) => {
      const url = new URL("https://127.0.0.1:6443/apis");
      const res = await discovery.handle(
        new Request(url, { headers: accept ? { accept } : {} }),
        url,
      );
      return await res!.json();
    };
    const legacy = await get();
    const names = legacy.groups.map((g: { name: string }) => g.name);
    assert.deepEqual(names.slice(0, 4), [
      "apiregistration.k8s.io",
      "apps",
      "events.k8s.io",
      "authentication.k8s.io",
    ]);
    assert.ok(names.indexOf("wardle.example.com") < names.indexOf("unfetched.example.com"));
    const wardle = legacy.groups.find((g: { name: string }) => g.name === "wardle.example.com");
    assert.equal(wardle.preferredVersion.version, "v1beta1");
    const autoscaling = legacy.groups.find((g: { name: string }) => g.name === "autoscaling");
    assert.deepEqual(autoscaling.versions.map((v: { version: string }) => v.version), ["v2", "v1"]);
    const v2 = await get(AGGREGATED_V2);
    const items = v2.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    assert.ok(!items.includes("unfetched.example.com"), "an unfetched document is left out");
    const w = v2.items.find((i: { metadata: { name: string } }) =>
      i.metadata.name === "wardle.example.com"
    );
    assert.deepEqual(w.versions[0], {
      version: "v1beta1",
      freshness: "Stale",
      resources: [{
        resource: "flunders",
        responseKind: { group: "", version: "", kind: "Flunder" },
        scope: "Namespaced",
        singularResource: "flunder",
        verbs: ["get"],
        subresources: [{
          subresource: "status",
          responseKind: { group: "", version: "", kind: "Flunder" },
          verbs: ["get"],
        }],
      }],
    });
  });
});

Deno.test("compareKubeAwareVersions() orders GA, beta, alpha, then other strings", () => {
  const versions = [
    "foo10",
    "v1",
    "v11alpha2",
    "v10beta3",
    "v3beta1",
    "v12alpha1",
    "foo1",
    "v2",
    "v10",
    "v11beta2",
  ];
  assert.deepEqual(versions.sort(compareKubeAwareVersions), [
    "v10",
    "v2",
    "v1",
    "v11beta2",
    "v10beta3",
    "v3beta1",
    "v12alpha1",
    "v11alpha2",
    "foo1",
    "foo10",
  ]);
});
