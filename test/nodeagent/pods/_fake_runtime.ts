/**
 * An in-memory container runtime for pod worker tests (a fake of the external runtime):
 * containers exist only as records, "exit" on request, and every call is recorded. Start
 * failures are queued with {@link FakeRuntime.failNextStart}; `execSync` answers by
 * {@link FakeRuntime.execExitCodes}.
 *
 * @module
 */
import type {
  CheckpointOptions,
  ContainerRuntime,
  ContainerSpec,
  ContainerStatus,
  ExecSyncResult,
  PodInfo,
  PodSandboxStatus,
} from "../../../nodeagent/runtime/runtime.ts";
import { rfc3339 } from "../../../nodeagent/status/node_conditions.ts";
import type { Clock } from "../../../nodeagent/clock/clock.ts";

/** A recorded call. */
export interface FakeRuntimeCall {
  method: string;
  args: unknown[];
}

/** The fake runtime. */
export class FakeRuntime implements ContainerRuntime {
  /** Runtime name. */
  readonly name = "fake";
  /** Every container, by id. */
  readonly containers = new Map<string, ContainerStatus>();
  /** Every call in order. */
  readonly calls: FakeRuntimeCall[] = [];
  readonly #clock: Clock;
  #failures: Error[] = [];
  #next = 1;

  /** Times come from `clock`. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Makes the next start attempts fail with these errors, in order. */
  failNextStart(...errors: Error[]): void {
    this.#failures.push(...errors);
  }

  /** Calls of one method. */
  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  /** Adds a running container directly (for orphans the agent never started). */
  add(pod: { namespace: string; name: string; uid: string }, name: string): ContainerStatus {
    const s: ContainerStatus = {
      id: `fake://${this.#next++}`,
      name,
      pod,
      state: { running: { startedAt: rfc3339(this.#clock.now()) } },
      restartCount: 0,
    };
    this.containers.set(s.id, s);
    return s;
  }

  /** The newest container of a pod with this name. */
  find(uid: string, name: string): ContainerStatus | undefined {
    return [...this.containers.values()].filter((c) => c.pod.uid === uid && c.name === name)
      .at(-1);
  }

  /** Ends a running container with `exitCode` now. */
  exit(id: string, exitCode: number): void {
    const c = this.containers.get(id);
    if (!c || !("running" in c.state)) throw new Error(`${id} is not running`);
    c.state = {
      terminated: {
        exitCode,
        reason: exitCode === 0 ? "Completed" : "Error",
        startedAt: c.state.running.startedAt,
        finishedAt: rfc3339(this.#clock.now()),
      },
    };
  }

  version(): Promise<string> {
    return Promise.resolve("fake://1.0.0");
  }

  healthErrors(): Promise<string[]> {
    return Promise.resolve([]);
  }

  listPods(): Promise<PodSandboxStatus[]> {
    const pods = new Map<string, PodSandboxStatus>();
    for (const c of this.containers.values()) {
      pods.set(c.pod.uid, { id: c.pod.uid, ...c.pod, ready: true });
    }
    return Promise.resolve([...pods.values()]);
  }

  listContainers(): Promise<ContainerStatus[]> {
    return Promise.resolve([...this.containers.values()].map((c) => structuredClone(c)));
  }

  containerStatus(id: string): Promise<ContainerStatus | undefined> {
    const c = this.containers.get(id);
    return Promise.resolve(c && structuredClone(c));
  }

  startContainer(pod: PodInfo, spec: ContainerSpec): Promise<ContainerStatus> {
    this.calls.push({ method: "startContainer", args: [pod, spec] });
    const failure = this.#failures.shift();
    if (failure) return Promise.reject(failure);
    const previous = this.find(pod.uid, spec.name);
    if (previous) this.containers.delete(previous.id);
    const c = this.add(
      { namespace: pod.namespace, name: pod.name, uid: pod.uid },
      spec.name,
    );
    c.restartCount = previous ? previous.restartCount + 1 : 0;
    return Promise.resolve(structuredClone(c));
  }

  stopContainer(id: string, gracePeriodMs: number): Promise<void> {
    this.calls.push({ method: "stopContainer", args: [id, gracePeriodMs] });
    const c = this.containers.get(id);
    if (c && "running" in c.state) this.exit(id, 143);
    return Promise.resolve();
  }

  removeContainer(id: string): Promise<void> {
    this.calls.push({ method: "removeContainer", args: [id] });
    this.containers.delete(id);
    return Promise.resolve();
  }

  removePod(uid: string): Promise<void> {
    this.calls.push({ method: "removePod", args: [uid] });
    return Promise.resolve();
  }

  /** Exit codes of `execSync` by the command's first word (default 0). */
  readonly execExitCodes = new Map<string, number>();

  execSync(id: string, command: string[], timeoutMs: number): Promise<ExecSyncResult> {
    this.calls.push({ method: "execSync", args: [id, command, timeoutMs] });
    const exitCode = this.execExitCodes.get(command[0]) ?? 0;
    return Promise.resolve({
      exitCode,
      stdout: "",
      stderr: exitCode ? `${command[0]} failed` : "",
      timedOut: false,
    });
  }

  checkpointContainer(_id: string, _opts: CheckpointOptions): Promise<void> {
    return Promise.reject(new Error("the fake runtime does not checkpoint"));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
