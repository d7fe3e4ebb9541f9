/**
 * Kubernetes' ValidatingAdmissionPolicy status controller: whenever a policy's generation is
 * newer than its `status.observedGeneration`, its expressions are type checked against the
 * schemas of the kinds it matches (see admission/policy/type_checker.ts) and the status is
 * written with `observedGeneration` and `typeChecking.expressionWarnings`. Policies are
 * followed through the change feed, so every API server's writes are seen.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { PolicyTypeChecker } from "../admission/policy/type_checker.ts";
import type { Store } from "../registry/generic/store.ts";
import type { KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { WorkQueue } from "./work_queue.ts";

/** The field manager of the status writes (Kubernetes' controller name). */
export const POLICY_STATUS_MANAGER = "validatingadmissionpolicy-status-controller";

/** Options of the controller. */
export interface PolicyStatusControllerOptions {
  policies: Store;
  feed: ChangeFeed;
  checker: PolicyTypeChecker;
  logger?: Logger;
}

function needsCheck(p: KubeObject): boolean {
  const status = isObject(p.status) ? p.status : {};
  return Number(p.metadata.generation ?? 0) > Number(status.observedGeneration ?? 0);
}

/** Keeps `status.typeChecking` and `status.observedGeneration` of every policy current. */
export class ValidatingAdmissionPolicyStatusController {
  readonly #opts: PolicyStatusControllerOptions;
  readonly #queue: WorkQueue<string>;
  #unsubscribe?: () => void;

  constructor(opts: PolicyStatusControllerOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue(
      (name) => this.sync(name),
      (name, err) =>
        opts.logger?.error("admission policy status sync failed", { name, err: String(err) }),
    );
  }

  /** Follows the policies (queueing every one that needs a check). */
  async start(): Promise<void> {
    if (this.#unsubscribe || this.#queue.stopped) return;
    const { policies } = this.#opts;
    const consider = (kv: KeyValue) => {
      if (needsCheck(policies.decode(kv))) this.#queue.add(kv.key.slice(policies.prefix.length));
    };
    this.#unsubscribe = await this.#opts.feed.follow([policies.prefix], {
      reset: (items) => items.forEach(consider),
      changes: (events) => {
        for (const ev of events) if (ev.type !== "DELETED") consider(ev);
      },
    });
  }

  /** Resolves when no sync is running or pending. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Stops the controller and waits for the work in progress. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#queue.stop();
  }

  /** Type checks one policy and writes its status if its generation is newer. */
  async sync(name: string): Promise<void> {
    const { policies, checker } = this.#opts;
    let policy: KubeObject;
    try {
      policy = await policies.get("", name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
    if (!needsCheck(policy)) return;
    const warnings = checker.check(policy);
    const status = {
      ...(isObject(policy.status) ? policy.status : {}),
      observedGeneration: policy.metadata.generation,
      typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {},
    };
    try {
      await policies.update("", name, { ...policy, status }, {
        subresource: "status",
        fieldManager: POLICY_STATUS_MANAGER,
      });
    } catch (err) {
      // A concurrent write queues the policy again; a deleted one needs nothing.
      if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
    }
  }
}
