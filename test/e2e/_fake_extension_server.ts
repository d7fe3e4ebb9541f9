/**
 * A fake extension API server for the aggregation tests (an external system): HTTPS with its
 * own CA and a certificate for `<service>.<namespace>.svc`, serving discovery of
 * `wardle.example.com/v1alpha1` and one namespaced resource, `flunders`, kept in memory
 * (create, get, list, watch). It asks for a client certificate and records, per request, the
 * identity headers, whether credentials arrived, and the client certificate's common name.
 *
 * @module
 */
import {
  type CertificateAndKey,
  createCA,
  issueCertificate,
} from "../../shared/pki/issue_certificate.ts";
import { parseCertificate } from "../../shared/pki/parse_certificate.ts";
import { type HttpsServer, serveHttps } from "../../shared/http/https_server.ts";
import { requestedUpgrade, UpgradeResponse } from "../../shared/http/upgrade_response.ts";

export const GROUP = "wardle.example.com";
export const VERSION = "v1alpha1";
const GV = `${GROUP}/${VERSION}`;

/** What one request carried. */
export interface Seen {
  method: string;
  path: string;
  user: string | null;
  groups: string[];
  extra: Record<string, string[]>;
  authorization: boolean;
  impersonation: boolean;
  clientCertCN: string;
}

/** The running fake. */
export interface FakeExtension {
  port: number;
  ca: CertificateAndKey;
  seen: Seen[];
  /** Stops serving (the port stays known for a restart). */
  stop(): Promise<void>;
  /** Serves again on the same port. */
  restart(): Promise<void>;
}

type Obj = Record<string, unknown>;

const RESOURCE_LIST = {
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: GV,
  resources: [{
    name: "flunders",
    singularName: "flunder",
    namespaced: true,
    kind: "Flunder",
    verbs: ["create", "get", "list", "watch"],
  }],
};

/** The extension's OpenAPI v3 document of its group version. */
export const OPENAPI_DOC = {
  openapi: "3.0.0",
  info: { title: "Wardle", version: VERSION },
  paths: {},
  components: {
    schemas: {
      "com.example.wardle.v1alpha1.Flunder": {
        type: "object",
        "x-kubernetes-group-version-kind": [{ group: GROUP, version: VERSION, kind: "Flunder" }],
      },
    },
  },
};

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function record(req: Request, peer: Uint8Array[], url: URL): Seen {
  const extra: Record<string, string[]> = {};
  for (const [name, value] of req.headers) {
    if (name.startsWith("x-remote-extra-")) {
      extra[decodeURIComponent(name.slice(15))] = value.split(", ");
    }
  }
  return {
    method: req.method,
    path: url.pathname + url.search,
    user: req.headers.get("x-remote-user"),
    groups: req.headers.get("x-remote-group")?.split(", ") ?? [],
    extra,
    authorization: req.headers.has("authorization"),
    impersonation: [...req.headers.keys()].some((k) => k.startsWith("impersonate-")),
    clientCertCN: peer[0] ? parseCertificate(peer[0]).commonName : "",
  };
}

/** The in-memory flunders and their watchers. */
class Flunders {
  readonly items = new Map<string, Obj>();
  readonly watchers = new Set<ReadableStreamDefaultController<Uint8Array>>();
  #rv = 1;

