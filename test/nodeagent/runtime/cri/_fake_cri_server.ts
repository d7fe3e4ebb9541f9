/**
 * A fake CRI runtime for tests: a gRPC server (`node:http2`) on a unix socket that answers the
 * RuntimeService and ImageService calls the agent makes from an in-memory table of sandboxes,
 * containers and images, and records every request. It keeps state as a runtime would:
 * RunPodSandbox adds a ready sandbox, CreateContainer a created container in it, StartContainer
 * runs it, StopContainer and StopPodSandbox end it, the Remove calls forget them, PullImage
 * adds an image found in `state.registry`. Failures are configured in `state.fail`.
 * CheckpointContainer writes a small archive at the requested location, or answers with a
 * configured error, or hangs until the client gives up. ExecSync echoes its command (`false`
 * exits 1, `timeout` answers DeadlineExceeded).
 *
 * @module
 */
import http2 from "node:http2";
import {
  decodeCri,
  encodeCri,
  IMAGE_SERVICE,
  RUNTIME_SERVICE,
} from "../../../../nodeagent/runtime/cri/cri_messages.ts";
import { grpcFrame, grpcUnframe } from "../../../../nodeagent/runtime/cri/grpc_client.ts";

/** A recorded call. */
export interface RecordedCall {
  method: string;
  request: Record<string, unknown>;
  grpcTimeout?: string;
}

/** A fake container: a ContainerStatus message (plain object) with its sandbox. */
export type FakeContainer = Record<string, unknown> & { id: string; podSandboxId: string };

/** The fake's state, changed freely by tests. */
export interface FakeCriState {
  /** PodSandbox messages (plain objects). */
  sandboxes: (Record<string, unknown> & { id?: string })[];
  /** Containers. */
  containers: FakeContainer[];
  /** The PodSandboxConfig each RunPodSandbox got, by sandbox id. */
  sandboxConfigs: Record<string, Record<string, unknown>>;
  /** The ContainerConfig each CreateContainer got, by container id. */
  containerConfigs: Record<string, Record<string, unknown>>;
  /** Images present: name as requested → image id. */
  images: Record<string, string>;
  /** Images PullImage can fetch: name → image id. */
  registry: Record<string, string>;
  /** Calls that fail with gRPC Unknown and this message, by method name. */
  fail: Record<string, string>;
  runtimeReady: boolean;
  /** How CheckpointContainer answers. */
  checkpoint: "write" | "unimplemented" | "hang";
  /** The ContainerStats messages ListContainerStats answers (plain objects). */
  stats?: Record<string, unknown>[];
}

/** A running fake. */
export interface FakeCriServer {
  socketPath: string;
  state: FakeCriState;
  calls: RecordedCall[];
  /** Makes a running container exit with `exitCode` (as if its process ended). */
  exit(id: string, exitCode: number): void;
  close(): Promise<void>;
}

/** Now in nanoseconds since the epoch, as a decimal string. */
function nowNs(): string {
  return String(BigInt(Date.now()) * 1_000_000n);
}

function matchesLabels(
  labels: unknown,
  selector: Record<string, string> | undefined,
): boolean {
  const have = (labels ?? {}) as Record<string, string>;
  return Object.entries(selector ?? {}).every(([k, v]) => have[k] === v);
}

