/**
 * The scheduling queue, as kube-scheduler's: an active queue processed one pod at a time, a
 * back-off per pod (1 s after the first failed attempt, doubling up to 10 s), and the
 * unschedulable pods, which wait for a change to the cluster (a node, or a pod bound or gone)
 * and then retry once their back-off has passed. A change that came while a pod was being
 * scheduled sends it straight to back-off; unschedulable pods are retried after 5 minutes
 * regardless.
 *
 * @module
 */
import { WorkQueue } from "../work_queue.ts";

/** Timing of the queue (kube's defaults). */
export interface QueueTiming {
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Longest an unschedulable pod waits without a change (kube: 5 minutes). */
  maxUnschedulableMs?: number;
  now?: () => number;
}

interface Waiting {
  attempts: number;
  /** When the last attempt failed. */
  failedAt: number;
  timer?: ReturnType<typeof setTimeout>;
}

/** Pods to schedule, with back-off. */
export class SchedulingQueue {
  readonly #active: WorkQueue<string>;
  readonly #timing: Required<QueueTiming>;
  /** Pods that failed, by key: back-off state; `unschedulable` pods wait for a change. */
  readonly #waiting = new Map<string, Waiting>();
  readonly #unschedulable = new Set<string>();
  #changes = 0;
  #flush?: ReturnType<typeof setInterval>;

  constructor(
    process: (key: string) => Promise<void>,
    onError: (key: string, err: unknown) => void,
    timing: QueueTiming = {},
  ) {
    this.#active = new WorkQueue(process, onError);
    this.#timing = {
      initialBackoffMs: timing.initialBackoffMs ?? 1_000,
      maxBackoffMs: timing.maxBackoffMs ?? 10_000,
      maxUnschedulableMs: timing.maxUnschedulableMs ?? 300_000,
      now: timing.now ?? Date.now,
    };
    this.#flush = setInterval(() => this.#flushOld(), 30_000);
  }

  /** The count of cluster changes so far (read before an attempt; see {@link failed}). */
  get changes(): number {
    return this.#changes;
  }

  /** Queues a pod that is new or changed (a pod still backing off waits for its back-off). */
  add(key: string): void {
    const w = this.#waiting.get(key);
    if (w) {
      this.#unschedulable.delete(key);
      this.#afterBackoff(key, w);
      return;
    }
    this.#active.add(key);
  }

  /** Whether the pod failed and waits (for a change, or its back-off). */
  isWaiting(key: string): boolean {
    return this.#waiting.has(key);
  }

  /** Forgets a pod (bound, deleted, or not ours). */
  forget(key: string): void {
    const w = this.#waiting.get(key);
    if (w) clearTimeout(w.timer);
    this.#waiting.delete(key);
    this.#unschedulable.delete(key);
  }

  /** The back-off after `attempts` failed attempts. */
  backoffMs(attempts: number): number {
    const ms = this.#timing.initialBackoffMs * 2 ** Math.max(0, attempts - 1);
    return Math.min(ms, this.#timing.maxBackoffMs);
  }

  /**
   * Records a failed attempt: the pod waits for a change, or (when the cluster changed since
   * `changesAtStart`) retries after its back-off.
   */
  failed(key: string, changesAtStart: number): void {
    const w = this.#waiting.get(key) ?? { attempts: 0, failedAt: 0 };
    clearTimeout(w.timer);
    w.attempts++;
    w.failedAt = this.#timing.now();
    this.#waiting.set(key, w);
    if (changesAtStart !== this.#changes) this.#afterBackoff(key, w);
    else this.#unschedulable.add(key);
  }

  /** A change to the cluster: every unschedulable pod retries once its back-off has passed. */
  clusterChanged(): void {
    this.#changes++;
    for (const key of this.#unschedulable) this.#afterBackoff(key, this.#waiting.get(key)!);
    this.#unschedulable.clear();
  }

  #afterBackoff(key: string, w: Waiting): void {
    clearTimeout(w.timer);
    const wait = w.failedAt + this.backoffMs(w.attempts) - this.#timing.now();
    if (wait <= 0) {
      this.#active.add(key);
      return;
    }
    w.timer = setTimeout(() => {
      w.timer = undefined;
      this.#active.add(key);
    }, wait);
  }

  #flushOld(): void {
    const now = this.#timing.now();
    for (const key of this.#unschedulable) {
      const w = this.#waiting.get(key)!;
      if (now - w.failedAt >= this.#timing.maxUnschedulableMs) {
        this.#unschedulable.delete(key);
        this.#active.add(key);
      }
    }
  }

  /** Resolves when no pod is being scheduled or waiting in the active queue. */
  idle(): Promise<void> {
    return this.#active.idle();
  }

  /** Stops: drops every timer and waits for the attempt in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#flush);
    for (const w of this.#waiting.values()) clearTimeout(w.timer);
    this.#waiting.clear();
    this.#unschedulable.clear();
    await this.#active.stop();
  }
}
