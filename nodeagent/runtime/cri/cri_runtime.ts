/**
 * The `cri` runtime adapter: the Container Runtime Interface (`runtime.v1.RuntimeService`) over
 * gRPC on a unix socket, as containerd and CRI-O serve it, selected with
 * `containerRuntimeEndpoint` (`unix:///run/containerd/containerd.sock` or a socket path).
 *
 * Implemented: Version, Status (health), ListPodSandbox, ListContainers with ContainerStatus,
 * StopContainer, RemoveContainer and CheckpointContainer (archive location and timeout).
 * Containers are tied to pods by the kubelet's labels (`io.kubernetes.pod.uid`, …) or else by
 * their sandbox's metadata. Creating containers (RunPodSandbox, image pulls, CreateContainer)
 * is not implemented: {@link CriRuntime.startContainer} reports a `CreateContainerError`.
 *
 * @module
 */
import { rfc3339 } from "../../status/node_conditions.ts";
import {
  CheckpointNotSupportedError,
  type CheckpointOptions,
  type ContainerRuntime,
  type ContainerState,
  type ContainerStatus,
  CreateContainerError,
  type PodSandboxStatus,
} from "../runtime.ts";
import { decodeCri, encodeCri, RUNTIME_SERVICE } from "./cri_messages.ts";
import { GrpcClient, GrpcError } from "./grpc_client.ts";

/** The kubelet's container labels. */
export const CRI_LABELS = {
  podName: "io.kubernetes.pod.name",
  podNamespace: "io.kubernetes.pod.namespace",
  podUid: "io.kubernetes.pod.uid",
  containerName: "io.kubernetes.container.name",
} as const;
/** The kubelet's restart count annotation. */
export const RESTART_COUNT_ANNOTATION = "io.kubernetes.container.restartCount";

/** Deadline of quick calls (ms). */
const QUICK_MS = 10_000;
/** The kubelet's default runtime request timeout (ms). */
const RUNTIME_REQUEST_MS = 120_000;

interface Meta {
  name: string;
  uid?: string;
  namespace?: string;
  attempt: number;
}

interface Sandbox {
  id: string;
  metadata?: Meta;
  state: string;
  labels: Record<string, string>;
}

interface CriContainerStatus {
  id: string;
  metadata?: Meta;
  state: string;
  createdAt: string;
  startedAt: string;
  finishedAt: string;
  exitCode: number;
  reason: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

interface CriContainer {
  id: string;
  podSandboxId: string;
  metadata?: Meta;
  state: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * The unix socket path of a `containerRuntimeEndpoint`.
 *
 * @throws {Error} for another scheme (tcp, npipe) or an empty path.
 */
export function criSocketPath(endpoint: string): string {
  const e = endpoint.trim();
  let path = e;
  if (e.startsWith("unix://")) path = e.slice("unix://".length);
  else if (/^[a-z]+:\/\//i.test(e)) {
    throw new Error(
      `containerRuntimeEndpoint ${JSON.stringify(endpoint)}: only unix sockets are supported`,
    );
  }
  if (!path.startsWith("/")) {
    throw new Error(
      `containerRuntimeEndpoint ${JSON.stringify(endpoint)}: want an absolute socket path`,
    );
  }
  return path;
}

function nsToIso(ns: string): string {
  const n = BigInt(ns || "0");
  return rfc3339(Number(n / 1_000_000n));
}

/** A CRI container status as the pod status' ContainerState. */
export function criState(s: CriContainerStatus): ContainerState {
  switch (s.state) {
    case "CONTAINER_RUNNING":
      return { running: { startedAt: nsToIso(s.startedAt) } };
    case "CONTAINER_EXITED":
      return {
        terminated: {
          exitCode: s.exitCode,
          reason: s.reason || (s.exitCode === 0 ? "Completed" : "Error"),
          ...(s.message ? { message: s.message } : {}),
          startedAt: nsToIso(s.startedAt),
          finishedAt: nsToIso(s.finishedAt),
        },
      };
    case "CONTAINER_CREATED":
      return { waiting: { reason: "ContainerCreating" } };
    default:
      return { waiting: { reason: "ContainerStatusUnknown", message: s.message || undefined } };
  }
}

/** The CRI runtime adapter. */
export class CriRuntime implements ContainerRuntime {
  readonly #grpc: GrpcClient;
  readonly #endpoint: string;
  #name = "cri";

  /**
   * Creates the adapter (it connects on the first call).
   *
   * @throws {Error} for an endpoint that is not a unix socket.
   */
  constructor(endpoint: string) {
    this.#endpoint = endpoint;
    this.#grpc = new GrpcClient(criSocketPath(endpoint));
  }

  /** The runtime's name once {@link CriRuntime.version} answered (`containerd`), else `cri`. */
  get name(): string {
    return this.#name;
  }

  async #call<T>(
    method: string,
    request: Record<string, unknown>,
    timeoutMs = QUICK_MS,
    signal?: AbortSignal,
  ): Promise<T> {
    const bytes = await this.#grpc.call(
      RUNTIME_SERVICE + method,
      encodeCri(`${method}Request`, request),
      { timeoutMs, signal },
    );
    return decodeCri<T>(`${method}Response`, bytes);
  }

