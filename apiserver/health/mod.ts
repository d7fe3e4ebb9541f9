/**
 * Health endpoints `/healthz`, `/livez` and `/readyz` with named checks.
 *
 * @module
 */
export { type HealthCheck, logCheck, namedCheck, pingCheck, storageCheck } from "./health_check.ts";
export {
  HealthChecks,
  type HealthChecksOptions,
  type HealthEndpoint,
  type PostStartHook,
} from "./health_checks.ts";
