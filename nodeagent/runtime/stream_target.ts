/**
 * What the agent's streaming endpoints (logs, exec, attach, port-forward) need from a runtime
 * about one container: where its logs are and how to run a command in its context.
 *
 * @module
 */

/** One container as the streaming endpoints see it. */
export interface StreamTarget {
  /** Whether the container's current instance is running. */
  running: boolean;
  /** The log file of the current instance (CRI log format). */
  logPath: string;
  /** The log file of the last terminated instance, if there was one. */
  previousLogPath?: string;
  /** The working directory commands run in. */
  workDir: string;
  /** The container's environment. */
  env: Record<string, string>;
  /** Resolves when the current instance exits. */
  exited: Promise<void>;
  /** The main process' standard input (containers with `stdin: true`), for attach. */
  stdin?: ContainerInput;
}

/** A container's standard input, shared by its attach sessions. */
export interface ContainerInput {
  /** Writes to the input (nothing once it is closed). */
  write(data: Uint8Array): Promise<void>;
  /** An attach session ended: the input closes if the container has `stdinOnce`. */
  sessionEnded(): void;
}

/** A runtime that can serve streaming requests for its containers. */
export interface StreamingRuntime {
  /** The container `container` of pod `namespace/pod`, or undefined when it has none. */
  streamTarget(namespace: string, pod: string, container: string): StreamTarget | undefined;
  /** Whether the runtime runs a container of pod `namespace/pod`. */
  hasRunningPod(namespace: string, pod: string): boolean;
}

/** Whether `runtime` serves streaming requests. */
export function isStreamingRuntime(runtime: unknown): runtime is StreamingRuntime {
  return typeof (runtime as Partial<StreamingRuntime>).streamTarget === "function";
}