/** Starts the fake on a socket in `dir`. */
export async function startFakeCriServer(dir: string): Promise<FakeCriServer> {
  const socketPath = `${dir}/cri.sock`;
  const state: FakeCriState = {
    sandboxes: [],
    containers: [],
    sandboxConfigs: {},
    containerConfigs: {},
    images: {},
    registry: {},
    fail: {},
    runtimeReady: true,
    checkpoint: "write",
  };
  let nextId = 1;
  const end = (c: FakeContainer, exitCode: number) => {
    if (c.state !== "CONTAINER_RUNNING") return;
    c.state = "CONTAINER_EXITED";
    c.exitCode = exitCode;
    c.reason = exitCode === 0 ? "Completed" : "Error";
    c.finishedAt = nowNs();
  };
  const calls: RecordedCall[] = [];
  const open = new Set<http2.ServerHttp2Session>();
  const server = http2.createServer();
  server.on("session", (s) => {
    open.add(s);
    s.on("close", () => open.delete(s));
  });
  server.on("stream", (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => {
    const path = String(headers[":path"] ?? "");
    const method = path.startsWith(RUNTIME_SERVICE)
      ? path.slice(RUNTIME_SERVICE.length)
      : path.startsWith(IMAGE_SERVICE)
      ? path.slice(IMAGE_SERVICE.length)
      : "";
    const chunks: Uint8Array[] = [];
    stream.on("data", (c: Uint8Array) => chunks.push(new Uint8Array(c)));
    stream.on("error", () => {});
    stream.on("end", async () => {
      const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let off = 0;
      for (const c of chunks) all.set(c, (off += c.length) - c.length);
      const reply = (status: number, message = "", body?: Uint8Array) => {
        if (stream.closed || stream.destroyed) return;
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, {
          waitForTrailers: true,
        });
        stream.on("wantTrailers", () => {
          stream.sendTrailers({
            "grpc-status": String(status),
            ...(message ? { "grpc-message": encodeURIComponent(message) } : {}),
          });
        });
        stream.end(body ? grpcFrame(body) : undefined);
      };
      let request: Record<string, unknown>;
      try {
        request = decodeCri(`${method}Request`, grpcUnframe(all).messages[0] ?? new Uint8Array());
      } catch {
        return reply(12, `unknown method ${path}`);
      }
      calls.push({ method, request, grpcTimeout: headers["grpc-timeout"] as string | undefined });
      const ok = (value: Record<string, unknown>) =>
        reply(0, "", encodeCri(`${method}Response`, value));
      if (state.fail[method]) return reply(2, state.fail[method]);
      const findContainer = () => state.containers.find((x) => x.id === request.containerId);
      switch (method) {
        case "Version":
          return ok({
            version: "0.1.0",
            runtimeName: "fakecri",
            runtimeVersion: "1.2.3",
            runtimeApiVersion: "v1",
          });
        case "Status":
          return ok({
            status: {
              conditions: [
                {
                  type: "RuntimeReady",
                  status: state.runtimeReady,
                  reason: state.runtimeReady ? "" : "FakeDown",
                  message: state.runtimeReady ? "" : "the fake is down",
                },
                { type: "NetworkReady", status: true },
              ],
            },
          });
        case "ListPodSandbox": {
          const filter = (request.filter ?? {}) as {
            id?: string;
            labelSelector?: Record<string, string>;
          };
          return ok({
            items: state.sandboxes.filter((s) =>
              (!filter.id || s.id === filter.id) && matchesLabels(s.labels, filter.labelSelector)
            ),
          });
        }
        case "RunPodSandbox": {
          const config = request.config as Record<string, unknown> & {
            metadata: Record<string, unknown>;
          };
          const id = `sb-${nextId++}`;
          state.sandboxConfigs[id] = config;
          state.sandboxes.push({
            id,
            metadata: config.metadata,
            state: "SANDBOX_READY",
            createdAt: nowNs(),
            labels: config.labels,
            annotations: config.annotations,
          });
          return ok({ podSandboxId: id });
        }
        case "StopPodSandbox": {
          const s = state.sandboxes.find((x) => x.id === request.podSandboxId);
          if (s) {
            s.state = "SANDBOX_NOTREADY";
            for (const c of state.containers) if (c.podSandboxId === s.id) end(c, 137);
          }
          return ok({});
        }
        case "RemovePodSandbox": {
          state.sandboxes = state.sandboxes.filter((x) => x.id !== request.podSandboxId);
          state.containers = state.containers.filter((c) =>
            c.podSandboxId !== request.podSandboxId
          );
          return ok({});
        }
        case "ImageStatus": {
          const image = String((request.image as { image?: string })?.image ?? "");
          const id = state.images[image];
          return ok(id ? { image: { id, repoTags: [image] } } : {});
        }
        case "PullImage": {
          const image = String((request.image as { image?: string })?.image ?? "");
          const id = state.registry[image];
          if (!id) {
            return reply(
              2,
              `failed to pull and unpack image "${image}": failed to resolve reference "${image}": not found`,
            );
          }
          state.images[image] = id;
          return ok({ imageRef: id });
        }
        case "CreateContainer": {
          const sandbox = state.sandboxes.find((x) => x.id === request.podSandboxId);
          if (!sandbox || sandbox.state !== "SANDBOX_READY") {
            return reply(9, `sandbox "${request.podSandboxId}" is not ready`);
          }
          const config = request.config as Record<string, unknown>;
          const id = `c-${nextId++}`;
          state.containerConfigs[id] = config;
          state.containers.push({
            id,
            podSandboxId: String(request.podSandboxId),
            metadata: config.metadata,
            state: "CONTAINER_CREATED",
            createdAt: nowNs(),
            image: config.image,
            imageRef: (config.image as { image?: string })?.image ?? "",
            labels: config.labels,
            annotations: config.annotations,
          });
          return ok({ containerId: id });
        }
        case "StartContainer": {
          const c = findContainer();
          if (!c) return reply(5, `container "${request.containerId}" not found`);
          if (c.state !== "CONTAINER_CREATED") {
            return reply(9, `container "${c.id}" is in ${c.state} state`);
          }
          c.state = "CONTAINER_RUNNING";
          c.startedAt = nowNs();
          return ok({});
        }
        case "ListContainers": {
          const filter = (request.filter ?? {}) as {
            id?: string;
            podSandboxId?: string;
            labelSelector?: Record<string, string>;
          };
          const list = state.containers.filter((c) =>
            (!filter.id || c.id === filter.id) &&
            (!filter.podSandboxId || c.podSandboxId === filter.podSandboxId) &&
            matchesLabels(c.labels, filter.labelSelector)
          );
          return ok({
            containers: list.map((c) => ({
              id: c.id,
              podSandboxId: c.podSandboxId,
              metadata: c.metadata,
              state: c.state,
              labels: c.labels,
              annotations: c.annotations,
            })),
          });
        }
        case "ContainerStatus": {
          const c = state.containers.find((x) => x.id === request.containerId);
          if (!c) return reply(5, `container "${request.containerId}" not found`);
          const { podSandboxId: _, ...status } = c;
          return ok({ status });
        }
        case "StopContainer": {
          const c = findContainer();
          if (c) end(c, 0);
          return ok({});
        }
        case "RemoveContainer":
          state.containers = state.containers.filter((x) => x.id !== request.containerId);
          return ok({});
        case "CheckpointContainer": {
          if (state.checkpoint === "unimplemented") {
            return reply(12, "method CheckpointContainer not implemented");
          }
          if (state.checkpoint === "hang") return; // the client cancels the stream
          if (!state.containers.some((x) => x.id === request.containerId)) {
            return reply(5, `container "${request.containerId}" not found`);
          }
          await Deno.writeFile(
            String(request.location),
            new TextEncoder().encode("fake checkpoint"),
            {
              mode: 0o600,
            },
          );
          return ok({});
        }
        case "ListContainerStats":
          return ok({ stats: state.stats ?? [] });
        case "ExecSync": {
          // `timeout …` never finishes; `false` exits 1; anything else echoes its command.
          const cmd = (request.cmd ?? []) as string[];
          if (cmd[0] === "timeout") return reply(4, "context deadline exceeded");
          return ok({
            stdout: new TextEncoder().encode(cmd.join(" ")),
            stderr: new TextEncoder().encode(cmd[0] === "false" ? "failed" : ""),
            exitCode: cmd[0] === "false" ? 1 : 0,
          });
        }
        default:
          return reply(12, `unknown method ${path}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, () => resolve()));
  return {
    socketPath,
    state,
    calls,
    exit(id, exitCode) {
      const c = state.containers.find((x) => x.id === id);
      if (!c) throw new Error(`no container ${id}`);
      end(c, exitCode);
    },
    async close() {
      // Sessions whose client went away close by themselves; destroying one while it handles
      // the peer's GOAWAY can crash Deno's HTTP/2 (an nghttp2 assertion), so wait for those and
      // destroy only what is still open after a while.
      await Promise.all([...open].map((s) =>
        new Promise<void>((resolve) => {
          if (s.closed || s.destroyed) return resolve();
          const timer = setTimeout(() => {
            s.destroy();
            resolve();
          }, 2_000);
          s.once("close", () => {
            clearTimeout(timer);
            resolve();
          });
        })
      ));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Deno.remove(socketPath).catch(() => {});
    },
  };
}
