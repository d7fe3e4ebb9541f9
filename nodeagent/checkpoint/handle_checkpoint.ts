/**
 * The node agent's checkpoint endpoint, `POST /checkpoint/{namespace}/{pod}/{container}?timeout=N`,
 * as the kubelet answers it: 401 without valid credentials, 403 unless the caller may `create`
 * `nodes/checkpoint` of this node, 404 when the `ContainerCheckpoint` gate is off or the
 * namespace, pod or container is unknown (or `timeout` is unparsable), 500 on a runtime error or a
 * runtime without checkpoint support, and 200 with `{"items":["<archive path>"]}`.
 *
 * @module
 */
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { FeatureGates } from "../../shared/feature_gates.ts";
import type { Clock } from "../clock/clock.ts";
import { systemClock } from "../clock/clock.ts";
import type { ContainerRuntime, ContainerStatus } from "../runtime/runtime.ts";
import { checkpointArchivePath, validCheckpointNames } from "./checkpoint_path.ts";

/** The SubjectAccessReview attributes of a request to the agent. */
export interface NodeRequestAttributes {
  verb: string;
  resource: "nodes";
  subresource: string;
  /** The node's name. */
  name: string;
}

/** What the handler needs from the rest of the agent. */
export interface CheckpointDeps {
  /** The container runtime. */
  runtime: ContainerRuntime;
  /** Effective feature gates. */
  gates: FeatureGates;
  /**
   * Authenticates the request (client certificate or TokenReview); undefined when the request
   * carries no valid credentials.
   */
  authenticate(req: Request): Promise<UserInfo | undefined>;
  /** Authorizes the caller (SubjectAccessReview); `attrs.name` is this node's name. */
  authorize(user: UserInfo, attrs: NodeRequestAttributes): Promise<boolean>;
  /** The agent's root directory. */
  rootDir: string;
  /** This node's name. */
  nodeName: string;
  /** Time source for the archive name. */
  clock?: Clock;
  /** Timeout used when the request gives none (default 120 s, the kubelet's runtime request timeout). */
  defaultTimeoutSeconds?: number;
}

const PREFIX = "/checkpoint/";

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function errorResponse(e: StatusError): Response {
  return json(e.code, e.status, e.headers);
}

function notFound(message: string): StatusError {
  return new StatusError({ code: 404, reason: "NotFound", message, details: {} });
}

function pickContainer(all: ContainerStatus[]): ContainerStatus {
  return all.find((c) => "running" in c.state) ?? all[all.length - 1];
}

/** Answers one request to the checkpoint endpoint; never throws. */
export async function handleCheckpoint(req: Request, deps: CheckpointDeps): Promise<Response> {
  try {
    return await serve(req, deps);
  } catch (e) {
    if (e instanceof StatusError) return errorResponse(e);
    return errorResponse(StatusError.internal((e as Error)?.message ?? String(e)));
  }
}

async function serve(req: Request, deps: CheckpointDeps): Promise<Response> {
  const url = new URL(req.url);
  await authorizeCheckpoint(req, deps);
  if (!deps.gates.enabled("ContainerCheckpoint") || !url.pathname.startsWith(PREFIX)) {
    throw StatusError.pathNotFound();
  }
  const raw = url.pathname.slice(PREFIX.length).split("/");
  if (raw.length !== 3 || raw.some((s) => s === "")) throw StatusError.pathNotFound();
  if (req.method !== "POST") {
    return errorResponse(
      new StatusError({
        code: 405,
        reason: "MethodNotAllowed",
        message: `${req.method} is not allowed`,
      }),
    );
  }
  let names: string[];
  try {
    names = raw.map(decodeURIComponent);
  } catch {
    throw StatusError.pathNotFound();
  }
  const [namespace, pod, container] = names;
  const timeoutSeconds = parseTimeout(url);
  const target = await findContainer(deps, { namespace, pod, container });
  const location = await checkpoint(
    req,
    deps,
    target,
    { namespace, pod, container },
    timeoutSeconds,
  );
  return json(200, { items: [location] });
}

/** Throws 401 without valid credentials and 403 unless the caller may checkpoint this node. */
async function authorizeCheckpoint(req: Request, deps: CheckpointDeps): Promise<void> {
  const user = await deps.authenticate(req);
  if (!user) throw StatusError.unauthorized();
  const attrs: NodeRequestAttributes = {
    verb: req.method === "POST" ? "create" : req.method.toLowerCase(),
    resource: "nodes",
    subresource: "checkpoint",
    name: deps.nodeName,
  };
  if (!(await deps.authorize(user, attrs))) {
    throw StatusError.forbidden(
      { group: "", resource: "nodes" },
      deps.nodeName,
      `User "${user.username}" cannot ${attrs.verb} resource "nodes/checkpoint" in API group "" at the cluster scope`,
    );
  }
}

/** The last `timeout` query parameter in seconds (0 when none); 404 when one is not an integer. */
function parseTimeout(url: URL): number {
  let timeoutSeconds = 0;
  for (const t of url.searchParams.getAll("timeout")) {
    if (!/^[+-]?\d+$/.test(t)) throw notFound("cannot parse value of timeout parameter");
    timeoutSeconds = Number(t);
  }
  return timeoutSeconds;
}

/** The named container (the running one, else the newest); 404 when the pod or it is unknown. */
async function findContainer(
  deps: CheckpointDeps,
  { namespace, pod, container }: { namespace: string; pod: string; container: string },
): Promise<ContainerStatus> {
  if (!validCheckpointNames(namespace, pod, container)) throw notFound("pod does not exist");
  const inPod = (await deps.runtime.listContainers()).filter((c) =>
    c.pod.namespace === namespace && c.pod.name === pod
  );
  if (inPod.length === 0) throw notFound("pod does not exist");
  const matching = inPod.filter((c) => c.name === container);
  if (matching.length === 0) throw notFound(`container ${container} does not exist`);
  return pickContainer(matching);
}

/**
 * Checkpoints `target` into a new archive under the agent's `checkpoints` directory, aborted
 * on timeout or when the client goes away; returns the archive's path.
 *
 * @throws {StatusError} 500 when the runtime fails (the partial archive removed).
 */
async function checkpoint(
  req: Request,
  deps: CheckpointDeps,
  target: ContainerStatus,
  names: { namespace: string; pod: string; container: string },
  timeoutSeconds: number,
): Promise<string> {
  const { namespace, pod, container } = names;
  const clock = deps.clock ?? systemClock;
  const location = checkpointArchivePath(deps.rootDir, { namespace, pod, container }, clock.now());
  const effective = timeoutSeconds > 0 ? timeoutSeconds : deps.defaultTimeoutSeconds ?? 120;
  const ac = new AbortController();
  const timer = setTimeout(
    () => ac.abort(new Error(`checkpoint timed out after ${effective}s`)),
    effective * 1000,
  );
  const onClientGone = () => ac.abort(new Error("client disconnected"));
  req.signal.addEventListener("abort", onClientGone, { once: true });
  try {
    await Deno.mkdir(`${deps.rootDir.replace(/\/+$/, "")}/checkpoints`, {
      recursive: true,
      mode: 0o700,
    });
    await deps.runtime.checkpointContainer(target.id, {
      location,
      signal: ac.signal,
      timeoutSeconds,
    });
  } catch (e) {
    await Deno.remove(location).catch(() => {});
    throw StatusError.internal(
      `checkpointing of ${namespace}/${pod}/${container} failed (${(e as Error)?.message ?? e})`,
    );
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener("abort", onClientGone);
  }
  return location;
}
