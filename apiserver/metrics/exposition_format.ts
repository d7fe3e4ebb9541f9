/**
 * The Prometheus text exposition helpers, shared with the node agent (see
 * shared/metrics/exposition_format.ts).
 *
 * @module
 */
export * from "../../shared/metrics/exposition_format.ts";
