/**
 * The checks of the baseline Pod Security level, as k8s.io/pod-security-admission 1.32's
 * policy package: the same forbidden reasons and details, check by check.
 *
 * @module
 */
import {
  ALLOWED,
  arr,
  type CheckPod,
  type CheckResult,
  containersPhrase,
  forbid,
  joinQuote,
  nameOf,
  type Obj,
  obj,
  pluralize,
  securityContextOf,
  sortedSet,
  visitContainers,
} from "./check_result.ts";

/** The containers for which `bad(securityContext)` holds (only those with a context). */
function badContainers(spec: Obj, bad: (sc: Obj) => boolean): string[] {
  const names: string[] = [];
  visitContainers(spec, (c) => {
    const sc = securityContextOf(c);
    if (sc && bad(sc)) names.push(nameOf(c));
  });
  return names;
}

/** `pod and containers "a", "b"` from the pod's flag and the containers' names. */
function setters(pod: boolean, containers: string[]): string[] {
  const out = pod ? ["pod"] : [];
  if (containers.length > 0) out.push(containersPhrase(containers));
  return out;
}

/** hostNetwork, hostPID and hostIPC must be unset or false. */
export const hostNamespaces: CheckPod = (_meta, spec) => {
  const set = ["hostNetwork", "hostPID", "hostIPC"].filter((k) => spec[k] === true);
  return set.length > 0
    ? forbid("host namespaces", set.map((k) => `${k}=true`).join(", "))
    : ALLOWED;
};

/** No container may be privileged. */
export const privileged: CheckPod = (_meta, spec) => {
  const bad = badContainers(spec, (sc) => sc.privileged === true);
  return bad.length > 0
    ? forbid("privileged", `${containersPhrase(bad)} must not set securityContext.privileged=true`)
    : ALLOWED;
};

const DEFAULT_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

/** Containers may add only capabilities of the default set. */
export const capabilitiesBaseline: CheckPod = (_meta, spec) => {
  const extra: string[] = [];
  const bad = badContainers(spec, (sc) => {
    const added = arr(obj(sc.capabilities).add).map(String);
    const beyond = added.filter((c) => !DEFAULT_CAPABILITIES.has(c));
    extra.push(...beyond);
    return beyond.length > 0;
  });
  if (bad.length === 0) return ALLOWED;
  return forbid(
    "non-default capabilities",
    `${containersPhrase(bad)} must not include ${
      joinQuote(sortedSet(extra))
    } in securityContext.capabilities.add`,
  );
};

/** No hostPath volumes. */
export const hostPathVolumes: CheckPod = (_meta, spec) => {
  const names = arr(spec.volumes).map(obj).filter((v) => v.hostPath != null).map(nameOf);
  return names.length > 0
    ? forbid(
      "hostPath volumes",
      `${pluralize("volume", "volumes", names.length)} ${joinQuote(names)}`,
    )
    : ALLOWED;
};

/** No container port may set a hostPort. */
export const hostPorts: CheckPod = (_meta, spec) => {
  const bad: string[] = [], ports: string[] = [];
  visitContainers(spec, (c) => {
    const used = arr(c.ports).map((p) => obj(p).hostPort).filter((h) => !!h && h !== 0);
    if (used.length === 0) return;
    bad.push(nameOf(c));
    ports.push(...used.map(String));
  });
  if (bad.length === 0) return ALLOWED;
  const list = sortedSet(ports);
  return forbid(
    "hostPort",
    `${containersPhrase(bad)} ${pluralize("uses", "use", bad.length)} ${
      pluralize("hostPort", "hostPorts", list.length)
    } ${list.join(", ")}`,
  );
};

const APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/";
const allowedAppArmorType = (t: unknown) => t === "RuntimeDefault" || t === "Localhost";
const allowedAppArmorAnnotation = (v: string) =>
  v === "" || v === "runtime/default" || v.startsWith("localhost/");

/** AppArmor profiles (fields and the beta annotations) may only be the default or localhost. */
export const appArmorProfile: CheckPod = (meta, spec) => {
  const values: string[] = [];
  const podProfile = obj(spec.securityContext).appArmorProfile;
  const podBad = podProfile != null && !allowedAppArmorType(obj(podProfile).type);
  if (podBad) values.push(String(obj(podProfile).type ?? ""));
  const bad = badContainers(spec, (sc) => {
    if (sc.appArmorProfile == null || allowedAppArmorType(obj(sc.appArmorProfile).type)) {
      return false;
    }
    values.push(String(obj(sc.appArmorProfile).type ?? ""));
    return true;
  });
  const who = setters(podBad, bad);
  const annotations = Object.entries(obj(meta.annotations))
    .filter(([k, v]) =>
      k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(String(v))
    )
    .map(([k, v]) => `${k}=${JSON.stringify(String(v))}`).sort();
  const list = [...sortedSet(values), ...annotations];
  if (annotations.length > 0) who.push(pluralize("annotation", "annotations", annotations.length));
  if (who.length === 0) return ALLOWED;
  return forbid(
    pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", list.length),
    `${who.join(" and ")} must not set AppArmor profile type to ${joinQuote(list)}`,
  );
};

/** Types of seLinuxOptions allowed from policy version 1.31 on (container_engine_t added). */
export const SELINUX_TYPES_1_31 = [
  "",
  "container_t",
  "container_init_t",
  "container_kvm_t",
  "container_engine_t",
];
/** Types of seLinuxOptions allowed before 1.31. */
export const SELINUX_TYPES_1_0 = SELINUX_TYPES_1_31.slice(0, 4);

