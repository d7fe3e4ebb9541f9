/**
 * The auditor: the policy that decides each request's level and the backends its events go
 * to. The request filter (`http/filters/with_audit.ts`) builds the events.
 *
 * @module
 */
import type { AuditEvent } from "./event.ts";
import type { AuditOptions } from "./audit_options.ts";
import { type AuditBackend, logBackend } from "./log_backend.ts";
import { webhookBackend } from "./webhook_backend.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import {
  type AuditAttributes,
  type AuditDecision,
  type AuditPolicy,
  evaluatePolicy,
} from "./policy.ts";

/** Decides and records audit events. */
export class Auditor {
  readonly #policy: AuditPolicy;
  readonly #backends: AuditBackend[];

  constructor(policy: AuditPolicy, backends: AuditBackend[]) {
    this.#policy = policy;
    this.#backends = backends;
  }

  /** The policy's decision for a request. */
  decide(attrs: AuditAttributes): AuditDecision {
    return evaluatePolicy(this.#policy, attrs);
  }

  /** Sends `event` (serialized now: later stages reuse the object) to every backend. */
  emit(event: AuditEvent): void {
    for (const b of this.#backends) b.write(event);
  }

  /** Writes what is queued and closes the backends. */
  async close(): Promise<void> {
    await Promise.all(this.#backends.map((b) => b.close()));
  }
}

/** The auditor of the `--audit-*` options, or undefined when auditing is off. */
export async function auditorFor(
  opts: AuditOptions | undefined,
  logger: { error(msg: string, fields?: Record<string, unknown>): void },
): Promise<Auditor | undefined> {
  if (!opts) return undefined;
  const backends: AuditBackend[] = [];
  if (opts.log) {
    backends.push(logBackend({
      ...opts.log,
      onError: (err) => logger.error("audit log write failed", { err: err.message }),
    }));
  }
  if (opts.webhook) {
    const { configFile, ...batching } = opts.webhook;
    backends.push(webhookBackend({
      ...batching,
      config: await loadKubeconfig(configFile),
      onError: (message) => logger.error(message),
    }));
  }
  return new Auditor(opts.policy, backends);
}
