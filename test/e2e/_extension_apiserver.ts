/**
 * Fixtures of the extension-server end-to-end tests: a main server with token users, and a
 * second instance of our server in extension-server mode behind it (its own data directory
 * and storage, `--authentication-kubeconfig`/`--authorization-kubeconfig` naming the main
 * server as the `ext-server` user, bound to `system:auth-delegator` and the
 * `extension-apiserver-authentication-reader` Role), serving `wardle.example.com/v1alpha1`
 * Flunders from a CustomResourceDefinition in its own storage, registered in the main server
 * through a Service, an EndpointSlice (or an ExternalName Service) and an APIService with its
 * CA as `caBundle`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { call } from "./foundation_helpers.ts";

export const GROUP = "wardle.example.com";
export const VERSION = "v1alpha1";
export const NS = "wardle";
export const SVC = "api";
export const API_SERVICE = `${VERSION}.${GROUP}`;
export const BASE = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/flunders`;

/** The token users of the main server (`token,user,uid`). */
const TOKENS = [
  "ext-token,ext-server,uid-ext",
  "bob-token,bob,uid-bob",
  "carol-token,carol,uid-carol",
].join("\n");

/** The two servers and the extension's flags (for a restart on the same port). */
export interface Pair {
  main: TestServer;
  ext: TestServer;
  /** A directory for files of the test. */
  dir: string;
  extDir: string;
  extFlags: string[];
  auditLog: string;
}

/** Polls for up to 90 s (the machine is shared and slow). */
export function until<T>(what: string, fn: () => Promise<T | undefined | false>) {
  return eventually(what, fn, { timeoutMs: 90_000, intervalMs: 200 });
}

async function bind(main: TestServer): Promise<void> {
  const rbac = "/apis/rbac.authorization.k8s.io/v1";
  const user = [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "ext-server" }];
  const crb = await call(main, "POST", `${rbac}/clusterrolebindings`, {
    metadata: { name: "ext-server:auth-delegator" },
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "system:auth-delegator",
    },
    subjects: user,
  });
  assert.equal(crb.status, 201, crb.text);
  const rb = await call(main, "POST", `${rbac}/namespaces/kube-system/rolebindings`, {
    metadata: { name: "ext-server:authentication-reader" },
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: "extension-apiserver-authentication-reader",
    },
    subjects: user,
  });
  assert.equal(rb.status, 201, rb.text);
}

/** A kubeconfig for the main server with the ext-server token. */
async function extKubeconfig(main: TestServer, dir: string): Promise<string> {
  const path = join(dir, "ext-server.kubeconfig");
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "main",
        cluster: {
          server: main.server.url,
          "certificate-authority-data": btoa(main.server.caPem),
        },
      }],
      users: [{ name: "ext", user: { token: "ext-token" } }],
      contexts: [{ name: "main", context: { cluster: "main", user: "ext" } }],
      "current-context": "main",
    }),
  );
  return path;
}

