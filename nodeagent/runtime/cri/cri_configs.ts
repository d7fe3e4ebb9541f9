/**
 * The CRI configurations the `cri` adapter sends, built as the kubelet builds them
 * (`generatePodSandboxConfig`, `generateContainerConfig`): the pod sandbox config with the
 * kubelet's labels, namespace options and the pod-level security context; the container config
 * with its command, args, env, working directory, host-path mounts, labels, restart-count
 * annotation, log path and Linux security context (seccomp, privileged, user and group,
 * capabilities, `no_new_privs`, masked and read-only paths).
 *
 * Seccomp follows the spec's rules through {@link resolveSeccompProfile}: `privileged` runs
 * Unconfined, a container's profile wins over the pod's, an unset profile is the node default,
 * and `Localhost` is passed as the absolute path under `<root-dir>/seccomp`, which must exist.
 *
 * @module
 */
import type { ContainerSpec, PodInfo } from "../runtime.ts";
import { type ResolvedSeccomp, resolveSeccompProfile } from "../seccomp_profile.ts";

/** The kubelet's container labels. */
export const CRI_LABELS = {
  podName: "io.kubernetes.pod.name",
  podNamespace: "io.kubernetes.pod.namespace",
  podUid: "io.kubernetes.pod.uid",
  containerName: "io.kubernetes.container.name",
} as const;
/** The kubelet's restart count annotation. */
export const RESTART_COUNT_ANNOTATION = "io.kubernetes.container.restartCount";

/** The paths the kubelet masks in containers that are not privileged. */
export const DEFAULT_MASKED_PATHS: readonly string[] = [
  "/proc/asound",
  "/proc/acpi",
  "/proc/kcore",
  "/proc/keys",
  "/proc/latency_stats",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/proc/sched_debug",
  "/proc/scsi",
  "/sys/firmware",
  "/sys/devices/virtual/powercap",
];
/** The paths the kubelet makes read-only in containers that are not privileged. */
export const DEFAULT_READONLY_PATHS: readonly string[] = [
  "/proc/bus",
  "/proc/fs",
  "/proc/irq",
  "/proc/sys",
  "/proc/sysrq-trigger",
];

/** Node settings the configurations depend on. */
export interface CriConfigOptions {
  /** The agent's root directory (seccomp profiles under `seccomp/`, pod logs under `pod-logs/`). */
  rootDir: string;
  /** RuntimeDefault for containers without a seccomp profile. */
  seccompDefault: boolean;
}

/** A CRI `SecurityProfile`. */
export interface CriSecurityProfile {
  /** `RuntimeDefault`, `Unconfined` or `Localhost`. */
  profileType: "RuntimeDefault" | "Unconfined" | "Localhost";
  /** The absolute profile path with Localhost. */
  localhostRef?: string;
}

/** A CRI `PodSandboxConfig` as a plain object for `encodeCri`. */
export type CriPodSandboxConfig = Record<string, unknown> & {
  metadata: { name: string; uid: string; namespace: string; attempt: number };
  logDirectory: string;
  labels: Record<string, string>;
};

/** The kubelet's labels of a pod's sandbox and containers. */
export function podLabels(pod: PodInfo): Record<string, string> {
  return {
    [CRI_LABELS.podName]: pod.name,
    [CRI_LABELS.podNamespace]: pod.namespace,
    [CRI_LABELS.podUid]: pod.uid,
  };
}

/** `<root-dir>/pod-logs/<namespace>_<name>_<uid>` (the kubelet's `/var/log/pods/...`). */
export function podLogDirectory(rootDir: string, pod: Pick<PodInfo, "namespace" | "name" | "uid">) {
  return `${rootDir.replace(/\/+$/, "")}/pod-logs/${pod.namespace}_${pod.name}_${pod.uid}`;
}

/** As a CRI SecurityProfile. */
export function toCriProfile(s: ResolvedSeccomp): CriSecurityProfile {
  return s.type === "Localhost"
    ? { profileType: "Localhost", localhostRef: s.localhostPath }
    : { profileType: s.type };
}

/**
 * The pod-level seccomp profile of the sandbox (the pod's, else the node default).
 *
 * @throws {CreateContainerError} for a missing or invalid Localhost profile.
 */
export async function sandboxSeccomp(
  pod: PodInfo,
  opts: CriConfigOptions,
): Promise<CriSecurityProfile> {
  return toCriProfile(await resolveSeccompProfile(pod, { name: "POD" }, opts));
}

/**
 * The container's seccomp profile after the spec's resolution rules.
 *
 * @throws {CreateContainerError} for a missing or invalid Localhost profile.
 */
export async function containerSeccomp(
  pod: PodInfo,
  container: ContainerSpec,
  opts: CriConfigOptions,
): Promise<CriSecurityProfile> {
  return toCriProfile(await resolveSeccompProfile(pod, container, opts));
}