  /** `<runtimeName>://<runtimeVersion>`. */
  async version(): Promise<string> {
    const v = await this.#call<{ runtimeName: string; runtimeVersion: string }>("Version", {
      version: "v1",
    });
    if (v.runtimeName) this.#name = v.runtimeName;
    return `${v.runtimeName || "cri"}://${v.runtimeVersion || "unknown"}`;
  }

  /** RuntimeReady and NetworkReady not true, or the runtime unreachable. */
  async healthErrors(): Promise<string[]> {
    let st: {
      status?: { conditions: { type: string; status: boolean; reason: string; message: string }[] };
    };
    try {
      st = await this.#call("Status", { verbose: false });
    } catch (err) {
      return [
        `container runtime at ${this.#endpoint} is not responding: ${(err as Error).message}`,
      ];
    }
    const conds = st.status?.conditions ?? [];
    const out: string[] = [];
    for (const type of ["RuntimeReady", "NetworkReady"]) {
      const c = conds.find((x) => x.type === type);
      if (!c) {
        out.push(`container runtime status check may not have completed yet: ${type} missing`);
      } else if (!c.status) {
        out.push(
          type === "RuntimeReady"
            ? `container runtime is down: ${c.reason}: ${c.message}`
            : `container runtime network not ready: ${c.reason}: ${c.message}`,
        );
      }
    }
    return out;
  }

  async #sandboxes(): Promise<Sandbox[]> {
    const r = await this.#call<{ items: Sandbox[] }>("ListPodSandbox", {});
    return r.items;
  }

  /** ListPodSandbox. */
  async listPods(): Promise<PodSandboxStatus[]> {
    return (await this.#sandboxes()).map((s) => ({
      id: s.id,
      namespace: s.metadata?.namespace ?? "",
      name: s.metadata?.name ?? "",
      uid: s.metadata?.uid ?? "",
      ready: s.state === "SANDBOX_READY",
    }));
  }

  /** ListContainers, then ContainerStatus of each. */
  async listContainers(): Promise<ContainerStatus[]> {
    const [list, sandboxes] = await Promise.all([
      this.#call<{ containers: CriContainer[] }>("ListContainers", {}),
      this.#sandboxes(),
    ]);
    const byId = new Map(sandboxes.map((s) => [s.id, s]));
    const out: ContainerStatus[] = [];
    for (const c of list.containers) {
      const st = await this.#status(c.id).catch(() => undefined);
      if (!st) continue; // removed meanwhile
      out.push(this.#toStatus(st, byId.get(c.podSandboxId), c));
    }
    return out;
  }

  async #status(id: string): Promise<CriContainerStatus | undefined> {
    try {
      const r = await this.#call<{ status?: CriContainerStatus }>("ContainerStatus", {
        containerId: id,
        verbose: false,
      });
      return r.status?.id ? r.status : undefined;
    } catch (err) {
      if (err instanceof GrpcError && err.code === 5) return undefined;
      throw err;
    }
  }

  #toStatus(st: CriContainerStatus, sandbox?: Sandbox, c?: CriContainer): ContainerStatus {
    const labels = { ...(c?.labels ?? {}), ...st.labels };
    const annotations = { ...(c?.annotations ?? {}), ...st.annotations };
    const restart = Number(annotations[RESTART_COUNT_ANNOTATION]);
    return {
      id: st.id,
      name: labels[CRI_LABELS.containerName] ?? st.metadata?.name ?? "",
      pod: {
        namespace: labels[CRI_LABELS.podNamespace] ?? sandbox?.metadata?.namespace ?? "",
        name: labels[CRI_LABELS.podName] ?? sandbox?.metadata?.name ?? "",
        uid: labels[CRI_LABELS.podUid] ?? sandbox?.metadata?.uid ?? "",
      },
      state: criState(st),
      restartCount: Number.isInteger(restart) && restart >= 0 ? restart : st.metadata?.attempt ?? 0,
    };
  }

  /** ContainerStatus of one container, undefined when the runtime does not know it. */
  async containerStatus(id: string): Promise<ContainerStatus | undefined> {
    const st = await this.#status(id);
    if (!st) return undefined;
    const sandboxes = await this.#sandboxes().catch(() => [] as Sandbox[]);
    const list = await this.#call<{ containers: CriContainer[] }>("ListContainers", {
      filter: { id },
    }).catch(() => ({ containers: [] as CriContainer[] }));
    const c = list.containers[0];
    return this.#toStatus(st, sandboxes.find((s) => s.id === c?.podSandboxId), c);
  }

  /** Not implemented for CRI: always a CreateContainerError. */
  startContainer(): Promise<ContainerStatus> {
    return Promise.reject(
      new CreateContainerError(
        "the cri runtime adapter does not create containers (RunPodSandbox and CreateContainer are not implemented)",
      ),
    );
  }

  /** StopContainer with the grace period in seconds. */
  async stopContainer(id: string, gracePeriodMs: number): Promise<void> {
    const timeout = Math.ceil(gracePeriodMs / 1000);
    await this.#call(
      "StopContainer",
      { containerId: id, timeout },
      RUNTIME_REQUEST_MS + gracePeriodMs,
    );
  }

  /** RemoveContainer. */
  async removeContainer(id: string): Promise<void> {
    await this.#call("RemoveContainer", { containerId: id }, RUNTIME_REQUEST_MS);
  }

  /**
   * CheckpointContainer with the archive location and timeout (0: the runtime's default).
   *
   * @throws {CheckpointNotSupportedError} when the runtime answers Unimplemented.
   */
  async checkpointContainer(id: string, opts: CheckpointOptions): Promise<void> {
    const seconds = opts.timeoutSeconds > 0 ? opts.timeoutSeconds : RUNTIME_REQUEST_MS / 1000;
    try {
      await this.#call(
        "CheckpointContainer",
        { containerId: id, location: opts.location, timeout: opts.timeoutSeconds },
        seconds * 1000 + 5_000,
        opts.signal,
      );
    } catch (err) {
      if (err instanceof GrpcError && err.code === 12) {
        throw new CheckpointNotSupportedError(`cri (${this.#name})`);
      }
      throw err;
    }
  }

  /** Closes the connection (containers keep running in the runtime). */
  async close(): Promise<void> {
    await this.#grpc.close();
  }
}
