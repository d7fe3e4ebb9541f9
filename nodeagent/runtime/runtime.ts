/**
 * The container runtime adapter interface the node agent drives: list pods and containers,
 * start, stop, status and checkpoint. Implementations: `process/` (each container a host
 * process) and `cri/` (the Container Runtime Interface).
 *
 * @module
 */

/** A seccomp profile as written in a pod or container security context. */
export interface SeccompProfile {
  /** `Unconfined`, `RuntimeDefault` or `Localhost`. */
  type: string;
  /** Path under `<root-dir>/seccomp`, required with `Localhost`. */
  localhostProfile?: string;
}

/** The parts of a container spec a runtime needs. */
export interface ContainerSpec {
  /** Container name, unique in the pod. */
  name: string;
  /** Image reference (informational for the process runtime). */
  image?: string;
  /** The executable and its leading arguments. */
  command?: string[];
  /** Further arguments. */
  args?: string[];
  /** Environment, already resolved to literal values. */
  env?: { name: string; value?: string }[];
  /** Working directory; the process runtime gives each container its own by default. */
  workingDir?: string;
  /** `Always`, `IfNotPresent` or `Never` (CRI runtimes; defaulted by the API server). */
  imagePullPolicy?: string;
  /** Host paths bound into the container (CRI runtimes; the process runtime ignores them). */
  mounts?: ContainerMount[];
  /** Security settings. */
  securityContext?: ContainerSecurityContext;
  /** Give the container a standard input that `attach` writes to. */
  stdin?: boolean;
  /** Close that input when the first attach session ends. */
  stdinOnce?: boolean;
}

/** A host path bound into a container. */
export interface ContainerMount {
  /** Where it appears in the container. */
  containerPath: string;
  /** The path on the host. */
  hostPath: string;
  /** Read-only bind. */
  readOnly?: boolean;
}

/** The container security settings runtimes apply (a subset of the pod API's). */
export interface ContainerSecurityContext {
  /** Runs with every capability and device, always Unconfined. */
  privileged?: boolean;
  /** The seccomp profile (overrides the pod's). */
  seccompProfile?: SeccompProfile;
  /** The user id the process runs as. */
  runAsUser?: number;
  /** The group id the process runs as. */
  runAsGroup?: number;
  /** Mounts the root file system read-only. */
  readOnlyRootFilesystem?: boolean;
  /** Whether a process may gain more privileges than its parent (`no_new_privs` when false). */
  allowPrivilegeEscalation?: boolean;
  /** Capabilities added to and dropped from the runtime's default set. */
  capabilities?: { add?: string[]; drop?: string[] };
}

/** The pod-level security settings runtimes apply. */
export interface PodSecurityContext {
  /** The default seccomp profile of the pod's containers. */
  seccompProfile?: SeccompProfile;
  /** The default user id. */
  runAsUser?: number;
  /** The default group id. */
  runAsGroup?: number;
  /** Extra groups of every container process. */
  supplementalGroups?: number[];
  /** Namespaced sysctls set in the pod. */
  sysctls?: { name: string; value: string }[];
}

/** The pod a container belongs to. */
export interface PodInfo {
  /** Namespace. */
  namespace: string;
  /** Name. */
  name: string;
  /** metadata.uid. */
  uid: string;
  /** Pod-level security context. */
  securityContext?: PodSecurityContext;
  /** metadata.labels (CRI runtimes put them on the sandbox). */
  labels?: Record<string, string>;
  /** metadata.annotations (CRI runtimes put them on the sandbox). */
  annotations?: Record<string, string>;
  /** spec.hostname, else the pod name. */
  hostname?: string;
  /** Use the node's network namespace. */
  hostNetwork?: boolean;
  /** Use the node's PID namespace. */
  hostPID?: boolean;
  /** Use the node's IPC namespace. */
  hostIPC?: boolean;
  /** One PID namespace for all containers of the pod. */
  shareProcessNamespace?: boolean;
  /** Whether any container of the pod is privileged (the sandbox then is too). */
  privileged?: boolean;
}

/** A container's state, shaped like the pod status' `ContainerState`. */
export type ContainerState =
  | { running: { startedAt: string } }
  | { waiting: { reason: string; message?: string } }
  | {
    terminated: {
      exitCode: number;
      signal?: number;
      reason: string;
      message?: string;
      startedAt: string;
      finishedAt: string;
    };
  };

/** What a runtime knows about one container. */
export interface ContainerStatus {
  /** Runtime-specific id (`process://…`, a CRI container id). */
  id: string;
  /** Container name. */
  name: string;
  /** The pod. */
  pod: { namespace: string; name: string; uid: string };
  /** Current state. */
  state: ContainerState;
  /** How many times the container was started again after the first start. */
  restartCount: number;
  /** Host process id while running (process runtime only). */
  pid?: number;
  /** The seccomp profile the container runs with, after resolution. */
  seccomp?: { type: string; localhostPath?: string };
}

/** A pod as the runtime sees it. */
export interface PodSandboxStatus {
  /** Runtime-specific id. */
  id: string;
  /** Namespace, name and uid of the pod. */
  namespace: string;
  /** Pod name. */
  name: string;
  /** Pod uid. */
  uid: string;
  /** `SANDBOX_READY` or `SANDBOX_NOTREADY` in CRI terms. */
  ready: boolean;
}

