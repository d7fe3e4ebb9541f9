/**
 * The `cri` runtime adapter: the Container Runtime Interface (`runtime.v1.RuntimeService`) over
 * gRPC on a unix socket, as containerd and CRI-O serve it, selected with
 * `containerRuntimeEndpoint` (`unix:///run/containerd/containerd.sock` or a socket path).
 *
 * Implemented: Version, Status (health), ListPodSandbox, ListContainers with ContainerStatus,
 * StopContainer, RemoveContainer, CheckpointContainer (archive location and timeout),
 * ListContainerStats (the containers' CPU and memory), and
 * container creation as the kubelet does it: the pod's sandbox (RunPodSandbox, reused while
 * ready), the image (ImageStatus, PullImage by pull policy), CreateContainer and
 * StartContainer, with the configurations of `cri_configs.ts`; StopPodSandbox and
 * RemovePodSandbox when a pod goes. Containers are tied to pods by the kubelet's labels
 * (`io.kubernetes.pod.uid`, …) or else by their sandbox's metadata.
 *
 * Failures map to the waiting reasons the kubelet shows: a seccomp problem or a failed
 * CreateContainer is `CreateContainerError`, a failed pull `ErrImagePull` (`ErrImageNeverPull`
 * with `Never`), a failed RunPodSandbox keeps the container `ContainerCreating`, and a failed
 * StartContainer is `RunContainerError`.
 *
 * @module
 */
import { rfc3339 } from "../../status/node_conditions.ts";
import {
  CheckpointNotSupportedError,
  type CheckpointOptions,
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerState,
  type ContainerStatsReading,
  type ContainerStatus,
  CreateContainerError,
  type ExecSyncResult,
  ImagePullError,
  type PodInfo,
  PodSandboxError,
  type PodSandboxStatus,
} from "../runtime.ts";
import {
  containerConfig,
  containerSeccomp,
  type CriConfigOptions,
  type CriPodSandboxConfig,
  effectivePullPolicy,
  podSandboxConfig,
  sandboxSeccomp,
} from "./cri_configs.ts";
import { CRI_LABELS, RESTART_COUNT_ANNOTATION } from "./cri_configs.ts";
import { decodeCri, encodeCri, IMAGE_SERVICE, RUNTIME_SERVICE } from "./cri_messages.ts";
import { GrpcClient, GrpcError } from "./grpc_client.ts";
import { type CriContainerStats, criStatsReadings } from "./cri_stats.ts";

export { CRI_LABELS, RESTART_COUNT_ANNOTATION };

/** Options of {@link CriRuntime}. */
export interface CriRuntimeOptions {
  /** The agent's root directory (seccomp profiles, pod log directories). */
  rootDir?: string;
  /** RuntimeDefault for containers without a seccomp profile (default false). */
  seccompDefault?: boolean;
}

/** The longest an image pull may take (ms). */
const PULL_MS = 10 * 60_000;

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

function restartCountOf(c: { annotations?: Record<string, string>; metadata?: Meta }): number {
  const n = Number(c.annotations?.[RESTART_COUNT_ANNOTATION]);
  return Number.isInteger(n) && n >= 0 ? n : c.metadata?.attempt ?? 0;
}

/** The CRI runtime adapter. */
export class CriRuntime implements ContainerRuntime {
  readonly #grpc: GrpcClient;
  readonly #endpoint: string;
  readonly #config: CriConfigOptions;
  #name = "cri";

