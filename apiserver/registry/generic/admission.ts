/**
 * The admission interface the generic store calls, and the chain that runs it in kube's order:
 * every plugin's mutating phase, then the kind's own validation, then every plugin's
 * validating phase, in one call (`run`), so no caller can order them otherwise. Mutating plugins
 * may change the object; validating plugins get read-only attributes and only reject.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { KindDef } from "./kind.ts";

/** The admission operations, as kube's admission.Operation. */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** What an admission plugin sees of a request. */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  kind: KindDef;
  /**
   * The kind the request was sent as, when it is served from `kind`'s storage (another
   * version); the objects are in `kind`'s form.
   */
  requestKind?: KindDef;
  namespace: string;
  name: string;
  subresource: string;
  /**
   * The object being written (absent on DELETE): for a subresource served as another kind it
   * is that kind's view (an autoscaling/v1 Scale for `scale`), for a subresource create the
   * request body (TokenRequest, Binding, Eviction), for CONNECT the options (PodExecOptions).
   */
  object?: KubeObject;
  /** The stored object (UPDATE and DELETE), as a view where `object` is one. */
  oldObject?: KubeObject;
  user?: UserInfo;
  dryRun: boolean;
  /** Adds a warning to the response (a `Warning` header); absent outside a request. */
  warn?: (message: string) => void;
  /**
   * Audit annotations plugins record (`pod-security.kubernetes.io/audit-violations`, webhooks'
   * `<webhook>/<key>`, ...).
   */
  auditAnnotations?: Record<string, string>;
  /**
   * The operation's options as kube sends them in AdmissionRequest.options: CreateOptions,
   * UpdateOptions (PATCH and apply too, as kube converts them), DeleteOptions; absent on CONNECT.
   */
  options?: Record<string, unknown>;
  /** A unique id of this admission request (AdmissionRequest.uid). */
  uid?: string;
}

/**
 * What a validating phase sees: the attributes, read-only (a validating plugin cannot swap the
 * object; it must not change it either, and the chain runs no mutating phase after it).
 */
export type ValidatingAttributes = Readonly<AdmissionAttributes>;

/** One admission plugin. */
export interface AdmissionPlugin {
  /** Kube's plugin name (the name `--enable-admission-plugins` takes and metrics report). */
  name: string;
  /** Mutating phase; may change `attrs.object`. Throws a StatusError to reject. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /** Validating phase; throws a StatusError to reject. */
  validate?(attrs: ValidatingAttributes): Promise<void> | void;
}

/** Where the chain reports how long each phase and each plugin took. */
export interface AdmissionObserver {
  /** One phase of the chain (`type` admit or validate). */
  step(type: "admit" | "validate", operation: string, rejected: boolean, seconds: number): void;
  /** One plugin's phase. */
  plugin(
    name: string,
    type: "admit" | "validate",
    operation: string,
    rejected: boolean,
    seconds: number,
  ): void;
}

/** Runs plugins in order: every mutating phase, the kind's validation, every validating phase. */
export class AdmissionChain {
  readonly #observer?: AdmissionObserver;

  constructor(readonly plugins: AdmissionPlugin[] = [], observer?: AdmissionObserver) {
    this.#observer = observer;
  }

  /**
   * Admits one request: mutating phase, then `check` (the kind's schema and strategy
   * validation, which may throw), then validating phase. Any phase may reject by throwing.
   */
  async run(attrs: AdmissionAttributes, check?: () => void | Promise<void>): Promise<void> {
    attrs.uid ??= crypto.randomUUID();
    await this.#phase("admit", attrs);
    await check?.();
    await this.#phase("validate", attrs);
  }

  /** Runs one phase of every plugin that has it, measuring the phase and each plugin. */
  async #phase(type: "admit" | "validate", attrs: AdmissionAttributes): Promise<void> {
    const obs = this.#observer;
    const start = performance.now();
    let rejected = true;
    try {
      for (const p of this.plugins) {
        const fn = p[type];
        if (!fn) continue;
        if (!obs) {
          await fn.call(p, attrs);
          continue;
        }
        const t = performance.now();
        let ok = false;
        try {
          await fn.call(p, attrs);
          ok = true;
        } finally {
          obs.plugin(p.name, type, attrs.operation, !ok, (performance.now() - t) / 1000);
        }
      }
      rejected = false;
    } finally {
      obs?.step(type, attrs.operation, rejected, (performance.now() - start) / 1000);
    }
  }
}
