/**
 * The streaming subresources of pods, proxied to the pod's node agent as kube-apiserver does
 * (pkg/registry/core/pod/rest and the pod strategy's LogLocation and streamLocation):
 *
 * - `pods/log` (GET): `/containerLogs/{ns}/{pod}/{container}` with the PodLogOptions query;
 * - `pods/exec`, `pods/attach` (upgrades): `/exec/...` and `/attach/...` with the kubelet's
 *   `command`, `input`, `output`, `error`, `tty`;
 * - `pods/portforward` (upgrade): `/portForward/{ns}/{pod}` with `ports`.
 *
 * The container is checked against the pod (kube's messages) and a container that has not
 * started answers 400 as the kubelet does.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { requestedUpgrade } from "../../shared/http/upgrade_response.ts";
import type { NodeConnections } from "../kubelet/node_connections.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";

/** One connect request, already authorized (and admitted, for exec, attach, portforward). */
export interface ConnectRequest {
  req: Request;
  url: URL;
  namespace: string;
  name: string;
  subresource: string;
  /** The request's verb (`get`, `create`...). */
  verb: string;
  /** Whether the path goes on below the subresource (`.../exec/more`). */
  hasPath: boolean;
  signal: AbortSignal;
}

/** Serves connect subresources; undefined for those it does not serve. */
export type ConnectHandler = (r: ConnectRequest) => Promise<Response | undefined>;

interface ContainerSpec {
  name: string;
}
interface ContainerStatus {
  name: string;
  state?: { waiting?: { reason?: string }; running?: unknown; terminated?: unknown };
  lastState?: { terminated?: unknown };
}

/** The connect handler of pods, reaching agents through `nodes`. */
export function podConnectHandler(
  registry: ResourceRegistry,
  nodes: NodeConnections,
): ConnectHandler {
  return async (r) => {
    if (!["log", "exec", "attach", "portforward"].includes(r.subresource)) return undefined;
    if (r.hasPath) throw StatusError.pathNotFound();
    const verbs = r.subresource === "log" ? ["get"] : ["get", "create"];
    if (!verbs.includes(r.verb)) {
      throw StatusError.methodNotSupported(
        { group: "", resource: `pods/${r.subresource}` },
        r.verb,
      );
    }
    const pods = registry.lookup("", "v1", "pods");
    const nodeStore = registry.lookup("", "v1", "nodes");
    if (!pods || !nodeStore) return undefined;
    const pod = await pods.get(r.namespace, r.name);
    const q = r.url.searchParams;
    const nodeName = String((pod.spec as { nodeName?: string } | undefined)?.nodeName ?? "");
    if (r.subresource === "log") {
      const container = containerOf(pod, q.get("container") ?? "", r.name);
      const params = logParams(q);
      if (!nodeName) return new Response("", { headers: { "content-type": "text/plain" } });
      checkStarted(pod, container, parseBool(q.get("previous")));
      const node = await nodeStore.get("", nodeName);
      const path = `/containerLogs/${seg(r.namespace)}/${seg(r.name)}/${seg(container)}`;
      return await nodes.get(node, params ? `${path}?${params}` : path, r.signal);
    }
    let path: string;
    if (r.subresource === "portforward") {
      path = `/portForward/${seg(r.namespace)}/${seg(r.name)}${portQuery(q)}`;
    } else {
      const container = containerOf(pod, q.get("container") ?? "", r.name);
      const prefix = r.subresource === "exec" ? "/exec" : "/attach";
      path = `${prefix}/${seg(r.namespace)}/${seg(r.name)}/${seg(container)}${streamQuery(q)}`;
    }
    if (!nodeName) throw StatusError.badRequest(`pod ${r.name} does not have a host assigned`);
    if (!requestedUpgrade(r.req.headers)) throw StatusError.badRequest("Upgrade request required");
    const node = await nodeStore.get("", nodeName);
    return await nodes.upgrade(node, path, r.req);
  };
}

/** A query flag as Go's strconv.ParseBool reads it (`1`, `t`, `T`, `true`, `True`, `TRUE`). */
function parseBool(v: string | null): boolean {
  return v !== null && ["1", "t", "T", "true", "True", "TRUE"].includes(v);
}

function seg(s: string): string {
  return encodeURIComponent(s);
}

/** The kubelet's `port` parameters from PodPortForwardOptions' `ports`. */
function portQuery(q: URLSearchParams): string {
  const out = new URLSearchParams();
  for (const v of q.getAll("ports")) {
    for (const p of v.split(",")) if (p.trim()) out.append("port", p.trim());
  }
  const s = out.toString();
  return s ? `?${s}` : "";
}

