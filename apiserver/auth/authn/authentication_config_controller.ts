/**
 * Reloading the AuthenticationConfiguration file while the server runs, as kube-apiserver does:
 * the file is watched and re-read every minute (watch_config_file.ts); a text that differs from the last one tried is decoded and validated (with the start's
 * rules, and `anonymous` may not change), its JWT authenticators are built and must finish
 * discovery within a minute, and only then replace the running ones (requests already in
 * flight finish with the old ones). An invalid file is logged (never a token) and ignored
 * until it changes; a discovery failure is retried at the next check. Each outcome moves
 * `apiserver_authentication_config_controller_automatic_reloads_total{status}` and
 * `..._automatic_reload_last_timestamp_seconds{status}`.
 *
 * @module
 */
import { resolve } from "node:path";
import { type ConfigFileWatch, watchConfigFile } from "../watch_config_file.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { fieldErrorMessage } from "../../../shared/errors/status_error.ts";
import type { MetricsRegistry } from "../../metrics/mod.ts";
import {
  configReloadMetrics,
  type ReloadMetrics,
  ReloadOutcome,
} from "../config_reload_outcome.ts";
export type { ReloadMetrics };
import type { AuthContext, Authenticator, AuthResult, ConnectionInfo } from "./authenticator.ts";
import { decodeAuthenticationConfiguration } from "./authentication_configuration.ts";
import type { JwtAuthenticatorSet } from "./jwt_authenticator.ts";
import type { JwtAuthenticationOptions } from "./jwt_options.ts";
import {
  type CompiledJwtAuthenticator,
  validateAuthenticationConfiguration,
} from "./validate_authentication_configuration.ts";

/** How long a new configuration's issuers may take to become ready, ms (kube: a minute). */
const UPDATE_TIMEOUT_MS = 60_000;
/** How long replaced authenticators live on for requests in flight, ms. */
const RETIRE_AFTER_MS = 30_000;

/** The reload metrics, defined in `registry`. */
export function authenticationConfigMetrics(registry: MetricsRegistry): ReloadMetrics {
  return configReloadMetrics(registry, "authentication", "BETA");
}

/** What the controller needs. */
export interface AuthenticationConfigControllerOptions {
  options: JwtAuthenticationOptions;
  /** The service account issuers (a JWT issuer must differ). */
  serviceAccountIssuers: string[];
  /** Builds and starts the authenticators of a validated configuration. */
  build(compiled: CompiledJwtAuthenticator[]): JwtAuthenticatorSet;
  metrics?: ReloadMetrics;
  /** This server's identity; its SHA-256 labels the metrics. */
  apiServerId: string;
  logger?: Logger;
}

/** The JWT authenticators of the file, replaced when the file changes. */
export class AuthenticationConfigController implements Authenticator {
  readonly name = "jwt";
  readonly #o: AuthenticationConfigControllerOptions;
  readonly #path: string;
  readonly #outcome: ReloadOutcome;
  #current: JwtAuthenticatorSet;
  #tracked: string;
  #watch?: ConfigFileWatch;
  #running?: Promise<void>;
  #again = false;
  #closed = false;
  readonly #retired = new Map<ReturnType<typeof setTimeout>, JwtAuthenticatorSet>();

  constructor(initial: JwtAuthenticatorSet, o: AuthenticationConfigControllerOptions) {
    this.#o = o;
    this.#current = initial;
    this.#path = resolve(o.options.configFile!);
    this.#tracked = o.options.configText ?? "";
    this.#outcome = new ReloadOutcome(o.apiServerId, o.metrics, o.logger);
  }

  authenticate(req: Request, _conn: ConnectionInfo, _ctx?: AuthContext): Promise<AuthResult> {
    return this.#current.authenticate(req);
  }

  /** Starts watching the file and the periodic re-read. */
  start(): this {
    this.#watch = watchConfigFile(
      this.#path,
      this.#o.options.reloadIntervalMs ?? 60_000,
      () => void this.check(),
      (err) => this.#o.logger?.error("watching authentication config file", { err: String(err) }),
    );
    return this;
  }

  /** Re-reads the file now (checks run one at a time; a request during one runs after it). */
  check(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#checkOnce().finally(() => {
      this.#running = undefined;
      if (this.#again && !this.#closed) {
        this.#again = false;
        void this.check();
      }
    });
    return this.#running;
  }

  async #checkOnce(): Promise<void> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path);
    } catch (err) {
      this.#failure("failed to read authentication config file", String(err));
      return;
    }
    if (text === this.#tracked || this.#closed) return;
    const compiled = this.#validate(text);
    if (!compiled) {
      this.#tracked = text;
      return;
    }
    const next = this.#o.build(compiled);
    const notReady = await next.waitReady(UPDATE_TIMEOUT_MS);
    if (notReady.length > 0 || this.#closed) {
      next.close();
      if (!this.#closed) {
        this.#failure("failed to update authentication config", `issuers not ready: ${notReady}`);
      }
      return;
    }
    const old = this.#current;
    this.#current = next;
    this.#tracked = text;
    const t = setTimeout(() => {
      this.#retired.delete(t);
      old.close();
    }, RETIRE_AFTER_MS);
    this.#retired.set(t, old);
    this.#o.logger?.info("reloaded authentication config");
    this.#outcome.success();
  }

  /** The compiled authenticators of `text`, or undefined after logging why it is invalid. */
  #validate(text: string): CompiledJwtAuthenticator[] | undefined {
    const decoded = decodeAuthenticationConfiguration(text);
    if (!decoded.ok) {
      this.#failure("failed to load authentication config", decoded.errors.join("; "));
      return undefined;
    }
    const v = validateAuthenticationConfiguration(decoded.config, {
      disallowedIssuers: this.#o.serviceAccountIssuers,
      anonymousConfigurable: this.#o.options.anonymousConfigurable,
    });
    const problems = v.errors.map(fieldErrorMessage);
    if (JSON.stringify(decoded.config.anonymous) !== JSON.stringify(this.#o.options.anonymous)) {
      problems.push("anonymous: Forbidden: changed from initial configuration file");
    }
    if (problems.length) {
      this.#failure("failed to validate authentication config", problems.join("; "));
      return undefined;
    }
    return v.authenticators;
  }

  #failure(message: string, err: string): void {
    this.#outcome.failure(message, err);
  }

  /** Stops watching and closes every authenticator. */
  close(): void {
    this.#closed = true;
    this.#watch?.close();
    for (const [t, old] of this.#retired) {
      clearTimeout(t);
      old.close();
    }
    this.#retired.clear();
    this.#current.close();
  }
}
