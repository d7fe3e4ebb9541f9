/**
 * The agent's statistics endpoints: `GET /metrics`, `/metrics/resource` and `/stats/summary`
 * (kubelet's `/stats/` and `/stats/summary` both answer the Summary), and the node
 * subresource the kubelet authorizes a path with (`nodes/metrics` for `/metrics…`,
 * `nodes/stats` for `/stats…`, `nodes/checkpoint`, `nodes/log` for `/logs…`, otherwise
 * `nodes/proxy`).
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import { EXPOSITION_CONTENT_TYPE } from "../../shared/metrics/exposition_format.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { renderAgentMetrics } from "./agent_metrics_text.ts";
import { renderResourceMetrics } from "./resource_metrics_text.ts";
import type { StatsCollector } from "./stats_collector.ts";
import { buildSummary } from "./summary.ts";

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + "/");
}

/** The `nodes/<subresource>` the kubelet checks for a request path. */
export function nodeSubresourceFor(path: string): string {
  if (under(path, "/stats")) return "stats";
  if (under(path, "/metrics")) return "metrics";
  if (under(path, "/logs")) return "log";
  if (under(path, "/checkpoint")) return "checkpoint";
  return "proxy";
}

/** What the endpoints read. */
export interface StatsEndpointDeps {
  nodeName: string;
  collector: StatsCollector;
  runtime: Pick<ContainerRuntime, "listContainers" | "listPods">;
  logger?: Logger;
}

const TEXT = { "content-type": EXPOSITION_CONTENT_TYPE };

/**
 * Answers a statistics request (after authorization), or undefined for other paths. Only
 * GET and HEAD are served (405 otherwise).
 */
export async function serveStats(
  req: Request,
  path: string,
  d: StatsEndpointDeps,
): Promise<Response | undefined> {
  const known = ["/metrics", "/metrics/resource", "/stats", "/stats/", "/stats/summary"];
  if (!known.includes(path)) return undefined;
  if (req.method !== "GET" && req.method !== "HEAD") {
    return new Response("405: Method Not Allowed\n", {
      status: 405,
      headers: { "content-type": "text/plain; charset=utf-8", allow: "GET, HEAD" },
    });
  }
  if (path === "/metrics") return new Response(await agentMetrics(d), { headers: TEXT });
  if (path === "/metrics/resource") {
    try {
      const { current } = await d.collector.collect();
      return new Response(renderResourceMetrics(current), { headers: TEXT });
    } catch (err) {
      d.logger?.warn("resource metrics collection failed", { err: String(err) });
      return new Response(renderResourceMetrics(undefined, true), { headers: TEXT });
    }
  }
  try {
    const { current, previous } = await d.collector.collect();
    return Response.json(buildSummary(d.nodeName, current, previous));
  } catch (err) {
    const e = StatusError.internal(`Internal Error: failed to get node info: ${String(err)}`);
    return Response.json(e.status, { status: 500 });
  }
}

async function agentMetrics(d: StatsEndpointDeps): Promise<string> {
  const containers = await d.runtime.listContainers();
  const byState: Record<string, number> = {};
  for (const c of containers) {
    const state = "running" in c.state ? "running" : "terminated" in c.state ? "exited" : "created";
    byState[state] = (byState[state] ?? 0) + 1;
  }
  const pods = (await d.runtime.listPods()).filter((p) => p.ready).length;
  return await renderAgentMetrics({
    nodeName: d.nodeName,
    runningPods: pods,
    containersByState: byState,
  });
}