/** seLinuxOptions may set only allowed types, and never user or role. */
export function seLinuxOptions(allowedTypes: readonly string[]): CheckPod {
  return (_meta, spec) => {
    const badTypes: string[] = [];
    let setUser = false, setRole = false;
    const valid = (opts: Obj) => {
      const type = typeof opts.type === "string" ? opts.type : "";
      const typeOk = allowedTypes.includes(type);
      if (!typeOk) badTypes.push(type);
      const user = typeof opts.user === "string" && opts.user !== "";
      const role = typeof opts.role === "string" && opts.role !== "";
      setUser ||= user;
      setRole ||= role;
      return typeOk && !user && !role;
    };
    const podOpts = obj(spec.securityContext).seLinuxOptions;
    const podBad = podOpts != null && !valid(obj(podOpts));
    const bad = badContainers(
      spec,
      (sc) => sc.seLinuxOptions != null && !valid(obj(sc.seLinuxOptions)),
    );
    const who = setters(podBad, bad);
    if (who.length === 0) return ALLOWED;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) {
      data.push(`${pluralize("type", "types", types.length)} ${joinQuote(types)}`);
    }
    if (setUser) data.push("user may not be set");
    if (setRole) data.push("role may not be set");
    return forbid(
      "seLinuxOptions",
      `${who.join(" and ")} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}`,
    );
  };
}

/** procMount must be unset or Default. */
export const procMount: CheckPod = (_meta, spec) => {
  const types: string[] = [];
  const bad = badContainers(spec, (sc) => {
    if (sc.procMount == null || sc.procMount === "Default") return false;
    types.push(String(sc.procMount));
    return true;
  });
  if (bad.length === 0) return ALLOWED;
  return forbid(
    "procMount",
    `${containersPhrase(bad)} must not set securityContext.procMount to ${
      joinQuote(sortedSet(types))
    }`,
  );
};

const SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod";
const SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/";

/** Whether a seccomp profile type is allowed (RuntimeDefault or Localhost). */
export const validSeccomp = (t: unknown) => t === "RuntimeDefault" || t === "Localhost";

/** Before 1.19: the seccomp annotations may only name the default or localhost profiles. */
export const seccompBaseline_1_0: CheckPod = (meta, spec) => {
  const annotations = obj(meta.annotations);
  const forbidden: string[] = [];
  const check = (key: string) => {
    if (!(key in annotations)) return;
    const v = String(annotations[key]);
    const ok = v === "runtime/default" || v === "docker/default" || v.startsWith("localhost/");
    if (!ok) forbidden.push(`${key}=${JSON.stringify(v)}`);
  };
  check(SECCOMP_POD_ANNOTATION);
  visitContainers(spec, (c) => check(SECCOMP_CONTAINER_PREFIX + nameOf(c)));
  const list = sortedSet(forbidden);
  return list.length > 0
    ? forbid(
      "seccompProfile",
      `forbidden ${pluralize("annotation", "annotations", list.length)} ${list.join(", ")}`,
    )
    : ALLOWED;
};

/** From 1.19: seccompProfile.type, where set, must be RuntimeDefault or Localhost. */
export const seccompBaseline_1_19: CheckPod = (_meta, spec) => {
  const values: string[] = [];
  const podProfile = obj(spec.securityContext).seccompProfile;
  const podBad = podProfile != null && !validSeccomp(obj(podProfile).type);
  if (podBad) values.push(String(obj(podProfile).type ?? ""));
  const bad = badContainers(spec, (sc) => {
    if (sc.seccompProfile == null || validSeccomp(obj(sc.seccompProfile).type)) return false;
    values.push(String(obj(sc.seccompProfile).type ?? ""));
    return true;
  });
  const who = setters(podBad, bad);
  return seccompForbidden(who, values) ?? ALLOWED;
};

/** The seccompProfile result naming explicit bad setters, or undefined when there are none. */
export function seccompForbidden(who: string[], values: string[]): CheckResult | undefined {
  if (who.length === 0) return undefined;
  return forbid(
    "seccompProfile",
    `${who.join(" and ")} must not set securityContext.seccompProfile.type to ${
      joinQuote(sortedSet(values))
    }`,
  );
}

/** The safe sysctls of each policy version that changed them. */
const SYSCTLS_1_0 = [
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, "net.ipv4.ip_local_reserved_ports"];
const SYSCTLS_1_29 = [
  ...SYSCTLS_1_27,
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"];
/** The safe sysctl sets by the policy version that introduced them. */
export const SAFE_SYSCTLS = {
  0: SYSCTLS_1_0,
  27: SYSCTLS_1_27,
  29: SYSCTLS_1_29,
  32: SYSCTLS_1_32,
};

/** Only safe sysctls may be set. */
export function sysctls(allowed: readonly string[]): CheckPod {
  return (_meta, spec) => {
    const names = arr(obj(spec.securityContext).sysctls).map((s) => String(obj(s).name ?? ""));
    const forbidden = names.filter((n) => !allowed.includes(n));
    return forbidden.length > 0 ? forbid("forbidden sysctls", forbidden.join(", ")) : ALLOWED;
  };
}

/** Windows HostProcess containers are forbidden. */
export const windowsHostProcess: CheckPod = (_meta, spec) => {
  const hostProcess = (sc: Obj) => obj(sc.windowsOptions).hostProcess === true;
  const bad = badContainers(spec, hostProcess);
  const who = setters(hostProcess(obj(spec.securityContext)), bad);
  return who.length > 0
    ? forbid(
      "hostProcess",
      `${who.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`,
    )
    : ALLOWED;
};