/** The kubelet's namespace options: host namespaces on request, else the pod's. */
export function namespaceOptions(pod: PodInfo): { network: string; pid: string; ipc: string } {
  return {
    network: pod.hostNetwork ? "NODE" : "POD",
    pid: pod.hostPID ? "NODE" : pod.shareProcessNamespace ? "POD" : "CONTAINER",
    ipc: pod.hostIPC ? "NODE" : "POD",
  };
}

/** The `RunPodSandbox` config of a pod. */
export function podSandboxConfig(
  pod: PodInfo,
  attempt: number,
  seccomp: CriSecurityProfile,
  opts: CriConfigOptions,
): CriPodSandboxConfig {
  const sc = pod.securityContext ?? {};
  const sysctls: Record<string, string> = {};
  for (const s of sc.sysctls ?? []) sysctls[s.name] = s.value;
  return {
    metadata: { name: pod.name, uid: pod.uid, namespace: pod.namespace, attempt },
    // With the host network the sandbox keeps the node's hostname, as the kubelet does.
    ...(pod.hostNetwork ? {} : { hostname: pod.hostname ?? pod.name }),
    logDirectory: podLogDirectory(opts.rootDir, pod),
    labels: { ...(pod.labels ?? {}), ...podLabels(pod) },
    annotations: { ...(pod.annotations ?? {}) },
    linux: {
      cgroupParent: "",
      securityContext: {
        namespaceOptions: namespaceOptions(pod),
        privileged: pod.privileged === true,
        seccomp,
        ...(sc.runAsUser !== undefined ? { runAsUser: { value: sc.runAsUser } } : {}),
        ...(sc.runAsGroup !== undefined ? { runAsGroup: { value: sc.runAsGroup } } : {}),
        ...(sc.supplementalGroups?.length ? { supplementalGroups: sc.supplementalGroups } : {}),
      },
      sysctls,
    },
  };
}

/** The `CreateContainer` config of a container. */
export function containerConfig(
  pod: PodInfo,
  c: ContainerSpec,
  o: { restartCount: number; imageRef: string; seccomp: CriSecurityProfile },
): Record<string, unknown> {
  const podSc = pod.securityContext ?? {};
  const sc = c.securityContext ?? {};
  const privileged = sc.privileged === true;
  const runAsUser = sc.runAsUser ?? podSc.runAsUser;
  const runAsGroup = sc.runAsGroup ?? podSc.runAsGroup;
  return {
    metadata: { name: c.name, attempt: o.restartCount },
    image: { image: o.imageRef, userSpecifiedImage: c.image ?? "" },
    command: c.command ?? [],
    args: c.args ?? [],
    workingDir: c.workingDir ?? "",
    envs: (c.env ?? []).map((e) => ({ key: e.name, value: e.value ?? "" })),
    mounts: (c.mounts ?? []).map((m) => ({
      containerPath: m.containerPath,
      hostPath: m.hostPath,
      readonly: m.readOnly === true,
    })),
    labels: { ...podLabels(pod), [CRI_LABELS.containerName]: c.name },
    annotations: { [RESTART_COUNT_ANNOTATION]: String(o.restartCount) },
    logPath: `${c.name}/${o.restartCount}.log`,
    linux: {
      securityContext: {
        ...(sc.capabilities
          ? {
            capabilities: {
              addCapabilities: sc.capabilities.add ?? [],
              dropCapabilities: sc.capabilities.drop ?? [],
            },
          }
          : {}),
        privileged,
        namespaceOptions: namespaceOptions(pod),
        ...(runAsUser !== undefined ? { runAsUser: { value: runAsUser } } : {}),
        ...(runAsGroup !== undefined ? { runAsGroup: { value: runAsGroup } } : {}),
        readonlyRootfs: sc.readOnlyRootFilesystem === true,
        supplementalGroups: podSc.supplementalGroups ?? [],
        noNewPrivs: sc.allowPrivilegeEscalation === false,
        maskedPaths: privileged ? [] : [...DEFAULT_MASKED_PATHS],
        readonlyPaths: privileged ? [] : [...DEFAULT_READONLY_PATHS],
        seccomp: o.seccomp,
      },
    },
  };
}

/** The pull policy the API server would default: `Always` for `:latest` or no tag. */
export function effectivePullPolicy(c: ContainerSpec): string {
  if (c.imagePullPolicy) return c.imagePullPolicy;
  const image = c.image ?? "";
  if (image.includes("@")) return "IfNotPresent";
  const last = image.slice(image.lastIndexOf("/") + 1);
  const tag = last.includes(":") ? last.slice(last.indexOf(":") + 1) : "";
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
}
