/**
 * The `process` runtime: each container is a real host process started from the container's
 * command, args and env, in its own working directory
 * `<root-dir>/pods/<pod-uid>/containers/<name>/work`, with its output appended to
 * `<...>/<name>/<restart-count>.log` in the kubelet's CRI log format. Seccomp profiles are resolved and validated (a missing
 * Localhost profile fails creation) but not enforced on the process. Checkpoints capture the
 * live process with {@link captureProcess}.
 *
 * @module
 */
import {
  type CheckpointOptions,
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerState,
  type ContainerStatus,
  CreateContainerError,
  type ExecSyncResult,
  type PodInfo,
  type PodSandboxStatus,
} from "../runtime.ts";
import { type ResolvedSeccomp, resolveSeccompProfile } from "../seccomp_profile.ts";
import { writeArchiveAtomically } from "../../checkpoint/archive_writer.ts";
import { captureProcess } from "./capture_process.ts";
import { criRecords } from "./cri_log_writer.ts";
import type { ContainerInput, StreamTarget } from "../stream_target.ts";
import type { Clock } from "../../clock/clock.ts";
import { systemClock } from "../../clock/clock.ts";
import { formatTime } from "../../../shared/api/meta/v1/time.ts";

/** The version reported as `process://<version>`. */
export const PROCESS_RUNTIME_VERSION = "0.1.0";

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const UID = /^[A-Za-z0-9][-A-Za-z0-9]{0,62}$/;

interface Entry {
  id: string;
  pod: PodInfo;
  spec: ContainerSpec;
  seccomp: ResolvedSeccomp;
  dir: string;
  workDir: string;
  restartCount: number;
  child: Deno.ChildProcess;
  startedAt: number;
  createdAt: number;
  argv: string[];
  env: Record<string, string>;
  state: ContainerState;
  exited: Promise<void>;
  /** The process' standard input, for containers with `stdin: true`. */
  stdin?: ContainerInput;
}

/** Options of {@link ProcessRuntime}. */
export interface ProcessRuntimeOptions {
  /** The agent's root directory. */
  rootDir: string;
  /** Use RuntimeDefault for containers with no seccomp profile. */
  seccompDefault?: boolean;
  /** Time source for state timestamps. */
  clock?: Clock;
}

function iso(ms: number): string {
  return formatTime(ms);
}

