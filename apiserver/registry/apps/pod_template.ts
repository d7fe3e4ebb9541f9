/**
 * The pod template of the workload kinds (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job and
 * CronJob's job template): Kubernetes' pod spec defaults (`SetDefaults_PodSpec`, containers,
 * ports, probes, volumes) and the template checks of `ValidatePodTemplateSpec`, with kube's
 * field paths and messages.
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import { isDNS1123Label } from "../../../shared/api/validation/identifiers.ts";
import { validateAnnotations, validateLabels } from "../../../shared/api/validation/object_meta.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../shared/api/validation/field_errors.ts";

const RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"];
const PROTOCOLS = ["TCP", "UDP", "SCTP"];

/** `imagePullPolicy` default: Always for `:latest` or no tag, IfNotPresent otherwise. */
export function defaultPullPolicy(image: string): string {
  if (image.includes("@")) return "IfNotPresent";
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  const tag = colon > slash ? image.slice(colon + 1) : "";
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultProbe(p: unknown): void {
  if (!isObject(p)) return;
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  if (isObject(p.httpGet)) p.httpGet.scheme ??= "HTTP";
}

function defaultContainer(c: Record<string, unknown>): void {
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  if (c.imagePullPolicy === undefined && typeof c.image === "string") {
    c.imagePullPolicy = defaultPullPolicy(c.image);
  }
  c.resources ??= {};
  if (Array.isArray(c.ports)) { for (const p of c.ports) if (isObject(p)) p.protocol ??= "TCP"; }
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) defaultProbe(c[probe]);
  if (Array.isArray(c.env)) {
    for (const e of c.env) {
      if (isObject(e) && isObject(e.valueFrom) && isObject(e.valueFrom.fieldRef)) {
        e.valueFrom.fieldRef.apiVersion ??= "v1";
      }
    }
  }
}

function defaultVolume(v: Record<string, unknown>): void {
  for (const source of ["secret", "configMap", "downwardAPI", "projected"]) {
    const s = v[source];
    if (isObject(s)) s.defaultMode ??= 420;
  }
  if (isObject(v.hostPath)) v.hostPath.type ??= "";
  // A volume naming no source is an emptyDir.
  if (Object.keys(v).every((k) => k === "name")) v.emptyDir = {};
}

/** Sets Kubernetes' pod spec defaults on a pod spec (in place). */
export function defaultPodSpec(spec: Record<string, unknown>): void {
  spec.restartPolicy ??= "Always";
  spec.dnsPolicy ??= "ClusterFirst";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ??= "default-scheduler";
  spec.securityContext ??= {};
  for (const list of [spec.containers, spec.initContainers]) {
    if (Array.isArray(list)) { for (const c of list) if (isObject(c)) defaultContainer(c); }
  }
  if (Array.isArray(spec.volumes)) {
    for (const v of spec.volumes) {
      if (isObject(v)) defaultVolume(v);
    }
  }
}

/** Sets the pod spec defaults of a pod template (`{metadata, spec}`), when it is an object. */
export function defaultPodTemplate(template: unknown): void {
  if (isObject(template) && isObject(template.spec)) defaultPodSpec(template.spec);
}

function validatePorts(field: string, ports: unknown): FieldError[] {
  if (!Array.isArray(ports)) return [];
  const errs: FieldError[] = [];
  for (const [i, p] of ports.entries()) {
    if (!isObject(p)) continue;
    const port = p.containerPort;
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) {
      errs.push(
        port === undefined || port === 0
          ? required(`${field}[${i}].containerPort`)
          : invalid(`${field}[${i}].containerPort`, port, "must be between 1 and 65535, inclusive"),
      );
    }
    if (p.protocol !== undefined && !PROTOCOLS.includes(String(p.protocol))) {
      errs.push(notSupported(`${field}[${i}].protocol`, p.protocol, PROTOCOLS));
    }
  }
  return errs;
}

