/**
 * Container lifecycle hooks and killing a container as the kubelet does
 * (`kuberuntime_container.go`): `postStart` and `preStop` handlers (exec, httpGet, sleep), and
 * a kill that runs the `preStop` hook within the grace period, then stops the container with
 * what is left of it (at least 2 s, the kubelet's `minimumGracePeriodInSeconds`).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Clock } from "../clock/clock.ts";
import { type EventRecorder, podEventObject } from "../events/event_recorder.ts";
import type { ProbeHandler } from "../probes/probe_spec.ts";
import { runProbe } from "../probes/run_probe.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import type { PodContainer } from "./pod_spec.ts";

/** The kubelet's shortest grace period when it kills a container (s). */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;

/** What hooks and kills need. */
export interface LifecycleContext {
  /** The runtime. */
  runtime: ContainerRuntime;
  /** Time (the sleep action, the grace period left after preStop). */
  clock: Clock;
  /** Events. */
  recorder?: EventRecorder;
  /** The pod IP (the default host of httpGet hooks). */
  podIP: string;
  /** Aborted when the agent stops. */
  signal?: AbortSignal;
}

function podRef(pod: KubeObject): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
}

/**
 * Runs a lifecycle hook handler in the container; resolves to the kubelet's failure message,
 * or undefined when the hook succeeded.
 */
export async function runHook(
  handler: ProbeHandler,
  at: { pod: KubeObject; container: PodContainer; containerId: string; timeoutMs: number },
  ctx: LifecycleContext,
): Promise<string | undefined> {
  const { pod, container, containerId, timeoutMs } = at;
  if (handler.sleep) {
    await ctx.clock.sleep(Math.min(handler.sleep.seconds * 1000, timeoutMs), ctx.signal)
      .catch(() => {});
    return undefined;
  }
  const out = await runProbe(handler, {
    runtime: ctx.runtime,
    containerId,
    container,
    podIP: ctx.podIP,
  }, timeoutMs);
  if (out.result === "success") return undefined;
  const where = `for Container ${JSON.stringify(container.name)} in Pod ${
    JSON.stringify(podRef(pod))
  } failed`;
  if (handler.exec) {
    const cmd = handler.exec.command ?? [];
    return `Exec lifecycle hook (${JSON.stringify(cmd)}) ${where} - error: command '${
      cmd.join(" ")
    }' exited with a failure, message: ${JSON.stringify(out.output)}`;
  }
  if (handler.httpGet) {
    return `HTTP lifecycle hook (${handler.httpGet.path ?? "/"}) ${where} - error: ${out.output}`;
  }
  return `${out.output} ${where}`;
}

/** The grace period of a kill (s): the deletion's, else the override, else the pod's (30). */
export function gracePeriodSeconds(pod: KubeObject, override?: number): number {
  const spec = (pod.spec ?? {}) as { terminationGracePeriodSeconds?: number };
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) {
    return pod.metadata.deletionGracePeriodSeconds;
  }
  return override ?? spec.terminationGracePeriodSeconds ?? 30;
}

/**
 * Kills one container: a `Killing` event with `message`, the `preStop` hook (a failure is a
 * `FailedPreStopHook` event), then SIGTERM and SIGKILL after the rest of the grace period.
 */
export async function killContainer(
  pod: KubeObject,
  c: PodContainer,
  kill: { containerId: string; graceSeconds: number; message: string },
  ctx: LifecycleContext,
): Promise<void> {
  const obj = podEventObject(pod, c.name);
  ctx.recorder?.event(obj, "Normal", "Killing", kill.message);
  let graceMs = kill.graceSeconds * 1000;
  const preStop = c.lifecycle?.preStop;
  if (preStop && graceMs > 0) {
    const began = ctx.clock.now();
    const hook = runHook(preStop, {
      pod,
      container: c,
      containerId: kill.containerId,
      timeoutMs: graceMs,
    }, ctx);
    const failure = await hook.catch((err) => String((err as Error).message ?? err));
    if (failure) ctx.recorder?.event(obj, "Warning", "FailedPreStopHook", failure);
    graceMs -= ctx.clock.now() - began;
  }
  graceMs = Math.max(graceMs, MINIMUM_GRACE_PERIOD_SECONDS * 1000);
  await ctx.runtime.stopContainer(kill.containerId, graceMs);
}
