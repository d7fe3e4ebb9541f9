import { policyV1Messages } from "../../../../shared/codec/protobuf/schema/policy_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "policyV1Messages",
  messages: policyV1Messages,
  gv: "policy/v1",
  // [message, json, number, keepZero], read from policy/v1 generated.proto and types.go (v0.32).
  fields: [
    ["policy.v1.PodDisruptionBudgetSpec", "maxUnavailable", 3, false],
    ["policy.v1.PodDisruptionBudgetSpec", "unhealthyPodEvictionPolicy", 4, true],
    ["policy.v1.PodDisruptionBudgetStatus", "disruptedPods", 2, false],
    ["policy.v1.PodDisruptionBudgetStatus", "expectedPods", 6, true],
    ["policy.v1.PodDisruptionBudgetStatus", "conditions", 7, false],
    ["policy.v1.Eviction", "deleteOptions", 2, false],
  ],
  kinds: [
    "PodDisruptionBudget",
    "PodDisruptionBudgetList",
    "Eviction",
    "Status",
    "DeleteOptions",
  ],
  fixture: "policy_v1.json",
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  kubectl: [
    [
      "create poddisruptionbudget pdb --selector=app=web --min-available=50%",
      "create_pdb.bin",
      {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": { "name": "pdb", "creationTimestamp": null },
        "spec": { "minAvailable": "50%", "selector": { "matchLabels": { "app": "web" } } },
        "status": {
          "disruptionsAllowed": 0,
          "currentHealthy": 0,
          "desiredHealthy": 0,
          "expectedPods": 0,
        },
      },
    ],
  ],
});