function randomId(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/** Runs containers as host processes. */
export class ProcessRuntime implements ContainerRuntime {
  /** Runtime name. */
  readonly name = "process";
  readonly #opts: ProcessRuntimeOptions;
  readonly #clock: Clock;
  readonly #byId = new Map<string, Entry>();
  readonly #byKey = new Map<string, Entry>();

  /** Creates a runtime rooted at `opts.rootDir`. */
  constructor(opts: ProcessRuntimeOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
  }

  /** `process://<version>`. */
  version(): Promise<string> {
    return Promise.resolve(`process://${PROCESS_RUNTIME_VERSION}`);
  }

  /** Healthy while the root directory is usable. */
  async healthErrors(): Promise<string[]> {
    try {
      await Deno.stat(this.#opts.rootDir);
      return [];
    } catch (e) {
      return [`container runtime root ${this.#opts.rootDir} is unusable: ${(e as Error).message}`];
    }
  }

  /** One sandbox per pod with containers; ready while any of them runs. */
  listPods(): Promise<PodSandboxStatus[]> {
    const pods = new Map<string, PodSandboxStatus>();
    for (const e of this.#byId.values()) {
      const p = pods.get(e.pod.uid) ??
        {
          id: e.pod.uid,
          namespace: e.pod.namespace,
          name: e.pod.name,
          uid: e.pod.uid,
          ready: false,
        };
      p.ready ||= "running" in e.state;
      pods.set(e.pod.uid, p);
    }
    return Promise.resolve([...pods.values()]);
  }

  /** Every container, running or exited. */
  listContainers(): Promise<ContainerStatus[]> {
    return Promise.resolve([...this.#byId.values()].map((e) => this.#status(e)));
  }

  /** One container's status. */
  containerStatus(id: string): Promise<ContainerStatus | undefined> {
    const e = this.#entry(id);
    return Promise.resolve(e && this.#status(e));
  }

  #status(e: Entry): ContainerStatus {
    const s: ContainerStatus = {
      id: `process://${e.id}`,
      name: e.spec.name,
      pod: { namespace: e.pod.namespace, name: e.pod.name, uid: e.pod.uid },
      state: structuredClone(e.state),
      restartCount: e.restartCount,
      seccomp: { type: e.seccomp.type, localhostPath: e.seccomp.localhostPath },
    };
    if (!s.seccomp!.localhostPath) delete s.seccomp!.localhostPath;
    if ("running" in e.state) s.pid = e.child.pid;
    return s;
  }

  #entry(id: string): Entry | undefined {
    return this.#byId.get(id.replace(/^process:\/\//, ""));
  }

  /**
   * Starts the container as a process.
   *
   * @throws {CreateContainerError} for an invalid name, a missing command, a seccomp problem or
   *   an executable that cannot be started.
   */
  async startContainer(pod: PodInfo, spec: ContainerSpec): Promise<ContainerStatus> {
    const { key, previous, argv } = this.#checkStartable(pod, spec);
    const seccomp = await resolveSeccompProfile(pod, spec, {
      rootDir: this.#opts.rootDir,
      seccompDefault: this.#opts.seccompDefault ?? false,
    });
    const dir = `${this.#opts.rootDir}/pods/${pod.uid}/containers/${spec.name}`;
    const workDir = spec.workingDir || `${dir}/work`;
    await Deno.mkdir(`${dir}/work`, { recursive: true, mode: 0o700 });
    const env: Record<string, string> = { PATH: DEFAULT_PATH };
    for (const e of spec.env ?? []) env[e.name] = e.value ?? "";
    const restartCount = previous ? previous.restartCount + 1 : 0;
    if (previous) this.#byId.delete(previous.id);
    const log = await Deno.open(`${dir}/${restartCount}.log`, {
      create: true,
      append: true,
      mode: 0o600,
    });
    const child = spawnContainer(spec.name, argv, env, workDir, log, spec.stdin === true);
    const now = this.#clock.now();
    const entry: Entry = {
      id: randomId(),
      pod,
      spec,
      seccomp,
      dir,
      workDir,
      restartCount,
      child,
      startedAt: now,
      createdAt: now,
      argv,
      env,
      state: { running: { startedAt: iso(now) } },
      exited: Promise.resolve(),
      ...(spec.stdin ? { stdin: containerInput(child, spec.stdinOnce === true) } : {}),
    };
    this.#watchExit(entry, log);
    this.#byId.set(entry.id, entry);
    this.#byKey.set(key, entry);
    return this.#status(entry);
  }

  /**
   * Checks that the container may be started: a valid name and pod uid, not already running, a
   * command; returns its key, its previous entry and its argv.
   *
   * @throws {CreateContainerError} when it may not.
   */
  #checkStartable(
    pod: PodInfo,
    spec: ContainerSpec,
  ): { key: string; previous: Entry | undefined; argv: string[] } {
    if (!DNS_LABEL.test(spec.name)) {
      throw new CreateContainerError(`invalid container name ${JSON.stringify(spec.name)}`);
    }
    if (!UID.test(pod.uid)) {
      throw new CreateContainerError(`invalid pod uid ${JSON.stringify(pod.uid)}`);
    }
    const key = `${pod.uid}/${spec.name}`;
    const previous = this.#byKey.get(key);
    if (previous && "running" in previous.state) {
      throw new CreateContainerError(
        `container ${spec.name} of pod ${pod.namespace}/${pod.name} is already running`,
      );
    }
    const argv = [...(spec.command ?? []), ...(spec.args ?? [])];
    if (argv.length === 0) {
      throw new CreateContainerError(
        `failed to create container "${spec.name}": the process runtime needs a command: no command specified`,
      );
    }
    return { key, previous, argv };
  }

  /** Copies the process's output into `log` and records its exit in `entry.state`. */
  #watchExit(entry: Entry, log: Deno.FsFile): void {
    const child = entry.child;
    // Written with the file's own write(): its `writable` holds the bytes back until it is
    // closed, and `kubectl logs -f` wants them as they come.
    let written = Promise.resolve();
    const append = (bytes: Uint8Array) =>
      written = written.then(async () => {
        for (let off = 0; off < bytes.length;) off += await log.write(bytes.subarray(off));
      }).catch(() => {});
    const pump = async (s: ReadableStream<Uint8Array>, stream: "stdout" | "stderr") => {
      for await (const chunk of s) await append(criRecords(stream, chunk, this.#clock.now()));
    };
    const pumps = Promise.allSettled([
      pump(child.stdout, "stdout"),
      pump(child.stderr, "stderr"),
    ]).then(async () => {
      await written.catch(() => {});
      log.close();
    });
    // As a container's processes end with its first one, the processes it left behind are
    // killed when it exits: they would hold the output open (and the container "running").
    const status = child.status.then((st) => {
      signalGroup(child.pid, "SIGKILL");
      return st;
    });
    entry.exited = Promise.all([status, pumps]).then(([st]) => {
      entry.state = {
        terminated: {
          exitCode: st.code,
          ...(st.signal ? { signal: st.code - 128 } : {}),
          reason: st.code === 0 ? "Completed" : "Error",
          startedAt: iso(entry.startedAt),
          finishedAt: iso(this.#clock.now()),
        },
      };
    });
  }

  /** The container for the agent's streaming endpoints (logs, exec). */
  streamTarget(namespace: string, pod: string, container: string): StreamTarget | undefined {
    for (const e of this.#byKey.values()) {
      if (e.pod.namespace !== namespace || e.pod.name !== pod || e.spec.name !== container) {
        continue;
      }
      return {
        running: "running" in e.state,
        logPath: `${e.dir}/${e.restartCount}.log`,
        ...(e.restartCount > 0 ? { previousLogPath: `${e.dir}/${e.restartCount - 1}.log` } : {}),
        workDir: e.workDir,
        env: { ...e.env },
        exited: e.exited,
        ...(e.stdin ? { stdin: e.stdin } : {}),
      };
    }
    return undefined;
  }

  /** Whether a container of the pod runs (port-forward reaches its ports on 127.0.0.1). */
  hasRunningPod(namespace: string, pod: string): boolean {
    for (const e of this.#byKey.values()) {
      if (e.pod.namespace === namespace && e.pod.name === pod && "running" in e.state) return true;
    }
    return false;
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves when the process has exited. */
  async stopContainer(id: string, gracePeriodMs: number): Promise<void> {
    const e = this.#entry(id);
    if (!e) return;
    if ("running" in e.state) {
      try {
        e.child.kill("SIGTERM");
        Deno.kill(e.child.pid, "SIGCONT");
      } catch {
        // already gone
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<"grace">((
        r,
      ) => (timer = setTimeout(() => r("grace"), gracePeriodMs)));
      const outcome = await Promise.race([e.exited.then(() => "exited" as const), graceOver]);
      clearTimeout(timer);
      if (outcome === "grace") signalGroup(e.child.pid, "SIGKILL");
    }
    await e.exited;
  }

  /** Forgets an exited container and deletes its files. */
  async removeContainer(id: string): Promise<void> {
    const e = this.#entry(id);
    if (!e) return;
    if ("running" in e.state) throw new Error(`Cannot remove running container ${id}`);
    this.#byId.delete(e.id);
    const key = `${e.pod.uid}/${e.spec.name}`;
    if (this.#byKey.get(key) === e) this.#byKey.delete(key);
    await Deno.remove(e.dir, { recursive: true }).catch(() => {});
  }

  /** Stops and forgets the pod's remaining containers and deletes its directory. */
  async removePod(uid: string): Promise<void> {
    if (!UID.test(uid)) return;
    const mine = [...this.#byId.values()].filter((e) => e.pod.uid === uid);
    for (const e of mine) {
      await this.stopContainer(e.id, 0);
      await this.removeContainer(e.id);
    }
    await Deno.remove(`${this.#opts.rootDir}/pods/${uid}`, { recursive: true }).catch(() => {});
  }

  /** Captures the running process into the archive at `opts.location`. */
  async checkpointContainer(id: string, opts: CheckpointOptions): Promise<void> {
    const e = this.#entry(id);
    if (!e) throw new Error(`container ${id} does not exist`);
    if (!("running" in e.state)) throw new Error(`container ${e.spec.name} is not running`);
    const pid = e.child.pid;
    const checkpointedAt = new Date(this.#clock.now()).toISOString();
    await writeArchiveAtomically(opts.location, async (w) => {
      await w.addFile(
        "config.dump",
        JSON.stringify(
          {
            id: e.id,
            name: e.spec.name,
            rootfsImage: e.spec.image ?? "",
            rootfsImageRef: "",
            rootfsImageName: e.spec.image ?? "",
            runtime: "process",
            createdTime: new Date(e.createdAt).toISOString(),
            checkpointedTime: checkpointedAt,
            restored: false,
          },
          null,
          2,
        ),
      );
      await w.addFile(
        "spec.dump",
        JSON.stringify(
          {
            ociVersion: "1.0.2",
            process: {
              args: e.argv,
              env: Object.entries(e.env).map(([k, v]) => `${k}=${v}`),
              cwd: e.workDir,
            },
            linux: {
              seccomp: e.seccomp.type === "Localhost" ? e.seccomp.profile : undefined,
            },
            annotations: {
              "io.kubernetes.pod.name": e.pod.name,
              "io.kubernetes.pod.namespace": e.pod.namespace,
              "io.kubernetes.pod.uid": e.pod.uid,
              "io.kubernetes.container.name": e.spec.name,
              "io.kubernetes.container.restartCount": String(e.restartCount),
              "org.nodeagent.seccomp.type": e.seccomp.type,
            },
          },
          null,
          2,
        ),
      );
      const stats = await captureProcess(pid, w, { workDir: e.workDir, signal: opts.signal });
      await w.addFile("stats-dump", JSON.stringify({ pid, ...stats }, null, 2));
      await w.addFile(
        "dump.log",
        `captured pid ${pid}: ${stats.regions} regions, ${stats.memoryBytes} bytes, ` +
          `${stats.unreadableRegions} unreadable regions, ${stats.workdirFiles} working-directory files, ` +
          `paused ${stats.pausedMs} ms\n`,
      );
    }, opts.signal);
  }

  /**
   * Runs `command` as a host process with the container's environment and working directory
   * (the process runtime's "inside the container"); killed when the timeout passes.
   */
  execSync(id: string, command: string[], timeoutMs: number): Promise<ExecSyncResult> {
    const e = this.#entry(id);
    if (!e || !("running" in e.state)) {
      return Promise.reject(new Error(`container ${id} is not running`));
    }
    return runCommand(command, e.env, e.workDir, timeoutMs);
  }

  /** Kills every container and waits for them to exit. */
  async close(): Promise<void> {
    await Promise.all([...this.#byId.values()].map((e) => this.stopContainer(e.id, 0)));
  }
}

/**
 * Spawns the container's process with piped output; closes `log` when it cannot.
 *
 * @throws {CreateContainerError} when the executable cannot be started.
 */
function spawnContainer(
  name: string,
  argv: string[],
  env: Record<string, string>,
  workDir: string,
  log: Deno.FsFile,
  stdin: boolean,
): Deno.ChildProcess {
  try {
    return new Deno.Command(argv[0], {
      args: argv.slice(1),
      env,
      clearEnv: true,
      cwd: workDir,
      stdin: stdin ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
      // Its own session and process group (setsid), so the container's processes are
      // signalled together.
      detached: true,
    }).spawn();
  } catch (e) {
    log.close();
    throw new CreateContainerError(
      `failed to start container "${name}": exec: ${JSON.stringify(argv[0])}: ${
        (e as Error).message
      }`,
    );
  }
}

/** Sends `signal` to the process group `pgid` (a container's processes); ignores a gone group. */
function signalGroup(pgid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** Runs a command to completion (or until the timeout kills it) and collects its output. */
async function runCommand(
  command: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
): Promise<ExecSyncResult> {
  if (command.length === 0) throw new Error("exec: no command specified");
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command[0], {
      args: command.slice(1),
      env,
      clearEnv: true,
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (err) {
    return {
      exitCode: 126,
      stdout: "",
      stderr: `exec: ${JSON.stringify(command[0])}: ${(err as Error).message}`,
      timedOut: false,
    };
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }, timeoutMs);
  try {
    const out = await child.output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    return {
      exitCode: timedOut ? -1 : out.code,
      stdout: text(out.stdout),
      stderr: text(out.stderr),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** The standard input of a container with `stdin: true`; `once` closes it after one session. */
function containerInput(child: Deno.ChildProcess, once: boolean): ContainerInput {
  const writer = child.stdin.getWriter();
  let open = true;
  return {
    async write(data) {
      if (open) await writer.write(data).catch(() => {});
    },
    sessionEnded() {
      if (!once || !open) return;
      open = false;
      writer.close().catch(() => {});
    },
  };
}
