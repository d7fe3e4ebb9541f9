/**
 * Message descriptors of apps/v1 (k8s.io/api/apps/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of apps/v1 (k8s.io/api/apps/v1). */
export const appsV1Messages: MessageTable = {
  "apps.v1.ControllerRevision": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "data", "runtime.RawExtension"],
    [3, "revision", "int64", 1],
  ],
  "apps.v1.ControllerRevisionList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]apps.v1.ControllerRevision"],
  ],
  "apps.v1.DaemonSet": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "apps.v1.DaemonSetSpec"],
    [3, "status", "apps.v1.DaemonSetStatus"],
  ],
  "apps.v1.DaemonSetCondition": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
    [3, "lastTransitionTime", "meta.v1.Time"],
    [4, "reason", "string"],
    [5, "message", "string"],
  ],
  "apps.v1.DaemonSetList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]apps.v1.DaemonSet"],
  ],
  "apps.v1.DaemonSetSpec": [
    [1, "selector", "meta.v1.LabelSelector"],
    [2, "template", "core.v1.PodTemplateSpec"],
    [3, "updateStrategy", "apps.v1.DaemonSetUpdateStrategy"],
    [4, "minReadySeconds", "int32"],
    [6, "revisionHistoryLimit", "int32", 1],
  ],
  "apps.v1.DaemonSetStatus": [
    [1, "currentNumberScheduled", "int32", 1],
    [2, "numberMisscheduled", "int32", 1],
    [3, "desiredNumberScheduled", "int32", 1],
    [4, "numberReady", "int32", 1],
    [5, "observedGeneration", "int64"],
    [6, "updatedNumberScheduled", "int32"],
    [7, "numberAvailable", "int32"],
    [8, "numberUnavailable", "int32"],
    [9, "collisionCount", "int32", 1],
    [10, "conditions", "[]apps.v1.DaemonSetCondition"],
  ],
  "apps.v1.DaemonSetUpdateStrategy": [
    [1, "type", "string"],
    [2, "rollingUpdate", "apps.v1.RollingUpdateDaemonSet"],
  ],
  "apps.v1.Deployment": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "apps.v1.DeploymentSpec"],
    [3, "status", "apps.v1.DeploymentStatus"],
  ],
  "apps.v1.DeploymentCondition": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
    [6, "lastUpdateTime", "meta.v1.Time"],
    [7, "lastTransitionTime", "meta.v1.Time"],
    [4, "reason", "string"],
    [5, "message", "string"],
  ],
  "apps.v1.DeploymentList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]apps.v1.Deployment"],
  ],
  "apps.v1.DeploymentSpec": [
    [1, "replicas", "int32", 1],
    [2, "selector", "meta.v1.LabelSelector"],
    [3, "template", "core.v1.PodTemplateSpec"],
    [4, "strategy", "apps.v1.DeploymentStrategy"],
    [5, "minReadySeconds", "int32"],
    [6, "revisionHistoryLimit", "int32", 1],
    [7, "paused", "bool"],
    [9, "progressDeadlineSeconds", "int32", 1],
  ],
  "apps.v1.DeploymentStatus": [
    [1, "observedGeneration", "int64"],
    [2, "replicas", "int32"],
    [3, "updatedReplicas", "int32"],
    [7, "readyReplicas", "int32"],
    [4, "availableReplicas", "int32"],
    [5, "unavailableReplicas", "int32"],
    [6, "conditions", "[]apps.v1.DeploymentCondition"],
    [8, "collisionCount", "int32", 1],
  ],
  "apps.v1.DeploymentStrategy": [
    [1, "type", "string"],
    [2, "rollingUpdate", "apps.v1.RollingUpdateDeployment"],
  ],
  "apps.v1.ReplicaSet": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "apps.v1.ReplicaSetSpec"],
    [3, "status", "apps.v1.ReplicaSetStatus"],
  ],
  "apps.v1.ReplicaSetCondition": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
    [3, "lastTransitionTime", "meta.v1.Time"],
    [4, "reason", "string"],
    [5, "message", "string"],
  ],
  "apps.v1.ReplicaSetList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]apps.v1.ReplicaSet"],
  ],
  "apps.v1.ReplicaSetSpec": [
    [1, "replicas", "int32", 1],
    [4, "minReadySeconds", "int32"],
    [2, "selector", "meta.v1.LabelSelector"],
    [3, "template", "core.v1.PodTemplateSpec"],
  ],
  "apps.v1.ReplicaSetStatus": [
    [1, "replicas", "int32", 1],
    [2, "fullyLabeledReplicas", "int32"],
    [4, "readyReplicas", "int32"],
    [5, "availableReplicas", "int32"],
    [3, "observedGeneration", "int64"],
    [6, "conditions", "[]apps.v1.ReplicaSetCondition"],
  ],
  "apps.v1.RollingUpdateDaemonSet": [
    [1, "maxUnavailable", "intstr.IntOrString"],
    [2, "maxSurge", "intstr.IntOrString"],
  ],
  "apps.v1.RollingUpdateDeployment": [
    [1, "maxUnavailable", "intstr.IntOrString"],
    [2, "maxSurge", "intstr.IntOrString"],
  ],
  "apps.v1.RollingUpdateStatefulSetStrategy": [
    [1, "partition", "int32", 1],
    [2, "maxUnavailable", "intstr.IntOrString"],
  ],
  "apps.v1.StatefulSet": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "apps.v1.StatefulSetSpec"],
    [3, "status", "apps.v1.StatefulSetStatus"],
  ],
  "apps.v1.StatefulSetCondition": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
    [3, "lastTransitionTime", "meta.v1.Time"],
    [4, "reason", "string"],
    [5, "message", "string"],
  ],
  "apps.v1.StatefulSetList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]apps.v1.StatefulSet"],
  ],
  "apps.v1.StatefulSetOrdinals": [
    [1, "start", "int32", 1],
  ],
  "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy": [
    [1, "whenDeleted", "string"],
    [2, "whenScaled", "string"],
  ],
  "apps.v1.StatefulSetSpec": [
    [1, "replicas", "int32", 1],
    [2, "selector", "meta.v1.LabelSelector"],
    [3, "template", "core.v1.PodTemplateSpec"],
    [4, "volumeClaimTemplates", "[]core.v1.PersistentVolumeClaim"],
    [5, "serviceName", "string", 1],
    [6, "podManagementPolicy", "string"],
    [7, "updateStrategy", "apps.v1.StatefulSetUpdateStrategy"],
    [8, "revisionHistoryLimit", "int32", 1],
    [9, "minReadySeconds", "int32"],
    [
      10,
      "persistentVolumeClaimRetentionPolicy",
      "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy",
    ],
    [11, "ordinals", "apps.v1.StatefulSetOrdinals"],
  ],
  "apps.v1.StatefulSetStatus": [
    [1, "observedGeneration", "int64"],
    [2, "replicas", "int32", 1],
    [3, "readyReplicas", "int32"],
    [4, "currentReplicas", "int32"],
    [5, "updatedReplicas", "int32"],
    [6, "currentRevision", "string"],
    [7, "updateRevision", "string"],
    [9, "collisionCount", "int32", 1],
    [10, "conditions", "[]apps.v1.StatefulSetCondition"],
    [11, "availableReplicas", "int32", 1],
  ],
  "apps.v1.StatefulSetUpdateStrategy": [
    [1, "type", "string"],
    [2, "rollingUpdate", "apps.v1.RollingUpdateStatefulSetStrategy"],
  ],
};
