/**
 * The schema declaration of apps/v1 (Deployment, ReplicaSet, StatefulSet, DaemonSet,
 * ControllerRevision): required fields, enums, defaults and merge markers as Kubernetes 1.32's
 * OpenAPI has them. Field names and types come from the apps/v1 descriptors.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";

const UPDATE_STRATEGY = ["OnDelete", "RollingUpdate"];
const CONDITION_STATUS = ["False", "True", "Unknown"];
const RETENTION = ["Delete", "Retain"];

/** apps/v1. */
export const appsV1Schema: GroupSchema = {
  package: "apps.v1",
  group: "apps",
  version: "v1",
  openApiPrefix: "io.k8s.api.apps.v1",
  kinds: [
    "Deployment",
    "DeploymentList",
    "ReplicaSet",
    "ReplicaSetList",
    "StatefulSet",
    "StatefulSetList",
    "DaemonSet",
    "DaemonSetList",
    "ControllerRevision",
    "ControllerRevisionList",
  ],
  types: {
    Deployment: {
      description: "Deployment enables declarative updates for Pods and ReplicaSets.",
      fields: {
        spec: { description: "Specification of the desired behavior of the Deployment." },
        status: { description: "Most recently observed status of the Deployment." },
      },
    },
    DeploymentList: { required: ["items"] },
    DeploymentSpec: {
      required: ["selector", "template"],
      fields: {
        replicas: { description: "Number of desired pods. Defaults to 1." },
        selector: { description: "Label selector for pods; must match the template's labels." },
        template: { description: "Template describes the pods that will be created." },
        strategy: {
          patchStrategy: "retainKeys",
          description: "The deployment strategy to use to replace existing pods with new ones.",
        },
        revisionHistoryLimit: { description: "Old ReplicaSets kept for rollback. Defaults to 10." },
        progressDeadlineSeconds: { description: "Seconds before a stalled rollout is reported." },
      },
    },
    DeploymentStrategy: {
      description: "DeploymentStrategy describes how to replace existing pods with new ones.",
      fields: {
        type: {
          enum: ["Recreate", "RollingUpdate"],
          description:
            'Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.',
        },
        rollingUpdate: {
          description:
            "Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.",
        },
      },
    },
    DeploymentStatus: { fields: { conditions: mergeList("type") } },
    DeploymentCondition: {
      required: ["type", "status"],
      fields: { status: { enum: CONDITION_STATUS } },
    },
    ReplicaSet: {
      description: "ReplicaSet ensures that a specified number of pod replicas are running.",
    },
    ReplicaSetList: { required: ["items"] },
    ReplicaSetSpec: { required: ["selector"] },
    ReplicaSetStatus: { required: ["replicas"], fields: { conditions: mergeList("type") } },
    ReplicaSetCondition: {
      required: ["type", "status"],
      fields: { status: { enum: CONDITION_STATUS } },
    },
    StatefulSet: {
      description: "StatefulSet represents a set of pods with consistent identities.",
    },
    StatefulSetList: { required: ["items"] },
    StatefulSetSpec: {
      required: ["selector", "template"],
      fields: {
        volumeClaimTemplates: ATOMIC_LIST,
        podManagementPolicy: { enum: ["OrderedReady", "Parallel"] },
      },
    },
    StatefulSetUpdateStrategy: { fields: { type: { enum: UPDATE_STRATEGY } } },
    StatefulSetPersistentVolumeClaimRetentionPolicy: {
      fields: { whenDeleted: { enum: RETENTION }, whenScaled: { enum: RETENTION } },
    },
    StatefulSetStatus: { required: ["replicas"], fields: { conditions: mergeList("type") } },
    StatefulSetCondition: {
      required: ["type", "status"],
      fields: { status: { enum: CONDITION_STATUS } },
    },
    DaemonSet: {
      description: "DaemonSet represents the configuration of a daemon set (a pod per node).",
    },
    DaemonSetList: { required: ["items"] },
    DaemonSetSpec: { required: ["selector", "template"] },
    DaemonSetUpdateStrategy: { fields: { type: { enum: UPDATE_STRATEGY } } },
    DaemonSetStatus: {
      required: [
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
      ],
      fields: { conditions: mergeList("type") },
    },
    DaemonSetCondition: {
      required: ["type", "status"],
      fields: { status: { enum: CONDITION_STATUS } },
    },
    ControllerRevision: {
      description: "ControllerRevision is an immutable snapshot of state data.",
      required: ["revision"],
    },
    ControllerRevisionList: { required: ["items"] },
  },
};
