/** Pod: containers with name, image, command, args and env; nodeName; a status subresource. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { isDNS1123Label } from "../../../../shared/api/validation/identifiers.ts";
import {
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import {
  type KindDef,
  STATUS_SUBRESOURCE,
  type SubresourceDef,
  type TableColumns,
} from "../../generic/kind.ts";
import { validatePodSpecUpdate } from "./pod_update.ts";
import {
  EPHEMERAL_CONTAINERS_SUBRESOURCE,
  validateEphemeralContainers,
} from "./ephemeral_containers.ts";
import { POD_CONNECT_SUBRESOURCES } from "./connect.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  humanDuration,
  listOf as list,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";

const RESTART_POLICIES = ["Always", "OnFailure", "Never"];

function spec(obj: KubeObject): Record<string, unknown> {
  return isObject(obj.spec) ? obj.spec : {};
}

function status(obj: KubeObject): Record<string, unknown> {
  return isObject(obj.status) ? obj.status : {};
}

/** The selectable `status.podIP`: the first of `status.podIPs`, as kube's GetAttrs reads it. */
function podIPOf(st: Record<string, unknown>): string {
  const ips = Array.isArray(st.podIPs) ? st.podIPs : [];
  const first = isObject(ips[0]) ? ips[0].ip : undefined;
  return String(first ?? st.podIP ?? "");
}

function defaultContainer(c: Record<string, unknown>): void {
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  if (!c.imagePullPolicy && typeof c.image === "string") {
    const ref = c.image.split("@")[0];
    const tag = ref.lastIndexOf(":") > ref.lastIndexOf("/")
      ? ref.slice(ref.lastIndexOf(":") + 1)
      : "";
    c.imagePullPolicy = c.image.includes("@")
      ? "IfNotPresent"
      : tag === "" || tag === "latest"
      ? "Always"
      : "IfNotPresent";
  }
  c.resources ??= {};
}

/**
 * Validates a container list. The schema makes the list a list of objects, their names, images,
 * commands, arguments and environment values strings: only values are checked here.
 */
function validateContainers(field: string, list: unknown, needOne: boolean): FieldError[] {
  if (list === undefined && !needOne) return [];
  if (!Array.isArray(list) || (needOne && list.length === 0)) return [required(field)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, c] of list.entries()) {
    const f = `${field}[${i}]`;
    if (!isObject(c)) continue;
    const name = typeof c.name === "string" ? c.name : "";
    if (name === "") errs.push(required(`${f}.name`));
    else {
      const problems = isDNS1123Label(name);
      for (const m of problems) errs.push(invalid(`${f}.name`, name, m));
      if (problems.length === 0 && names.has(name)) errs.push(duplicate(`${f}.name`, name));
      names.add(name);
    }
    if (typeof c.image !== "string" || c.image.trim() === "") errs.push(required(`${f}.image`));
    const env = Array.isArray(c.env) ? c.env : [];
    for (const [j, e] of env.entries()) {
      if (!isObject(e) || !e.name) errs.push(required(`${f}.env[${j}].name`));
    }
  }
  return errs;
}

/** The rules of a pod on its own (create; and every update, with the update rules). */
export function validatePod(obj: KubeObject): FieldError[] {
  if (!isObject(obj.spec)) return [required("spec")];
  const s = spec(obj);
  const errs = [
    ...validateContainers("spec.containers", s.containers, true),
    ...validateContainers("spec.initContainers", s.initContainers, false),
    ...validateEphemeralContainers(obj),
  ];
  if (s.restartPolicy !== undefined && !RESTART_POLICIES.includes(String(s.restartPolicy))) {
    errs.push(notSupported("spec.restartPolicy", s.restartPolicy, RESTART_POLICIES));
  }
  const grace = s.terminationGracePeriodSeconds;
  if (typeof grace === "number" && grace < 0) {
    errs.push(
      invalid("spec.terminationGracePeriodSeconds", grace, "must be greater than or equal to 0"),
    );
  }
  return errs;
}

/**
 * SetDefaults_PodSpec and SetDefaults_Container; on create also the priority fields, which on
 * an update the Priority admission plugin keeps from the stored pod.
 */