function validateContainer(f: string, c: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof c.image !== "string" || c.image === "") errs.push(required(`${f}.image`));
  const policy = c.terminationMessagePolicy;
  if (policy === undefined || policy === "") errs.push(required(`${f}.terminationMessagePolicy`));
  else if (!MESSAGE_POLICIES.includes(String(policy))) {
    errs.push(notSupported(`${f}.terminationMessagePolicy`, policy, MESSAGE_POLICIES));
  }
  const pull = c.imagePullPolicy;
  if (pull === undefined || pull === "") errs.push(required(`${f}.imagePullPolicy`));
  else if (!PULL_POLICIES.includes(String(pull))) {
    errs.push(notSupported(`${f}.imagePullPolicy`, pull, PULL_POLICIES));
  }
  errs.push(...validatePorts(`${f}.ports`, c.ports));
  return errs;
}

function validateContainers(field: string, list: unknown, needOne: boolean): FieldError[] {
  if (list === undefined && !needOne) return [];
  if (!Array.isArray(list) || (needOne && list.length === 0)) return [required(field)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, c] of list.entries()) {
    const f = `${field}[${i}]`;
    if (!isObject(c)) {
      errs.push(invalid(f, c, "must be an object"));
      continue;
    }
    if (typeof c.name !== "string" || c.name === "") errs.push(required(`${f}.name`));
    else {
      for (const msg of isDNS1123Label(c.name)) errs.push(invalid(`${f}.name`, c.name, msg));
      if (names.has(c.name)) errs.push(duplicate(`${f}.name`, c.name));
      names.add(c.name);
    }
    errs.push(...validateContainer(f, c));
  }
  return errs;
}

function validatePodSpec(field: string, s: Record<string, unknown>): FieldError[] {
  const errs = [
    ...validateContainers(`${field}.containers`, s.containers, true),
    ...validateContainers(`${field}.initContainers`, s.initContainers, false),
  ];
  if (s.restartPolicy === undefined || s.restartPolicy === "") {
    errs.push(required(`${field}.restartPolicy`));
  } else if (!RESTART_POLICIES.includes(String(s.restartPolicy))) {
    errs.push(notSupported(`${field}.restartPolicy`, s.restartPolicy, RESTART_POLICIES));
  }
  if (s.dnsPolicy !== undefined && !DNS_POLICIES.includes(String(s.dnsPolicy))) {
    errs.push(notSupported(`${field}.dnsPolicy`, s.dnsPolicy, DNS_POLICIES));
  }
  for (const f of ["terminationGracePeriodSeconds", "activeDeadlineSeconds"]) {
    const v = s[f];
    if (v !== undefined && v !== null && (typeof v !== "number" || v < 0)) {
      errs.push(invalid(`${field}.${f}`, v, "must be greater than or equal to 0"));
    }
  }
  if (s.activeDeadlineSeconds === 0) {
    errs.push(
      invalid(`${field}.activeDeadlineSeconds`, 0, "must be between 1 and 2147483647, inclusive"),
    );
  }
  return errs;
}

/**
 * Validates a pod template at `field` (e.g. `spec.template`): labels, annotations and the pod
 * spec, as `ValidatePodTemplateSpec`.
 */
export function validatePodTemplate(field: string, template: unknown): FieldError[] {
  if (!isObject(template)) return [required(field)];
  const meta = isObject(template.metadata) ? template.metadata : {};
  const errs = [
    ...validateLabels(meta.labels, `${field}.metadata.labels`),
    ...validateAnnotations(meta.annotations, `${field}.metadata.annotations`),
  ];
  if (!isObject(template.spec)) return [...errs, required(`${field}.spec.containers`)];
  return [...errs, ...validatePodSpec(`${field}.spec`, template.spec)];
}

/** The labels of a pod template (`{}` when absent). */
export function templateLabels(template: unknown): Record<string, string> {
  if (!isObject(template) || !isObject(template.metadata)) return {};
  const labels = template.metadata.labels;
  return isObject(labels) ? labels as Record<string, string> : {};
}

/** The pod spec of a pod template (`{}` when absent). */
export function templateSpec(template: unknown): Record<string, unknown> {
  return isObject(template) && isObject(template.spec) ? template.spec : {};
}
