/** Node: cluster scoped, with a status subresource. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { PROXY_VERBS, unavailableSubresource } from "../../generic/unavailable_subresource.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  listOf as list,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";

const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

function address(status: Record<string, unknown>, type: string): string {
  return String(list(status.addresses).find((a) => a.type === type)?.address ?? "<none>");
}

/** Node: Name, Status, Roles, Age, Version; wide: addresses, OS image, kernel, runtime. */
const NODE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Status", "string", "The status of the node"),
    col("Roles", "string", "The roles of the node"),
    AGE_COLUMN,
    col("Version", "string", "Kubelet Version reported by the node."),
    col("Internal-IP", "string", "List of internal IPs for the node.", 1),
    col("External-IP", "string", "List of external IPs for the node.", 1),
    col(
      "OS-Image",
      "string",
      "OS image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
      1,
    ),
    col(
      "Kernel-Version",
      "string",
      "Kernel version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      1,
    ),
    col(
      "Container-Runtime",
      "string",
      "Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
      1,
    ),
  ],
  cells(o, now) {
    const spec = obj(o.spec), status = obj(o.status), info = obj(status.nodeInfo);
    const ready = list(status.conditions).find((c) => c.type === "Ready");
    const states = [
      ready?.status === "True" ? "Ready" : ready?.status === "False" ? "NotReady" : "Unknown",
    ];
    if (spec.unschedulable === true) states.push("SchedulingDisabled");
    const roles = new Set<string>();
    for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
      if (k.startsWith("node-role.kubernetes.io/")) {
        const r = k.slice("node-role.kubernetes.io/".length);
        if (r) roles.add(r);
      } else if (k === "kubernetes.io/role" && v) roles.add(v);
    }
    return [
      o.metadata?.name ?? "",
      states.join(","),
      roles.size === 0 ? "<none>" : [...roles].sort().join(","),
      age(o, now),
      String(info.kubeletVersion ?? ""),
      address(status, "InternalIP"),
      address(status, "ExternalIP"),
      String(info.osImage || "<unknown>"),
      String(info.kernelVersion || "<unknown>"),
      String(info.containerRuntimeVersion || "<unknown>"),
    ];
  },
};

/** The Node kind. */
export const nodeKind: KindDef = {
  group: "",
  version: "v1",
  kind: "Node",
  plural: "nodes",
  singular: "node",
  shortNames: ["no"],
  namespaced: false,
  subresources: [
    STATUS_SUBRESOURCE,
    unavailableSubresource("nodes/proxy", PROXY_VERBS, "NodeProxyOptions"),
  ],
  strategy: {
    tableColumns: NODE_COLUMNS,
    validate(obj) {
      // The schema makes spec an object, taints a list of objects and their keys strings.
      const errs: FieldError[] = [];
      const spec = isObject(obj.spec) ? obj.spec : {};
      const taints = Array.isArray(spec.taints) ? spec.taints : [];
      for (const [i, t] of taints.entries()) {
        if (!isObject(t) || !t.key) errs.push(required(`spec.taints[${i}].key`));
        else if (!EFFECTS.includes(String(t.effect))) {
          errs.push(notSupported(`spec.taints[${i}].effect`, t.effect, EFFECTS));
        }
      }
      return errs;
    },
    selectableFields(obj) {
      const spec = isObject(obj.spec) ? obj.spec : {};
      return { "spec.unschedulable": String(spec.unschedulable === true) };
    },
    selectableFieldNames: ["spec.unschedulable"],
  },
};
