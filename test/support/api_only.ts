/**
 * Flags for end-to-end tests of the API itself (verbs, wire formats, admission, tables): the
 * controllers that act on workloads are turned off, so the objects a test writes change only
 * by its own requests (no pods made for a ReplicaSet, no revision annotation on a Deployment,
 * no Endpoints for a Service). Tests of the controllers run them.
 *
 * @module
 */

/** The workload controllers, by their `--controllers` alias. */
export const WORKLOAD_CONTROLLERS = [
  "deployment",
  "replicaset",
  "replicationcontroller",
  "endpoint",
  "endpointslice",
  "podgc",
  "endpointslicemirroring",
  "statefulset",
  "daemonset",
  "job",
  "cronjob",
];

/** `--controllers` with every default controller but the workload ones. */
export const API_ONLY_FLAGS = [
  `--controllers=*,${WORKLOAD_CONTROLLERS.map((c) => `-${c}`).join(",")}`,
];
