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
  /** Security settings. */
  securityContext?: { privileged?: boolean; seccompProfile?: SeccompProfile };
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
  securityContext?: { seccompProfile?: SeccompProfile };
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

/** Thrown by a runtime that cannot checkpoint. */
export class CheckpointNotSupportedError extends Error {
  /** Names the runtime. */
  constructor(runtime: string) {
    super(`Checkpoint is not supported by the ${runtime} runtime`);
    this.name = "CheckpointNotSupportedError";
  }
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
   * Writes a checkpoint archive of a running container to `opts.location`.
   *
   * @throws {CheckpointNotSupportedError} when the runtime cannot checkpoint.
   */
  checkpointContainer(id: string, opts: CheckpointOptions): Promise<void>;
  /** Stops everything and releases resources. */
  close(): Promise<void>;
}
