/**
 * The checks of the restricted Pod Security level, as k8s.io/pod-security-admission 1.32's
 * policy package. The `_1_25` forms skip Windows pods (`spec.os.name: windows`), as kube's do.
 *
 * @module
 */
import {
  ALLOWED,
  arr,
  type CheckPod,
  containersPhrase,
  forbid,
  isWindows,
  joinQuote,
  nameOf,
  obj,
  pluralize,
  securityContextOf,
  sortedSet,
  visitContainers,
} from "./check_result.ts";
import { seccompForbidden, validSeccomp } from "./baseline_checks.ts";

/** The same check, allowing Windows pods (the form of policy versions 1.25 and later). */
export function exceptWindows(check: CheckPod): CheckPod {
  return (meta, spec) => isWindows(spec) ? ALLOWED : check(meta, spec);
}

/** Every container must set allowPrivilegeEscalation=false. */
export const allowPrivilegeEscalation: CheckPod = (_meta, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (securityContextOf(c)?.allowPrivilegeEscalation !== false) bad.push(nameOf(c));
  });
  return bad.length > 0
    ? forbid(
      "allowPrivilegeEscalation != false",
      `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
    )
    : ALLOWED;
};

/** Containers must drop ALL and may add only NET_BIND_SERVICE. */
export const capabilitiesRestricted: CheckPod = (_meta, spec) => {
  const missingDrop: string[] = [], adding: string[] = [], added: string[] = [];
  visitContainers(spec, (c) => {
    const caps = securityContextOf(c)?.capabilities;
    if (caps == null) {
      missingDrop.push(nameOf(c));
      return;
    }
    if (!arr(obj(caps).drop).includes("ALL")) missingDrop.push(nameOf(c));
    const extra = arr(obj(caps).add).map(String).filter((a) => a !== "NET_BIND_SERVICE");
    if (extra.length > 0) {
      adding.push(nameOf(c));
      added.push(...extra);
    }
  });
  const details: string[] = [];
  if (missingDrop.length > 0) {
    details.push(
      `${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`,
    );
  }
  if (adding.length > 0) {
    details.push(
      `${containersPhrase(adding)} must not include ${
        joinQuote(sortedSet(added))
      } in securityContext.capabilities.add`,
    );
  }
  return details.length > 0 ? forbid("unrestricted capabilities", details.join("; ")) : ALLOWED;
};

const ALLOWED_VOLUME_SOURCES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);
/** The restricted volume sources, in the order kube names the first one a volume has. */
const RESTRICTED_VOLUME_SOURCES = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "nfs",
  "iscsi",
  "glusterfs",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "fc",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "storageos",
];

/** Volumes may only be of the allowed inline sources. */
export const restrictedVolumes: CheckPod = (_meta, spec) => {
  const bad: string[] = [], types: string[] = [];
  for (const v of arr(spec.volumes).map(obj)) {
    const present = (k: string) => v[k] != null;
    if ([...ALLOWED_VOLUME_SOURCES].some(present)) continue;
    bad.push(nameOf(v));
    types.push(RESTRICTED_VOLUME_SOURCES.find(present) ?? "unknown");
  }
  if (bad.length === 0) return ALLOWED;
  const list = sortedSet(types);
  return forbid(
    "restricted volume types",
    `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)} ${
      pluralize("uses", "use", bad.length)
    } ${pluralize("restricted volume type", "restricted volume types", list.length)} ${
      joinQuote(list)
    }`,
  );
};

/** The pod or every container must set runAsNonRoot=true, and none may set it false. */
export const runAsNonRoot: CheckPod = (_meta, spec) => {
  const podValue = obj(spec.securityContext).runAsNonRoot;
  const who = podValue === false ? ["pod"] : [];
  const explicit: string[] = [], implicit: string[] = [];
  visitContainers(spec, (c) => {
    const value = securityContextOf(c)?.runAsNonRoot;
    if (value != null) {
      if (value === false) explicit.push(nameOf(c));
    } else if (podValue !== true) implicit.push(nameOf(c));
  });
  if (explicit.length > 0) who.push(containersPhrase(explicit));
  if (who.length > 0) {
    return forbid(
      "runAsNonRoot != true",
      `${who.join(" and ")} must not set securityContext.runAsNonRoot=false`,
    );
  }
  return implicit.length > 0
    ? forbid(
      "runAsNonRoot != true",
      `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`,
    )
    : ALLOWED;
};

/** Neither the pod nor a container may set runAsUser=0. */
export const runAsUser: CheckPod = (_meta, spec) => {
  const who = obj(spec.securityContext).runAsUser === 0 ? ["pod"] : [];
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (securityContextOf(c)?.runAsUser === 0) bad.push(nameOf(c));
  });
  if (bad.length > 0) who.push(containersPhrase(bad));
  return who.length > 0
    ? forbid("runAsUser=0", `${who.join(" and ")} must not set runAsUser=0`)
    : ALLOWED;
};

/** The pod or every container must set a seccompProfile of RuntimeDefault or Localhost. */
export const seccompRestricted: CheckPod = (_meta, spec) => {
  const values: string[] = [];
  const podProfile = obj(spec.securityContext).seccompProfile;
  const podBad = podProfile != null && !validSeccomp(obj(podProfile).type);
  if (podBad) values.push(String(obj(podProfile).type ?? ""));
  const podSet = podProfile != null && !podBad;
  const explicit: string[] = [], implicit: string[] = [];
  visitContainers(spec, (c) => {
    const profile = securityContextOf(c)?.seccompProfile;
    if (profile != null) {
      if (!validSeccomp(obj(profile).type)) {
        explicit.push(nameOf(c));
        values.push(String(obj(profile).type ?? ""));
      }
    } else if (!podSet) implicit.push(nameOf(c));
  });
  const who = podBad ? ["pod"] : [];
  if (explicit.length > 0) who.push(containersPhrase(explicit));
  const bad = seccompForbidden(who, values);
  if (bad) return bad;
  return implicit.length > 0
    ? forbid(
      "seccompProfile",
      `pod or ${
        containersPhrase(implicit)
      } must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    )
    : ALLOWED;
};