/** The Flunder definition, served by the extension from its own storage. */
async function defineFlunders(ext: TestServer): Promise<void> {
  const crd = await call(ext, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    metadata: { name: `flunders.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "flunders", singular: "flunder", kind: "Flunder", listKind: "FlunderList" },
      versions: [{
        name: VERSION,
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      }],
    },
  });
  assert.equal(crd.status, 201, crd.text);
  await until("the Flunders served by the extension", async () => {
    const r = await call(ext, "GET", `/apis/${GROUP}/${VERSION}`);
    return r.status === 200;
  });
  for (const s of [ext]) {
    const ns = await call(s, "POST", "/api/v1/namespaces", { metadata: { name: NS } });
    assert.equal(ns.status, 201, ns.text);
  }
}

/** A non-loopback IPv4 address of this machine, if any (EndpointSlices refuse loopback). */
function hostAddress(): string | undefined {
  return Deno.networkInterfaces().find((i) => i.family === "IPv4" && !i.address.startsWith("127."))
    ?.address;
}

/** The Service, its EndpointSlice (or ExternalName) and the APIService, in the main server. */
async function register(main: TestServer, ext: TestServer): Promise<void> {
  const ns = await call(main, "POST", "/api/v1/namespaces", { metadata: { name: NS } });
  assert.equal(ns.status, 201, ns.text);
  const address = hostAddress();
  const svc = await call(main, "POST", `/api/v1/namespaces/${NS}/services`, {
    metadata: { name: SVC },
    spec: address
      ? { ports: [{ port: 443, targetPort: ext.server.port }] }
      : { type: "ExternalName", externalName: "127.0.0.1" },
  });
  assert.equal(svc.status, 201, svc.text);
  if (address) {
    const slice = await call(
      main,
      "POST",
      `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
      {
        metadata: { name: `${SVC}-1`, labels: { "kubernetes.io/service-name": SVC } },
        addressType: "IPv4",
        endpoints: [{ addresses: [address], conditions: { ready: true } }],
        ports: [{ name: "", port: ext.server.port, protocol: "TCP" }],
      },
    );
    assert.equal(slice.status, 201, slice.text);
  }
  const api = await call(main, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
    metadata: { name: API_SERVICE },
    spec: {
      group: GROUP,
      version: VERSION,
      service: { namespace: NS, name: SVC, ...(address ? {} : { port: ext.server.port }) },
      caBundle: btoa(ext.server.caPem),
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  });
  assert.equal(api.status, 201, api.text);
}

/** The extension's flags (without the port). */
function extensionFlags(kubeconfig: string, dir: string): string[] {
  return [
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    "--authorization-webhook-cache-unauthorized-ttl=1s",
    "--bind-address=0.0.0.0",
    `--tls-san=${SVC}.${NS}.svc`,
    `--audit-policy-file=${join(dir, "policy.yaml")}`,
    `--audit-log-path=${join(dir, "ext-audit.log")}`,
    "--disable-scheduler",
  ];
}

/** Starts the main server, the extension, and registers the extension; Available True. */
export async function startPair(): Promise<Pair> {
  const dir = await Deno.makeTempDir({ prefix: "extension-apiserver-test-" });
  await Deno.writeTextFile(join(dir, "tokens.csv"), TOKENS + "\n");
  await Deno.writeTextFile(
    join(dir, "policy.yaml"),
    "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n",
  );
  const main = await startTestServer([`--token-auth-file=${join(dir, "tokens.csv")}`], {
    optionsHook: (o) => {
      o.aggregatorResyncMs = 1_000;
    },
  });
  await bind(main);
  const extDir = join(dir, "ext");
  const extFlags = extensionFlags(await extKubeconfig(main, dir), dir);
  const ext = await startTestServer(extFlags, { dir: extDir, keepDir: true });
  await defineFlunders(ext);
  await register(main, ext);
  await until("Available True", async () => (await availability(main))?.status === "True");
  return { main, ext, dir, extDir, extFlags, auditLog: join(dir, "ext-audit.log") };
}

/** Starts the extension again on its port and data directory. */
export async function restartExtension(p: Pair): Promise<void> {
  p.ext = await startTestServer([...p.extFlags, `--secure-port=${p.ext.server.port}`], {
    dir: p.extDir,
    keepDir: true,
  });
}

/** Stops both servers and removes the files. */
export async function stopPair(p: Pair): Promise<void> {
  await p.ext.close().catch(() => {});
  await p.main.close();
  await Deno.remove(p.dir, { recursive: true }).catch(() => {});
}

/** The APIService's Available condition. */
export async function availability(
  main: TestServer,
): Promise<Record<string, string> | undefined> {
  const r = await call<{ status?: { conditions?: Record<string, string>[] } }>(
    main,
    "GET",
    `/apis/apiregistration.k8s.io/v1/apiservices/${API_SERVICE}`,
  );
  return r.body.status?.conditions?.find((c) => c.type === "Available");
}

/** The extension's audit events (ResponseComplete) of the Flunders. */
export async function extensionEvents(p: Pair): Promise<
  {
    user: { username: string; groups?: string[] };
    verb: string;
    responseStatus?: { code: number };
  }[]
> {
  const text = await Deno.readTextFile(p.auditLog).catch(() => "");
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((e) =>
    e.stage === "ResponseComplete" && e.objectRef?.resource === "flunders"
  );
}
