/**
 * Health checks: a name and an async probe that throws (or rejects) when unhealthy.
 *
 * @module
 */

/** One named check of `/healthz`, `/livez` or `/readyz`. */
export interface HealthCheck {
  /** Name printed in verbose output and used in `/<endpoint>/<name>` and `exclude=`. */
  readonly name: string;
  /**
   * Resolves when healthy; throws or rejects with the reason when not. `signal` aborts when
   * the check has run out of time.
   */
  check(signal: AbortSignal): void | Promise<void>;
}

/** A check from a name and a function. */
export function namedCheck(
  name: string,
  check: (signal: AbortSignal) => void | Promise<void>,
): HealthCheck {
  return { name, check };
}

/** `ping`: always healthy. */
export const pingCheck: HealthCheck = namedCheck("ping", () => {});

/**
 * `log`: healthy unless the last log write failed (the logger reports its sink error), the
 * equivalent of kube-apiserver's "logging blocked" check.
 */
export function logCheck(logger?: { readonly lastWriteError: Error | undefined }): HealthCheck {
  return namedCheck("log", () => {
    const err = logger?.lastWriteError;
    if (err) throw new Error(`logging failed: ${err.message}`);
  });
}

/**
 * `etcd`: the storage check, under kube-apiserver's name (clients and probes look for it);
 * healthy when `probe` (for example a trivial read) resolves.
 */
export function storageCheck(probe: (signal: AbortSignal) => Promise<void>): HealthCheck {
  return namedCheck("etcd", probe);
}