/** The kubelet's exec and attach query from the PodExecOptions/PodAttachOptions query. */
function streamQuery(q: URLSearchParams): string {
  const out = new URLSearchParams();
  for (const c of q.getAll("command")) out.append("command", c);
  const pairs: [string, string][] = [
    ["stdin", "input"],
    ["stdout", "output"],
    ["stderr", "error"],
    ["tty", "tty"],
  ];
  for (const [from, to] of pairs) {
    if (parseBool(q.get(from))) out.set(to, "1");
  }
  const s = out.toString();
  return s ? `?${s}` : "";
}

/**
 * The kubelet's log query from the PodLogOptions query.
 *
 * @throws {StatusError} 400 (Invalid) for values kube's validation refuses.
 */
function logParams(q: URLSearchParams): string {
  const out = new URLSearchParams();
  for (const flag of ["follow", "previous", "timestamps", "insecureSkipTLSVerifyBackend"]) {
    if (parseBool(q.get(flag))) out.set(flag, "true");
  }
  const ints: [string, number][] = [["tailLines", 0], ["limitBytes", 1], ["sinceSeconds", 1]];
  for (const [name, min] of ints) {
    const v = q.get(name);
    if (v === null) continue;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < min) {
      throw StatusError.badRequest(
        `${name}: Invalid value: ${v}: must be ${
          min === 0 ? "greater than or equal to 0" : "greater than 0"
        }`,
      );
    }
    out.set(name, String(n));
  }
  const sinceTime = q.get("sinceTime");
  if (sinceTime) {
    if (Number.isNaN(Date.parse(sinceTime))) {
      throw StatusError.badRequest(`sinceTime: Invalid value: "${sinceTime}": not a time`);
    }
    if (out.has("sinceSeconds")) {
      throw StatusError.badRequest("at most one of `sinceTime` or `sinceSeconds` may be specified");
    }
    out.set("sinceTime", sinceTime);
  }
  return out.toString();
}

function names(list: unknown): string[] {
  return ((list ?? []) as ContainerSpec[]).map((c) => c.name);
}

/**
 * The container a request names, or the pod's only container.
 *
 * @throws {StatusError} 400 in kube's words when none is named and there are several, or the
 *   named one is not the pod's.
 */
function containerOf(pod: KubeObject, container: string, podName: string): string {
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  const regular = names(spec.containers);
  const init = names(spec.initContainers);
  const ephemeral = names(spec.ephemeralContainers);
  if (!container) {
    if (regular.length === 1) return regular[0];
    if (regular.length === 0) {
      throw StatusError.badRequest(`a container name must be specified for pod ${podName}`);
    }
    let message = `a container name must be specified for pod ${podName}, choose one of: [${
      regular.join(" ")
    }]`;
    if (init.length) message += ` or one of the init containers: [${init.join(" ")}]`;
    if (ephemeral.length) {
      message += ` or one of the ephemeral containers: [${ephemeral.join(" ")}]`;
    }
    throw StatusError.badRequest(message);
  }
  if (![...regular, ...init, ...ephemeral].includes(container)) {
    throw StatusError.badRequest(`container ${container} is not valid for pod ${podName}`);
  }
  return container;
}

/**
 * Refuses logs of a container that has not started (or a previous instance that does not
 * exist), as the kubelet does.
 *
 * @throws {StatusError} 400 with the kubelet's message.
 */
function checkStarted(pod: KubeObject, container: string, previous: boolean): void {
  const status = (pod.status ?? {}) as Record<string, unknown>;
  const all = [
    ...((status.containerStatuses ?? []) as ContainerStatus[]),
    ...((status.initContainerStatuses ?? []) as ContainerStatus[]),
    ...((status.ephemeralContainerStatuses ?? []) as ContainerStatus[]),
  ];
  const podName = pod.metadata.name;
  const s = all.find((c) => c.name === container);
  if (previous) {
    if (!s?.lastState?.terminated) {
      throw StatusError.badRequest(
        `previous terminated container "${container}" in pod "${podName}" not found`,
      );
    }
    return;
  }
  if (s?.state?.running || s?.state?.terminated) return;
  const reason = s?.state?.waiting?.reason || "ContainerCreating";
  throw StatusError.badRequest(
    `container "${container}" in pod "${podName}" is waiting to start: ${reason}`,
  );
}