  /**
   * Creates the adapter (it connects on the first call).
   *
   * @throws {Error} for an endpoint that is not a unix socket.
   */
  constructor(endpoint: string, opts: CriRuntimeOptions = {}) {
    this.#endpoint = endpoint;
    this.#grpc = new GrpcClient(criSocketPath(endpoint));
    this.#config = {
      rootDir: opts.rootDir ?? "/var/lib/nodeagent",
      seccompDefault: opts.seccompDefault ?? false,
    };
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
    service = RUNTIME_SERVICE,
  ): Promise<T> {
    const bytes = await this.#grpc.call(
      service + method,
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

  async #sandboxes(filter?: Record<string, unknown>): Promise<Sandbox[]> {
    const r = await this.#call<{ items: Sandbox[] }>(
      "ListPodSandbox",
      filter ? { filter } : {},
    );
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

  /**
   * Creates and starts a container as the kubelet does: resolves the seccomp profiles, finds
   * the pod's ready sandbox or runs a new one, makes sure of the image, then CreateContainer and
   * StartContainer with the next restart count. Older exited instances of the container beyond
   * the newest are removed (the kubelet keeps one dead container per name).
   *
   * @throws {CreateContainerError} for a seccomp problem or a failed CreateContainer.
   * @throws {ImagePullError} when the image is missing and cannot be pulled.
   * @throws {PodSandboxError} when RunPodSandbox fails.
   * @throws {Error} when StartContainer fails (`RunContainerError`).
   */
  async startContainer(pod: PodInfo, spec: ContainerSpec): Promise<ContainerStatus> {
    if (!spec.image) {
      throw new CreateContainerError(`container "${spec.name}" has no image`);
    }
    const seccomp = await containerSeccomp(pod, spec, this.#config);
    const { id: sandboxId, config: sandboxConfig } = await this.#ensureSandbox(pod);
    const imageRef = await this.#ensureImage(spec, sandboxConfig);
    const previous = await this.#call<{ containers: CriContainer[] }>("ListContainers", {
      filter: {
        labelSelector: { [CRI_LABELS.podUid]: pod.uid, [CRI_LABELS.containerName]: spec.name },
      },
    });
    const restartCount = previous.containers.reduce(
      (n, c) => Math.max(n, restartCountOf(c) + 1),
      0,
    );
    await Deno.mkdir(`${sandboxConfig.logDirectory}/${spec.name}`, {
      recursive: true,
      mode: 0o755,
    });
    let id: string;
    try {
      const created = await this.#call<{ containerId: string }>("CreateContainer", {
        podSandboxId: sandboxId,
        config: containerConfig(pod, spec, { restartCount, imageRef, seccomp }),
        sandboxConfig,
      }, RUNTIME_REQUEST_MS);
      id = created.containerId;
    } catch (err) {
      throw new CreateContainerError((err as Error).message);
    }
    try {
      await this.#call("StartContainer", { containerId: id }, RUNTIME_REQUEST_MS);
    } catch (err) {
      await this.#call("RemoveContainer", { containerId: id }, RUNTIME_REQUEST_MS).catch(() => {});
      throw new Error(`failed to start container "${spec.name}": ${(err as Error).message}`);
    }
    // Keep the newest dead instance only.
    const dead = previous.containers
      .filter((c) => c.state === "CONTAINER_EXITED")
      .sort((a, b) => restartCountOf(b) - restartCountOf(a))
      .slice(1);
    for (const c of dead) {
      await this.#call("RemoveContainer", { containerId: c.id }, RUNTIME_REQUEST_MS)
        .catch(() => {});
    }
    const status = await this.containerStatus(id);
    if (!status) throw new Error(`container "${spec.name}" (${id}) vanished after its start`);
    return status;
  }

  /** The pod's ready sandbox, or a new one (attempt one more than the last). */
  async #ensureSandbox(pod: PodInfo): Promise<{ id: string; config: CriPodSandboxConfig }> {
    const seccomp = await sandboxSeccomp(pod, this.#config);
    const mine = await this.#sandboxes({ labelSelector: { [CRI_LABELS.podUid]: pod.uid } });
    const ready = mine.find((s) => s.state === "SANDBOX_READY");
    const attempt = ready?.metadata?.attempt ??
      mine.reduce((n, s) => Math.max(n, (s.metadata?.attempt ?? 0) + 1), 0);
    const config = podSandboxConfig(pod, attempt, seccomp, this.#config);
    if (ready) return { id: ready.id, config };
    await Deno.mkdir(config.logDirectory, { recursive: true, mode: 0o755 });
    try {
      const r = await this.#call<{ podSandboxId: string }>(
        "RunPodSandbox",
        { config },
        RUNTIME_REQUEST_MS,
      );
      return { id: r.podSandboxId, config };
    } catch (err) {
      throw new PodSandboxError(`Failed to create pod sandbox: ${(err as Error).message}`);
    }
  }

  /** The image reference to create the container from, pulled when the policy says so. */
  async #ensureImage(spec: ContainerSpec, sandboxConfig: CriPodSandboxConfig): Promise<string> {
    const image = spec.image!;
    const policy = effectivePullPolicy(spec);
    if (policy !== "Always") {
      let present: { image?: { id: string } };
      try {
        present = await this.#call(
          "ImageStatus",
          { image: { image } },
          QUICK_MS,
          undefined,
          IMAGE_SERVICE,
        );
      } catch (err) {
        throw new ImagePullError(
          `Failed to inspect image ${JSON.stringify(image)}: ${(err as Error).message}`,
        );
      }
      if (present.image?.id) return present.image.id;
      if (policy === "Never") {
        throw new ImagePullError(
          `Container image ${JSON.stringify(image)} is not present with pull policy of Never`,
          "ErrImageNeverPull",
        );
      }
    }
    try {
      const pulled = await this.#call<{ imageRef: string }>(
        "PullImage",
        { image: { image }, sandboxConfig },
        PULL_MS,
        undefined,
        IMAGE_SERVICE,
      );
      return pulled.imageRef || image;
    } catch (err) {
      throw new ImagePullError(
        `Failed to pull image ${JSON.stringify(image)}: ${(err as Error).message}`,
      );
    }
  }

  /** StopPodSandbox and RemovePodSandbox of every sandbox of the pod; its log directory goes. */
  async removePod(uid: string): Promise<void> {
    const mine = await this.#sandboxes({ labelSelector: { [CRI_LABELS.podUid]: uid } });
    for (const s of mine) {
      await this.#call("StopPodSandbox", { podSandboxId: s.id }, RUNTIME_REQUEST_MS);
      await this.#call("RemovePodSandbox", { podSandboxId: s.id }, RUNTIME_REQUEST_MS);
      const m = s.metadata;
      if (m?.name && m.namespace && m.uid === uid && /^[-A-Za-z0-9]+$/.test(uid)) {
        await Deno.remove(
          `${this.#config.rootDir.replace(/\/+$/, "")}/pod-logs/${m.namespace}_${m.name}_${uid}`,
          { recursive: true },
        ).catch(() => {});
      }
    }
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

  /** ListContainerStats: CPU and memory of every container the runtime measures. */
  async containerStats(): Promise<ContainerStatsReading[]> {
    const r = await this.#call<{ stats: CriContainerStats[] }>("ListContainerStats", {});
    return criStatsReadings(r.stats);
  }

  /** ExecSync: runs a command in the container; DeadlineExceeded counts as a timeout. */
  async execSync(id: string, command: string[], timeoutMs: number): Promise<ExecSyncResult> {
    try {
      const r = await this.#call<{ stdout: Uint8Array; stderr: Uint8Array; exitCode: number }>(
        "ExecSync",
        { containerId: id, cmd: command, timeout: Math.ceil(timeoutMs / 1000) },
        timeoutMs + RUNTIME_REQUEST_MS,
      );
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      return {
        exitCode: r.exitCode,
        stdout: text(r.stdout),
        stderr: text(r.stderr),
        timedOut: false,
      };
    } catch (err) {
      if (err instanceof GrpcError && err.code === 4) {
        return { exitCode: -1, stdout: "", stderr: "", timedOut: true };
      }
      throw err;
    }
  }

  /** Closes the connection (containers keep running in the runtime). */
  async close(): Promise<void> {
    await this.#grpc.close();
  }
}
