/**
 * HealthChecks: the registry of checks behind `/healthz`, `/livez` and `/readyz`, and the
 * handler answering them with kube-apiserver's exact text.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/logger.ts";
import { type HealthCheck, logCheck, namedCheck, pingCheck } from "./health_check.ts";

/** The three health endpoints. */
export type HealthEndpoint = "healthz" | "livez" | "readyz";

/** Options of {@link HealthChecks}. */
export interface HealthChecksOptions {
  /** Time each check may take before it counts as failed; default 10 000 ms. */
  timeoutMs?: number;
  /**
   * `--livez-grace-period`: post-start hooks registered now pass in `/livez` for this long
   * (milliseconds); default 0.
   */
  livezGracePeriodMs?: number;
  /** Milliseconds clock, for the grace period; default `Date.now`. */
  clock?: () => number;
  /** Failed checks are logged at `-v=2` with their reasons (never in the response). */
  logger?: Logger;
  /**
   * Told the result of every check an endpoint's root runs (not excluded ones, not
   * `/<endpoint>/<check>`), as Kubernetes feeds its SLI metrics.
   */
  onCheckResult?: (check: string, endpoint: HealthEndpoint, ok: boolean) => void;
}

/** A post-start hook's readiness switch, as returned by {@link HealthChecks.addPostStartHook}. */
export interface PostStartHook {
  /** The check's name, `poststarthook/<name>`. */
  readonly name: string;
  /** Whether {@link PostStartHook.done} was called. */
  readonly finished: boolean;
  /** Marks the hook finished: its check passes from now on. */
  done(): void;
}

const TEXT_HEADERS = {
  "Content-Type": "text/plain; charset=utf-8",
  "X-Content-Type-Options": "nosniff",
};
const PATH = /^\/(healthz|livez|readyz)(\/.*)?$/;

interface Outcome {
  name: string;
  error?: string;
}

/**
 * The health check registry. Every endpoint starts with `ping` and `log`;
 * {@link HealthChecks.addHealthChecks} adds to all three, post-start hooks are added to all
 * three (in `/livez` after the grace period only), and `/readyz` ends with `shutdown`, which
 * fails after {@link HealthChecks.markShuttingDown}.
 *
 * @example
 * ```ts
 * const health = new HealthChecks({ logger });
 * health.addHealthChecks(storageCheck(() => storage.ping()));
 * const bootstrap = health.addPostStartHook("rbac/bootstrap-roles");
 * // ... create the default namespaces, then:
 * bootstrap.done();
 * const res = await health.handleHealth(req); // undefined for other paths
 * ```
 */