/** CPU and memory of one container as its runtime measured them (CRI ListContainerStats). */
export interface ContainerStatsReading {
  /** The container's id (as in {@link ContainerStatus.id}). */
  id: string;
  /** When it was measured (ms since the epoch). */
  timestampMs: number;
  /** Cumulative CPU time in core-seconds, when known. */
  cpuSeconds?: number;
  /** Working set in bytes, when known. */
  workingSetBytes?: number;
  /** Resident memory in bytes, when known. */
  rssBytes?: number;
}

/** Options of {@link ContainerRuntime.checkpointContainer}. */
export interface CheckpointOptions {
  /** The archive path to write (the runtime writes exactly this file). */
  location: string;
  /** Aborts the checkpoint (timeout or shutdown); the runtime leaves no partial file. */
  signal: AbortSignal;
  /** The requested timeout in seconds (0 = runtime default), passed on to CRI runtimes. */
  timeoutSeconds: number;
}

/** Thrown when a container cannot be created; reported as waiting `CreateContainerError`. */
export class CreateContainerError extends Error {
  /** The waiting reason the pod status shows. */
  readonly reason = "CreateContainerError";

  /** Wraps the message shown in the container's waiting state. */
  constructor(message: string) {
    super(message);
    this.name = "CreateContainerError";
  }
}

/**
 * Thrown when a container's image cannot be pulled; reported as waiting `ErrImagePull` (or
 * `ErrImageNeverPull` with `imagePullPolicy: Never`), then `ImagePullBackOff` while the agent
 * waits to retry.
 */
export class ImagePullError extends Error {
  /** The waiting reason the pod status shows. */
  readonly reason: "ErrImagePull" | "ErrImageNeverPull";

  /** Wraps the message shown in the container's waiting state. */
  constructor(message: string, reason: "ErrImagePull" | "ErrImageNeverPull" = "ErrImagePull") {
    super(message);
    this.name = "ImagePullError";
    this.reason = reason;
  }
}

/**
 * Thrown when the pod's sandbox cannot be created; the containers stay waiting
 * `ContainerCreating` (the kubelet reports the cause as a `FailedCreatePodSandBox` event).
 */
export class PodSandboxError extends Error {
  /** The waiting reason the pod status shows. */
  readonly reason = "ContainerCreating";

  /** Wraps the runtime's message. */
  constructor(message: string) {
    super(message);
    this.name = "PodSandboxError";
  }
}

/** Thrown by a runtime that cannot checkpoint. */
export class CheckpointNotSupportedError extends Error {
  /** Names the runtime. */
  constructor(runtime: string) {
    super(`Checkpoint is not supported by the ${runtime} runtime`);
    this.name = "CheckpointNotSupportedError";
  }
}

/** What {@link ContainerRuntime.execSync} answers. */
export interface ExecSyncResult {
  /** The command's exit code (-1 when it timed out). */
  exitCode: number;
  /** Its standard output. */
  stdout: string;
  /** Its standard error. */
  stderr: string;
  /** Whether it was killed because the timeout passed. */
  timedOut: boolean;
}

/** The adapter interface. */
export interface ContainerRuntime {
  /** Runtime name as used in `containerRuntimeVersion` (`process`, `containerd`, `cri-o`). */
  readonly name: string;
  /** `<name>://<version>` for `status.nodeInfo.containerRuntimeVersion`. */
  version(): Promise<string>;
  /** Problems that make the runtime unhealthy (empty when healthy). */
  healthErrors(): Promise<string[]>;
  /** Pods the runtime holds. */
  listPods(): Promise<PodSandboxStatus[]>;
  /** Containers the runtime holds, running or exited. */
  listContainers(): Promise<ContainerStatus[]>;
  /** One container's status, undefined when unknown. */
  containerStatus(id: string): Promise<ContainerStatus | undefined>;
  /**
   * Creates and starts a container.
   *
   * @throws {CreateContainerError} when the container cannot be created.
   */
  startContainer(pod: PodInfo, container: ContainerSpec): Promise<ContainerStatus>;
  /** Stops a container: SIGTERM, then SIGKILL after the grace period. */
  stopContainer(id: string, gracePeriodMs: number): Promise<void>;
  /** Removes an exited container and its files. */
  removeContainer(id: string): Promise<void>;
  /**
   * Stops and removes what the runtime holds for a pod besides its containers (the CRI
   * sandbox, the process runtime's pod directory); called once its containers are removed and
   * for pods no longer bound here. Unknown pods are not an error.
   */
  removePod(uid: string): Promise<void>;
  /**
   * Writes a checkpoint archive of a running container to `opts.location`.
   *
   * @throws {CheckpointNotSupportedError} when the runtime cannot checkpoint.
   */
  checkpointContainer(id: string, opts: CheckpointOptions): Promise<void>;
  /**
   * Runs a command in a running container and waits for it (CRI `ExecSync`), for exec probes
   * and hooks; runtimes without it cannot run them.
   */
  execSync?(id: string, command: string[], timeoutMs: number): Promise<ExecSyncResult>;
  /** Stops everything and releases resources. */
  close(): Promise<void>;
  /**
   * CPU and memory of the containers, for runtimes that measure them (CRI); the agent
   * measures the process runtime's containers itself.
   */
  containerStats?(): Promise<ContainerStatsReading[]>;
}
