import { appsV1Messages } from "../../../../shared/codec/protobuf/schema/apps_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "appsV1Messages",
  messages: appsV1Messages,
  gv: "apps/v1",
  // [message, json, number, keepZero], read from apps/v1 generated.proto and types.go (v0.32).
  fields: [
    ["apps.v1.DeploymentSpec", "progressDeadlineSeconds", 9, true],
    ["apps.v1.DeploymentSpec", "paused", 7, false],
    ["apps.v1.DeploymentStatus", "readyReplicas", 7, false],
    ["apps.v1.DeploymentStatus", "collisionCount", 8, true],
    ["apps.v1.DeploymentCondition", "lastUpdateTime", 6, false],
    ["apps.v1.StatefulSetSpec", "ordinals", 11, false],
    ["apps.v1.StatefulSetSpec", "serviceName", 5, true],
    ["apps.v1.StatefulSetStatus", "availableReplicas", 11, true],
    ["apps.v1.DaemonSetSpec", "revisionHistoryLimit", 6, true],
    ["apps.v1.DaemonSetStatus", "numberMisscheduled", 2, true],
    ["apps.v1.ReplicaSetSpec", "minReadySeconds", 4, false],
    ["apps.v1.ControllerRevision", "revision", 3, true],
  ],
  kinds: [
    "Deployment",
    "DeploymentList",
    "StatefulSet",
    "StatefulSetList",
    "DaemonSet",
    "DaemonSetList",
    "ReplicaSet",
    "ReplicaSetList",
    "ControllerRevision",
    "ControllerRevisionList",
    "Status",
    "DeleteOptions",
  ],
  fixture: "apps_v1.json",
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  kubectl: [
    [
      "create deployment web --image=nginx:1.27 --replicas=3 --port=80",
      "create_deployment.bin",
      {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": { "name": "web", "creationTimestamp": null, "labels": { "app": "web" } },
        "spec": {
          "replicas": 3,
          "selector": { "matchLabels": { "app": "web" } },
          "template": {
            "metadata": { "creationTimestamp": null, "labels": { "app": "web" } },
            "spec": {
              "containers": [{
                "name": "nginx",
                "image": "nginx:1.27",
                "ports": [{ "containerPort": 80 }],
                "resources": {},
              }],
            },
          },
          "strategy": {},
        },
        "status": {},
      },
    ],
  ],
});