export class HealthChecks {
  #checks: Record<HealthEndpoint, HealthCheck[]>;
  #timeoutMs: number;
  #grace: number;
  #clock: () => number;
  #logger: Logger | undefined;
  #onCheckResult: HealthChecksOptions["onCheckResult"];
  #shuttingDown = false;
  #shutdown: HealthCheck = namedCheck("shutdown", () => {
    if (this.#shuttingDown) throw new Error("process is shutting down");
  });

  /** Creates the registry with `ping` and `log` on every endpoint. */
  constructor(options: HealthChecksOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#grace = options.livezGracePeriodMs ?? 0;
    this.#clock = options.clock ?? Date.now;
    this.#logger = options.logger;
    this.#onCheckResult = options.onCheckResult;
    const log = logCheck(options.logger);
    this.#checks = { healthz: [pingCheck, log], livez: [pingCheck, log], readyz: [pingCheck, log] };
  }

  /**
   * Adds checks to `/healthz`, `/livez` and `/readyz`.
   *
   * @throws {TypeError} when a check of that name exists on an endpoint.
   */
  addHealthChecks(...checks: HealthCheck[]): void {
    for (const e of ["healthz", "livez", "readyz"] as const) this.#add(e, checks);
  }

  /** Adds checks to `/readyz` only. */
  addReadyzChecks(...checks: HealthCheck[]): void {
    this.#add("readyz", checks);
  }

  /** Adds checks to `/livez` only. */
  addLivezChecks(...checks: HealthCheck[]): void {
    this.#add("livez", checks);
  }

  /**
   * Registers post-start hook `poststarthook/<name>`: failing ("not finished") on every
   * endpoint until `done()`; on `/livez` it passes during the grace period.
   */
  addPostStartHook(name: string): PostStartHook {
    let finished = false;
    const checkName = `poststarthook/${name}`;
    const check = namedCheck(checkName, () => {
      if (!finished) throw new Error("not finished");
    });
    const graceEnds = this.#clock() + this.#grace;
    const delayed = namedCheck(checkName, (signal) => {
      if (this.#clock() <= graceEnds) return;
      return check.check(signal);
    });
    this.#add("healthz", [check]);
    this.#add("livez", [this.#grace > 0 ? delayed : check]);
    this.#add("readyz", [check]);
    return {
      name: checkName,
      get finished() {
        return finished;
      },
      done() {
        finished = true;
      },
    };
  }

  /** Makes `/readyz`'s `shutdown` check fail from now on (graceful shutdown began). */
  markShuttingDown(): void {
    this.#shuttingDown = true;
  }

  /** The check names of an endpoint, in output order. */
  names(endpoint: HealthEndpoint): string[] {
    return this.#list(endpoint).map((c) => c.name);
  }

  /**
   * Answers `/healthz`, `/livez`, `/readyz` (also with a trailing slash) and
   * `/<endpoint>/<check>`; resolves to undefined for every other path. Unknown checks get a
   * 404 Status. Never rejects.
   */
  readonly handleHealth = async (req: Request): Promise<Response | undefined> => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return undefined;
    }
    const m = PATH.exec(url.pathname);
    if (!m) return undefined;
    const endpoint = m[1] as HealthEndpoint;
    const rest = m[2] ?? "";
    const head = req.method === "HEAD";
    if (rest === "" || rest === "/") return await this.#root(endpoint, url, head);
    const name = decodePath(rest.slice(1));
    const check = this.#list(endpoint).find((c) => c.name === name);
    if (!check) {
      const err = StatusError.pathNotFound();
      return new Response(head ? null : JSON.stringify(err.status), {
        status: err.code,
        headers: { "Content-Type": "application/json" },
      });
    }
    const outcome = await this.#run(check);
    if (outcome.error !== undefined) {
      this.#logFailures(endpoint, [outcome]);
      return text(`internal server error: ${outcome.error}\n`, 500, head);
    }
    return text("ok", 200, head);
  };

  async #root(endpoint: HealthEndpoint, url: URL, head: boolean): Promise<Response> {
    const excluded = new Set(url.searchParams.getAll("exclude"));
    const checks = this.#list(endpoint);
    const outcomes = await Promise.all(
      checks.map((c) => excluded.has(c.name) ? undefined : this.#run(c)),
    );
    let body = "";
    const failed: Outcome[] = [];
    checks.forEach((c, i) => {
      const o = outcomes[i];
      if (!o) {
        excluded.delete(c.name);
        body += `[+]${c.name} excluded: ok\n`;
      } else if (o.error !== undefined) {
        this.#onCheckResult?.(c.name, endpoint, false);
        failed.push(o);
        body += `[-]${c.name} failed: reason withheld\n`;
      } else {
        this.#onCheckResult?.(c.name, endpoint, true);
        body += `[+]${c.name} ok\n`;
      }
    });
    if (excluded.size > 0) {
      const names = [...excluded].sort().map((n) => JSON.stringify(n)).join(",");
      body += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
    }
    if (failed.length > 0) {
      this.#logFailures(endpoint, failed);
      return text(`${body}${endpoint} check failed\n`, 500, head);
    }
    if (!url.searchParams.has("verbose")) return text("ok", 200, head);
    return text(`${body}${endpoint} check passed\n`, 200, head);
  }

  async #run(check: HealthCheck): Promise<Outcome> {
    const ac = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        ac.abort();
        reject(new Error(`timed out after ${this.#timeoutMs}ms`));
      }, this.#timeoutMs);
    });
    try {
      const running = Promise.resolve().then(() => check.check(ac.signal));
      running.catch(() => {});
      await Promise.race([running, timeout]);
      return { name: check.name };
    } catch (err) {
      return { name: check.name, error: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  #logFailures(endpoint: HealthEndpoint, failed: Outcome[]): void {
    this.#logger?.v(2).info(`${failed.map((f) => f.name).join(",")} check failed: ${endpoint}`, {
      failures: Object.fromEntries(failed.map((f) => [f.name, f.error])),
    });
  }

  #list(endpoint: HealthEndpoint): HealthCheck[] {
    const list = this.#checks[endpoint];
    return endpoint === "readyz" ? [...list, this.#shutdown] : list;
  }

  #add(endpoint: HealthEndpoint, checks: HealthCheck[]): void {
    for (const c of checks) {
      if (this.#list(endpoint).some((x) => x.name === c.name)) {
        throw new TypeError(`health check "${c.name}" is already registered for /${endpoint}`);
      }
      this.#checks[endpoint].push(c);
    }
  }
}

function text(body: string, status: number, head: boolean): Response {
  return new Response(head ? null : body, { status, headers: TEXT_HEADERS });
}

function decodePath(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
