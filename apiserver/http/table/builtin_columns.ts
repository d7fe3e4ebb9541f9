/**
 * Table columns of the built-in kinds, as kubectl shows them (the kinds' strategies declare
 * them with their `tableColumns` hook).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { TableColumnDefinition, TableColumns } from "../../registry/generic/kind.ts";
import { ageCell, humanDuration } from "./human_duration.ts";
import { AGE_COLUMN, NAME_COLUMN } from "./table.ts";

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v as Obj : {};
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(obj) : [];
}

function col(
  name: string,
  type: string,
  description: string,
  priority = 0,
): TableColumnDefinition {
  return { name, type, format: "", description, priority };
}

function age(o: KubeObject, now: number): string {
  return ageCell(o.metadata?.creationTimestamp, now);
}

/** Pod: Name, Ready, Status, Restarts, Age; wide: IP, Node, Nominated Node, Readiness Gates. */
export const POD_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "string", "The aggregate status of the containers in this pod."),
    col(
      "Restarts",
      "string",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    AGE_COLUMN,
    col("IP", "string", "IP address allocated to the pod.", 1),
    col("Node", "string", "Name of the node the pod is bound to.", 1),
    col("Nominated Node", "string", "Name of the node the pod is nominated to.", 1),
    col("Readiness Gates", "string", "Pod readiness gates.", 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec), status = obj(o.status);
    const containers = list(spec.containers);
    let total = containers.length;
    for (const c of list(spec.initContainers)) if (c.restartPolicy === "Always") total++;
    let reason = String(status.reason || status.phase || "");
    let ready = 0, restarts = 0, lastRestart = 0;
    const note = (cs: Obj) => {
      restarts += Number(cs.restartCount ?? 0);
      const fin = obj(obj(cs.lastState).terminated).finishedAt;
      if (typeof fin === "string") lastRestart = Math.max(lastRestart, Date.parse(fin) || 0);
    };
    let initializing = false;
    const inits = list(status.initContainerStatuses);
    for (const [i, cs] of inits.entries()) {
      note(cs);
      const st = obj(cs.state);
      const term = obj(st.terminated), wait = obj(st.waiting);
      if (st.terminated && term.exitCode === 0) continue;
      if (st.running && cs.started === true) continue;
      initializing = true;
      if (st.terminated) {
        reason = "Init:" +
          String(
            term.reason || (term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode}`),
          );
      } else if (wait.reason && wait.reason !== "PodInitializing") reason = `Init:${wait.reason}`;
      else reason = `Init:${i}/${list(spec.initContainers).length}`;
      break;
    }
    if (!initializing) {
      let hasRunning = false;
      for (const cs of [...list(status.containerStatuses)].reverse()) {
        note(cs);
        const st = obj(cs.state);
        const term = obj(st.terminated), wait = obj(st.waiting);
        if (wait.reason) reason = String(wait.reason);
        else if (term.reason) reason = String(term.reason);
        else if (st.terminated) {
          reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode}`;
        } else if (st.running && cs.ready === true) {
          hasRunning = true;
          ready++;
        }
      }
      if (reason === "Completed" && hasRunning) reason = "Running";
    }
    if (o.metadata?.deletionTimestamp) {
      reason = status.reason === "NodeLost" ? "Unknown" : "Terminating";
    }
    const restartsCell = lastRestart > 0
      ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
      : String(restarts);
    const gates = list(spec.readinessGates);
    const conds = list(status.conditions);
    const gatesCell = gates.length === 0
      ? "<none>"
      : `${
        gates.filter((g) => conds.some((c) => c.type === g.conditionType && c.status === "True"))
          .length
      }/${gates.length}`;
    return [
      o.metadata?.name ?? "",
      `${ready}/${total}`,
      reason,
      restartsCell,
      age(o, now),
      String(status.podIP || "<none>"),
      String(spec.nodeName || "<none>"),
      String(status.nominatedNodeName || "<none>"),
      gatesCell,
    ];
  },
};

function address(status: Obj, type: string): string {
  return String(list(status.addresses).find((a) => a.type === type)?.address ?? "<none>");
}

/** Node: Name, Status, Roles, Age, Version; wide: addresses, OS image, kernel, runtime. */
export const NODE_COLUMNS: TableColumns = {
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

/** Namespace: Name, Status, Age. */
export const NAMESPACE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Status", "string", "The status of the namespace"),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata?.name ?? "", String(obj(o.status).phase ?? ""), age(o, now)],
};

/** ConfigMap: Name, Data, Age. */
export const CONFIGMAP_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Data", "integer", "Data contains the configuration data."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length,
    age(o, now),
  ],
};

/** Secret: Name, Type, Data, Age. */
export const SECRET_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Type", "string", "Used to facilitate programmatic handling of secret data."),
    col("Data", "integer", "Data contains the secret data."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    String(o.type ?? ""),
    Object.keys(obj(o.data)).length,
    age(o, now),
  ],
};

/** ServiceAccount: Name, Secrets, Age. */
export const SERVICEACCOUNT_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Secrets",
      "string",
      "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata?.name ?? "", list(o.secrets).length, age(o, now)],
};

/** core/v1 Event: Last Seen, Type, Reason, Object, Message; wide: more. */
export const EVENT_COLUMNS: TableColumns = {
  columns: [
    col("Last Seen", "string", "Time when last this event was observed."),
    col(
      "Type",
      "string",
      "Type of this event (Normal, Warning), new types could be added in the future.",
    ),
    col(
      "Reason",
      "string",
      "The reason this event was generated. 'Reason' should be short and unique; it should be in UpperCamelCase format (starting with a capital letter).",
    ),
    col("Object", "string", "The object that this event is about."),
    col("Subobject", "string", "The subobject this event is about.", 1),
    col(
      "Source",
      "string",
      "The component reporting this event. Should be a short machine understandable string.",
      1,
    ),
    col("Message", "string", "A human-readable description of the status of this operation."),
    col("First Seen", "string", "The first time at which the event was observed.", 1),
    col("Count", "string", "The number of times this event has occurred.", 1),
    { ...NAME_COLUMN, priority: 1 },
  ],
  cells(o, now) {
    const inv = obj(o.involvedObject), src = obj(o.source), series = obj(o.series);
    const last = series.lastObservedTime ?? o.lastTimestamp ?? o.eventTime ??
      o.metadata?.creationTimestamp;
    const first = o.firstTimestamp ?? o.eventTime ?? o.metadata?.creationTimestamp;
    const kind = String(inv.kind ?? "").toLowerCase();
    const source = [src.component ?? o.reportingComponent, src.host ?? o.reportingInstance]
      .filter((x) => x).join(", ");
    return [
      ageCell(last, now),
      String(o.type ?? ""),
      String(o.reason ?? ""),
      `${kind}/${inv.name ?? ""}`,
      String(inv.fieldPath ?? ""),
      source,
      String(o.message ?? "").trim(),
      ageCell(first, now),
      Number(series.count ?? o.count ?? 1),
      o.metadata?.name ?? "",
    ];
  },
};

/** Lease: Name, Holder, Age. */
export const LEASE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Holder", "string", "The holder of the lease."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    String(obj(o.spec).holderIdentity ?? ""),
    age(o, now),
  ],
};
