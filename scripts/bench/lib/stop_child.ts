/** Stopping a benchmark's child process: SIGTERM, then SIGKILL after a grace period. */

/** A child and a function that stops it once (later calls wait for the same exit). */
export interface StoppableChild {
  /** Resolves with the exit status. */
  status: Promise<Deno.CommandStatus>;
  /** Whether the child has exited. */
  readonly exited: boolean;
  /** Sends SIGTERM, then SIGKILL after `graceMs`, and waits for the exit. */
  stop(): Promise<void>;
}

/** Wraps a spawned child so it can be stopped politely, then firmly. */
export function stoppable(child: Deno.ChildProcess, graceMs: number): StoppableChild {
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const kill = (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  };
  return {
    status,
    get exited() {
      return exited;
    },
    async stop() {
      if (exited) return;
      kill("SIGTERM");
      const timer = setTimeout(() => kill("SIGKILL"), graceMs);
      await status;
      clearTimeout(timer);
    },
  };
}
