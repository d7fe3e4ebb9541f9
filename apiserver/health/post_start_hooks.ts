/**
 * The API server's post-start hooks (`poststarthook/<name>` health checks).
 *
 * @module
 */
import type { HealthChecks, PostStartHook } from "./health_checks.ts";

/**
 * The post-start hooks, named as kube-apiserver names them (`poststarthook/<name>` in the
 * health checks); the controllers kube runs in its controller manager are named after it.
 * Each passes once its part has started (all of them once the controllers run).
 */
export const POST_START_HOOKS = [
  "start-system-namespaces-controller",
  "scheduling/bootstrap-system-priority-classes",
  "rbac/bootstrap-roles",
  "priority-and-fairness-config-producer",
  "start-clusterrole-aggregation-controller",
  "bootstrap-controller",
  "start-service-ip-repair-controllers",
  "crd-informer-synced",
  "priority-and-fairness-config-consumer",
  "start-namespace-controller",
  "start-node-lifecycle-controller",
  "start-garbage-collector-controller",
  "start-disruption-controller",
  "start-resourcequota-controller",
] as const;

export type PostStartHooks = Record<typeof POST_START_HOOKS[number], PostStartHook>;

/** Registers every hook on `health`; each starts failing until its part calls done(). */
export function postStartHooks(health: HealthChecks): PostStartHooks {
  return Object.fromEntries(
    POST_START_HOOKS.map((name) => [name, health.addPostStartHook(name)]),
  ) as PostStartHooks;
}