  create(ns: string, body: Obj): Response {
    const meta = (body.metadata ?? {}) as Obj;
    const key = `${ns}/${meta.name}`;
    if (this.items.has(key)) return json(409, { kind: "Status", status: "Failure", code: 409 });
    const obj = {
      ...body,
      apiVersion: GV,
      kind: "Flunder",
      metadata: { ...meta, namespace: ns, resourceVersion: String(++this.#rv) },
    };
    this.items.set(key, obj);
    const line = new TextEncoder().encode(JSON.stringify({ type: "ADDED", object: obj }) + "\n");
    for (const w of this.watchers) w.enqueue(line);
    return json(201, obj);
  }

  list(ns: string): Response {
    const items = [...this.items.entries()].filter(([k]) => k.startsWith(`${ns}/`)).map(([, v]) =>
      v
    );
    return json(200, {
      kind: "FlunderList",
      apiVersion: GV,
      metadata: { resourceVersion: String(this.#rv) },
      items,
    });
  }

  watch(ns: string): Response {
    let me: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        me = c;
        this.watchers.add(c);
        for (const [k, v] of this.items) {
          if (k.startsWith(`${ns}/`)) {
            c.enqueue(
              new TextEncoder().encode(JSON.stringify({ type: "ADDED", object: v }) + "\n"),
            );
          }
        }
      },
      cancel: () => {
        this.watchers.delete(me);
      },
    });
    return new Response(stream, { headers: { "content-type": "application/json" } });
  }

  closeWatches(): void {
    for (const w of this.watchers) {
      try {
        w.close();
      } catch { /* already closed */ }
    }
    this.watchers.clear();
  }
}

async function route(req: Request, url: URL, flunders: Flunders): Promise<Response> {
  // A connection upgrade to an echo protocol that upper-cases what it receives.
  if (requestedUpgrade(req.headers) === "echo") {
    return new UpgradeResponse({ upgrade: "echo" }, ({ socket, head }) => {
      const shout = (b: Uint8Array) => socket.write(new TextDecoder().decode(b).toUpperCase());
      if (head.length) shout(head);
      socket.on("data", shout);
    });
  }
  const p = url.pathname.replace(/\/$/, "");
  if (p === `/apis/${GV}`) return json(200, RESOURCE_LIST);
  if (p === "/openapi/v3") {
    return json(200, {
      paths: { [`apis/${GV}`]: { serverRelativeURL: `/openapi/v3/apis/${GV}?hash=1` } },
    });
  }
  if (p === `/openapi/v3/apis/${GV}`) return json(200, OPENAPI_DOC);
  const m = p.match(
    new RegExp(`^/apis/${GV.replace(".", "\\.")}/namespaces/([^/]+)/flunders(?:/([^/]+))?$`),
  );
  if (!m) return json(404, { kind: "Status", status: "Failure", code: 404, reason: "NotFound" });
  const [, ns, name] = m;
  if (req.method === "POST" && !name) return flunders.create(ns, await req.json());
  if (req.method === "GET" && name) {
    const obj = flunders.items.get(`${ns}/${name}`);
    return obj
      ? json(200, obj)
      : json(404, { kind: "Status", status: "Failure", code: 404, reason: "NotFound" });
  }
  if (req.method === "GET" && url.searchParams.get("watch") === "true") return flunders.watch(ns);
  if (req.method === "GET") return flunders.list(ns);
  return json(405, { kind: "Status", status: "Failure", code: 405 });
}

/** Starts the fake for Service `name` in `namespace` on a free port of every address. */
export async function startFakeExtension(namespace: string, name: string): Promise<FakeExtension> {
  const ca = await createCA("fake-extension-ca");
  const serving = await issueCertificate({
    ca,
    commonName: `${name}.${namespace}.svc`,
    dnsNames: [`${name}.${namespace}.svc`],
    usages: "server",
  });
  const seen: Seen[] = [];
  const flunders = new Flunders();
  let server: HttpsServer | undefined;
  const listen = async (port: number) => {
    server = await serveHttps(async (req, conn) => {
      const url = new URL(req.url);
      seen.push(record(req, conn.peerCertificates, url));
      return await route(req, url, flunders);
    }, {
      hostname: "0.0.0.0",
      port,
      certPem: serving.certPem,
      keyPem: serving.keyPem,
      requestClientCert: true,
      onError: () => {},
      onWarning: () => {},
    });
  };
  await listen(0);
  const port = server!.port;
  return {
    port,
    ca,
    seen,
    async stop() {
      flunders.closeWatches();
      await server?.close();
      server = undefined;
    },
    async restart() {
      await listen(port);
    },
  };
}
