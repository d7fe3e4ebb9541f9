/**
 * A fake CRI runtime for tests: a gRPC server (`node:http2`) on a unix socket that answers the
 * RuntimeService calls the agent makes from an in-memory table of sandboxes and containers, and
 * records every request. CheckpointContainer writes a small archive at the requested location,
 * or answers with a configured error, or hangs until the client gives up.
 *
 * @module
 */
import http2 from "node:http2";
import {
  decodeCri,
  encodeCri,
  RUNTIME_SERVICE,
} from "../../../../nodeagent/runtime/cri/cri_messages.ts";
import { grpcFrame, grpcUnframe } from "../../../../nodeagent/runtime/cri/grpc_client.ts";

/** A recorded call. */
export interface RecordedCall {
  method: string;
  request: Record<string, unknown>;
  grpcTimeout?: string;
}

/** The fake's state, changed freely by tests. */
export interface FakeCriState {
  sandboxes: Record<string, unknown>[];
  /** ContainerStatus messages (plain objects), with `podSandboxId` for ListContainers. */
  containers: (Record<string, unknown> & { id: string; podSandboxId: string })[];
  runtimeReady: boolean;
  /** How CheckpointContainer answers. */
  checkpoint: "write" | "unimplemented" | "hang";
}

/** A running fake. */
export interface FakeCriServer {
  socketPath: string;
  state: FakeCriState;
  calls: RecordedCall[];
  close(): Promise<void>;
}

/** Starts the fake on a socket in `dir`. */
export async function startFakeCriServer(dir: string): Promise<FakeCriServer> {
  const socketPath = `${dir}/cri.sock`;
  const state: FakeCriState = {
    sandboxes: [],
    containers: [],
    runtimeReady: true,
    checkpoint: "write",
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
    const method = path.startsWith(RUNTIME_SERVICE) ? path.slice(RUNTIME_SERVICE.length) : "";
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
        case "ListPodSandbox":
          return ok({ items: state.sandboxes });
        case "ListContainers": {
          const filter = (request.filter ?? {}) as { id?: string };
          const list = state.containers.filter((c) => !filter.id || c.id === filter.id);
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
        case "StopContainer":
        case "RemoveContainer":
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
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Deno.remove(socketPath).catch(() => {});
    },
  };
}
