/**
 * Reloading the AuthorizationConfiguration file while the server runs: the file is watched and
 * re-read every minute (watch_config_file.ts); a changed, valid file whose non-webhook
 * authorizers are the same as at start (they may be reordered, not added or removed) replaces
 * the chain's authorizers: the webhooks are built anew, the others are the running instances.
 * An invalid file is logged and ignored until it changes. Each outcome moves
 * `apiserver_authorization_config_controller_automatic_reloads_total{status}` and
 * `..._automatic_reload_last_timestamp_seconds{status}`.
 *
 * @module
 */
import type { Logger } from "../../../shared/log/mod.ts";
import type { MetricsRegistry } from "../../metrics/mod.ts";
import {
  configReloadMetrics,
  type ReloadMetrics,
  ReloadOutcome,
} from "../config_reload_outcome.ts";
import { type ConfigFileWatch, watchConfigFile } from "../watch_config_file.ts";
import type { Authorizer, AuthorizerChain } from "./authorizer.ts";
import type { DecisionCounter } from "./instrumented_authorizer.ts";
import {
  type AuthorizerConfig,
  parseAuthorizationConfiguration,
} from "./authorization_configuration.ts";
import {
  type WebhookAuthorizer,
  type WebhookAuthorizerMetrics,
  webhookFromConfig,
} from "./webhook_authorizer.ts";

/** How long replaced webhooks live on for decisions in progress, ms. */
const RETIRE_AFTER_MS = 60_000;

/** The two reload metrics. */
export type AuthorizationReloadMetrics = ReloadMetrics;

/** Defines the reload metrics in `registry`. */
export function authorizationConfigMetrics(registry: MetricsRegistry): AuthorizationReloadMetrics {
  return configReloadMetrics(registry, "authorization");
}

/** What the controller needs. */
export interface AuthorizationConfigControllerOptions {
  file: string;
  /** The file's text at start. */
  text: string;
  chain: AuthorizerChain;
  /** Authorizers placed before the file's (the superuser bypass). */
  head: Authorizer[];
  /** The running non-webhook authorizers by type. */
  fixed: Map<string, Authorizer>;
  /** The running webhooks (closed when replaced). */
  webhooks: WebhookAuthorizer[];
  intervalMs?: number;
  metrics?: AuthorizationReloadMetrics;
  webhookMetrics?: WebhookAuthorizerMetrics;
  /** Wraps a new webhook so its decisions are counted. */
  count?: DecisionCounter;
  logger?: Logger;
}

/** Keeps the chain in step with the file. */
export class AuthorizationConfigController {
  readonly #o: AuthorizationConfigControllerOptions;
  readonly #outcome: ReloadOutcome;
  #tracked: string;
  #webhooks: WebhookAuthorizer[];
  #watch?: ConfigFileWatch;
  #running?: Promise<void>;
  #closed = false;
  readonly #retired = new Map<ReturnType<typeof setTimeout>, WebhookAuthorizer[]>();

  constructor(o: AuthorizationConfigControllerOptions) {
    this.#o = o;
    this.#tracked = o.text;
    this.#webhooks = o.webhooks;
    this.#outcome = new ReloadOutcome(`apiserver-${crypto.randomUUID()}`, o.metrics, o.logger);
  }

  /** Starts watching. */
  start(): this {
    this.#watch = watchConfigFile(
      this.#o.file,
      this.#o.intervalMs ?? 60_000,
      () => void this.check(),
      (err) => this.#o.logger?.error("watching authorization config file", { err: String(err) }),
    );
    return this;
  }

  /** Re-reads the file now (one check at a time). */
  check(): Promise<void> {
    this.#running ??= this.#checkOnce().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #checkOnce(): Promise<void> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#o.file);
    } catch (err) {
      return this.#failure("failed to read authorization config file", String(err));
    }
    if (text === this.#tracked || this.#closed) return;
    this.#tracked = text;
    const parsed = parseAuthorizationConfiguration(text);
    if (!parsed.ok) {
      return this.#failure("failed to load authorization config", parsed.errors.join("; "));
    }
    const problem = this.#fixedChanged(parsed.authorizers);
    if (problem) return this.#failure("failed to validate authorization config", problem);
    const list: Authorizer[] = [...this.#o.head];
    const webhooks: WebhookAuthorizer[] = [];
    try {
      for (const a of parsed.authorizers) {
        if (a.webhook) {
          const w = await webhookFromConfig(a.name, a.webhook, this.#o.webhookMetrics);
          webhooks.push(w);
          list.push(this.#o.count ? this.#o.count(w, "Webhook", a.name) : w);
        } else list.push(this.#o.fixed.get(a.type)!);
      }
    } catch (err) {
      for (const w of webhooks) w.close();
      return this.#failure("failed to build authorization config", (err as Error).message);
    }
    if (this.#closed) return webhooks.forEach((w) => w.close());
    this.#o.chain.authorizers = list;
    const old = this.#webhooks;
    this.#webhooks = webhooks;
    const t = setTimeout(() => {
      this.#retired.delete(t);
      for (const w of old) w.close();
    }, RETIRE_AFTER_MS);
    this.#retired.set(t, old);
    this.#o.logger?.info("reloaded authorization config");
    this.#outcome.success();
  }

  /** Why the non-webhook authorizers differ from the running ones, if they do. */
  #fixedChanged(authorizers: AuthorizerConfig[]): string | undefined {
    const now = authorizers.filter((a) => a.type !== "Webhook").map((a) => a.type).sort();
    const was = [...this.#o.fixed.keys()].sort();
    if (JSON.stringify(now) === JSON.stringify(was)) return undefined;
    return `non-webhook authorizers cannot be added or removed on reload: had [${was}], got [${now}]`;
  }

  #failure(message: string, err: string): void {
    this.#outcome.failure(message, err);
  }

  /** Stops watching and closes the webhooks. */
  close(): void {
    this.#closed = true;
    this.#watch?.close();
    for (const [t, old] of this.#retired) {
      clearTimeout(t);
      for (const w of old) w.close();
    }
    this.#retired.clear();
    for (const w of this.#webhooks) w.close();
  }
}
