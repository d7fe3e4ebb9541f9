/**
 * The `pods/ephemeralcontainers` subresource (get, update, patch of a Pod), as kube's
 * podEphemeralContainersStrategy: an update changes `spec.ephemeralContainers` and nothing
 * else; existing ephemeral containers may be neither removed nor changed; a new one needs a
 * name unique among all the pod's containers and may not set ports, probes, resources,
 * lifecycle or a restart policy (ValidatePodEphemeralContainersUpdate). `kubectl debug` adds
 * its debug container through it.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { isDNS1123Label } from "../../../../shared/api/validation/identifiers.ts";
import {
  duplicate,
  forbidden,
  invalid,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import type { SubresourceDef } from "../../generic/kind.ts";
import { semanticEqual, specDiff } from "./pod_update.ts";

type Obj = Record<string, unknown>;

const MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";
const FIELD = "spec.ephemeralContainers";

/** Fields an ephemeral container may not set (kube's allowedEphemeralContainerFields: false). */
const DISALLOWED_FIELDS = [
  "ports",
  "resources",
  "resizePolicy",
  "restartPolicy",
  "livenessProbe",
  "readinessProbe",
  "startupProbe",
  "lifecycle",
];

function specOf(pod: KubeObject): Obj {
  return isObject(pod.spec) ? pod.spec : {};
}

function listOf(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** SetDefaults of an ephemeral container: termination message path and policy, pull policy. */
function defaultEphemeralContainer(c: Obj): void {
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  if (!c.imagePullPolicy && typeof c.image === "string") {
    const ref = c.image.split("@")[0];
    const slash = ref.lastIndexOf("/"), colon = ref.lastIndexOf(":");
    const tag = colon > slash ? ref.slice(colon + 1) : "";
    c.imagePullPolicy = !c.image.includes("@") && (tag === "" || tag === "latest")
      ? "Always"
      : "IfNotPresent";
  }
}

/** validateEphemeralContainers for the ephemeral containers of `pod`. */
export function validateEphemeralContainers(pod: KubeObject): FieldError[] {
  const spec = specOf(pod);
  const others = new Set(
    [...listOf(spec.containers), ...listOf(spec.initContainers)].map((c) => String(c.name ?? "")),
  );
  const all = new Set(others);
  const errs: FieldError[] = [];
  for (const [i, ec] of listOf(spec.ephemeralContainers).entries()) {
    const f = `${FIELD}[${i}]`;
    const name = typeof ec.name === "string" ? ec.name : "";
    if (name === "") errs.push(required(`${f}.name`));
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalid(`${f}.name`, name, m));
      if (all.has(name)) errs.push(duplicate(`${f}.name`, name));
      all.add(name);
    }
    const image = typeof ec.image === "string" ? ec.image : "";
    if (image === "") errs.push(required(`${f}.image`));
    else if (image.trim() !== image) {
      errs.push(invalid(`${f}.image`, image, "must not have leading or trailing whitespace"));
    }
    const target = ec.targetContainerName;
    if (typeof target === "string" && target !== "" && !others.has(target)) {
      errs.push({
        type: "FieldValueNotFound",
        field: `${f}.targetContainerName`,
        value: target,
        detail: "",
      });
    }
    for (const key of DISALLOWED_FIELDS) {
      if (!semanticEqual(ec[key], undefined)) {
        errs.push(forbidden(`${f}.${key}`, "cannot be set for an Ephemeral Container"));
      }
    }
    for (const [j, vm] of listOf(ec.volumeMounts).entries()) {
      for (const key of ["subPath", "subPathExpr"]) {
        if (vm[key]) {
          errs.push(
            forbidden(`${f}.volumeMounts[${j}].${key}`, "cannot be set for an Ephemeral Container"),
          );
        }
      }
    }
  }
  return errs;
}

/** ValidatePodEphemeralContainersUpdate's rules on the change from `old` to `pod`. */
function validateUpdate(pod: KubeObject, old: KubeObject): FieldError[] {
  if (old.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
    return [forbidden("", "static pods do not support ephemeral containers")];
  }
  const errs = validateEphemeralContainers(pod);
  const byName = new Map(listOf(specOf(pod).ephemeralContainers).map((c) => [c.name, c]));
  for (const before of listOf(specOf(old).ephemeralContainers)) {
    const now = byName.get(before.name);
    if (!now) {
      errs.push(
        forbidden(FIELD, `existing ephemeral containers "${before.name}" may not be removed\n`),
      );
    } else if (!semanticEqual(before, now)) {
      errs.push(
        forbidden(
          FIELD,
          `existing ephemeral containers "${before.name}" may not be changed\n${
            specDiff(before, now, "core.EphemeralContainer")
          }`,
        ),
      );
    }
  }
  return errs;
}

/** The `ephemeralcontainers` subresource of pods. */
export const EPHEMERAL_CONTAINERS_SUBRESOURCE: SubresourceDef = {
  name: "ephemeralcontainers",
  verbs: ["get", "patch", "update"],
  update(body, old) {
    const next = structuredClone(old);
    const list = isObject(body.spec) ? body.spec.ephemeralContainers : undefined;
    const spec = specOf(next);
    next.spec = spec;
    if (Array.isArray(list) && list.length > 0) {
      const copies = structuredClone(list);
      for (const c of copies) if (isObject(c)) defaultEphemeralContainer(c);
      spec.ephemeralContainers = copies;
    } else delete spec.ephemeralContainers;
    next.metadata.resourceVersion = body.metadata?.resourceVersion;
    return next;
  },
  validateUpdate,
};