function defaultPodSpec(s: Record<string, unknown>, create: boolean): void {
  s.restartPolicy ??= "Always";
  s.dnsPolicy ??= "ClusterFirst";
  s.terminationGracePeriodSeconds ??= 30;
  s.schedulerName ??= "default-scheduler";
  s.securityContext ??= {};
  s.enableServiceLinks ??= true;
  if (create) {
    s.preemptionPolicy ??= "PreemptLowerPriority";
    s.priority ??= 0;
  }
  for (const list of [s.containers, s.initContainers]) {
    if (Array.isArray(list)) {
      for (const c of list) {
        if (!isObject(c)) continue;
        defaultContainer(c);
        requestsFromLimits(c);
      }
    }
  }
}

/** SetDefaults_Pod: a container's limits are its requests where it gives none. */
function requestsFromLimits(c: Record<string, unknown>): void {
  const res = c.resources;
  if (!isObject(res) || !isObject(res.limits)) return;
  const requests = isObject(res.requests) ? res.requests : {};
  for (const [k, v] of Object.entries(res.limits)) requests[k] ??= v;
  res.requests = requests;
}

/**
 * `pods/status`: the status only (ValidatePodStatusUpdate; the spec, nodeName included, stays
 * as stored). The node agent reports through it.
 */
const POD_STATUS_SUBRESOURCE: SubresourceDef = {
  ...STATUS_SUBRESOURCE,
  validateUpdate: () => [],
};

/** Pod: Name, Ready, Status, Restarts, Age; wide: IP, Node, Nominated Node, Readiness Gates. */
const POD_COLUMNS: TableColumns = {
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
    const note = (cs: Record<string, unknown>) => {
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

/** The Pod kind. */
export const podKind: KindDef = {
  group: "",
  version: "v1",
  kind: "Pod",
  plural: "pods",
  singular: "pod",
  shortNames: ["po"],
  categories: ["all"],
  namespaced: true,
  returnDeletedObject: true,
  subresources: [
    POD_STATUS_SUBRESOURCE,
    EPHEMERAL_CONTAINERS_SUBRESOURCE,
    ...POD_CONNECT_SUBRESOURCES,
  ],
  strategy: {
    tableColumns: POD_COLUMNS,
    prepareForCreate(obj) {
      defaultPodSpec(spec(obj), true);
      obj.status = { phase: "Pending", qosClass: "BestEffort" };
    },
    // An update is defaulted as kube defaults every decoded object, so that what a client
    // omits compares equal to the stored defaults.
    prepareForUpdate(obj) {
      if (isObject(obj.spec)) defaultPodSpec(obj.spec, false);
    },
    validate(obj) {
      const errs = validatePod(obj);
      const ephemeral = spec(obj).ephemeralContainers;
      if (Array.isArray(ephemeral) && ephemeral.length > 0) {
        errs.push(forbidden("spec.ephemeralContainers", "cannot be set on create"));
      }
      return errs;
    },
    validateUpdate(obj, old) {
      return [...validatePod(obj), ...validatePodSpecUpdate(obj, old)];
    },
    selectableFields(obj) {
      const s = spec(obj), st = status(obj);
      return {
        "spec.nodeName": String(s.nodeName ?? ""),
        "spec.restartPolicy": String(s.restartPolicy ?? ""),
        "spec.schedulerName": String(s.schedulerName ?? ""),
        "spec.serviceAccountName": String(s.serviceAccountName ?? ""),
        "spec.hostNetwork": String(s.hostNetwork === true),
        "status.phase": String(st.phase ?? ""),
        "status.podIP": podIPOf(st),
        "status.nominatedNodeName": String(st.nominatedNodeName ?? ""),
      };
    },
    selectableFieldNames: [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      // Accepted by kube's conversion, but no value is selectable: it reads as "".
      "status.podIPs",
      "status.nominatedNodeName",
    ],
    fieldLabelAliases: { "spec.host": "spec.nodeName" },
    gracePeriod(obj, options) {
      const s = spec(obj), st = status(obj);
      // Only a pod bound to a node waits for its node agent to stop it.
      if (!s.nodeName || st.phase === "Succeeded" || st.phase === "Failed") return 0;
      if (options.gracePeriodSeconds !== undefined) return options.gracePeriodSeconds;
      const g = s.terminationGracePeriodSeconds;
      return typeof g === "number" ? (g < 0 ? 1 : g) : 30;
    },
  },
};
