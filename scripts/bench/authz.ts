/**
 * Authorization benchmark. Part 1: RBAC decisions per second against an in-memory index with
 * 1,000 Roles and 1,000 RoleBindings (plus the default cluster policy). Part 2: GET requests
 * per second through the whole server as a non-admin user (token file) under
 * `--authorization-mode=RBAC` and under `AlwaysAllow`, in one run, with 1,000 roles and
 * 1,000 bindings stored.
 *
 * Usage: ./scripts/deno run -A scripts/bench/authz.ts [--seconds=3] [--concurrency=8]
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { AuthzAttributes } from "../../apiserver/auth/authz/authorizer.ts";
import {
  defaultClusterRoleBindings,
  defaultClusterRoles,
} from "../../apiserver/auth/authz/bootstrap/default_policy.ts";
import { RbacAuthorizer } from "../../apiserver/auth/authz/rbac_authorizer.ts";
import { RBAC_PREFIXES, RbacIndex } from "../../apiserver/auth/authz/rbac_index.ts";
import type { ResourceEvent } from "../../apiserver/auth/authz/resource_feed.ts";
import { parseServerOptions } from "../../apiserver/options.ts";
import { startServer } from "../../apiserver/server.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { Logger } from "../../shared/log/mod.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string" }, concurrency: { type: "string" } },
});
const SECONDS = Number(values.seconds ?? "3");
const CONCURRENCY = Number(values.concurrency ?? "8");
const N = 1000;
const G = "rbac.authorization.k8s.io";

function role(i: number): KubeObject {
  return {
    metadata: { name: `role-${i}`, namespace: `ns-${i % 100}` },
    rules: [
      { apiGroups: [""], resources: ["configmaps", "pods"], verbs: ["get", "list"] },
      {
        apiGroups: ["apps"],
        resources: ["deployments"],
        verbs: ["get"],
        resourceNames: [`d-${i}`],
      },
    ],
  } as KubeObject;
}

function binding(i: number): KubeObject {
  return {
    metadata: { name: `bind-${i}`, namespace: `ns-${i % 100}` },
    roleRef: { apiGroup: G, kind: "Role", name: `role-${i}` },
    subjects: [{ kind: "User", apiGroup: G, name: `user-${i}` }, {
      kind: "Group",
      apiGroup: G,
      name: `group-${i % 10}`,
    }],
  } as KubeObject;
}

function decisionsPerSecond(): { rate: number; allowed: number; total: number } {
  const index = new RbacIndex();
  const events: ResourceEvent[] = [];
  const add = (prefix: string, o: KubeObject) => {
    const ns = o.metadata.namespace ? `${o.metadata.namespace}/` : "";
    events.push({ type: "ADDED", key: `${prefix}${ns}${o.metadata.name}`, object: o, revision: 1 });
  };
  for (const r of defaultClusterRoles()) add(RBAC_PREFIXES.clusterroles, r);
  for (const b of defaultClusterRoleBindings()) add(RBAC_PREFIXES.clusterrolebindings, b);
  for (let i = 0; i < N; i++) {
    add(RBAC_PREFIXES.roles, role(i));
    add(RBAC_PREFIXES.rolebindings, binding(i));
  }
  index.apply(events);
  const rbac = new RbacAuthorizer(index);
  const reqs: AuthzAttributes[] = [];
  for (let i = 0; i < 1000; i++) {
    const u = (i * 7919) % N;
    reqs.push({
      user: { username: `user-${u}`, groups: [`group-${u % 10}`, "system:authenticated"] },
      verb: i % 3 === 0 ? "delete" : "get",
      isResourceRequest: true,
      path: "",
      apiGroup: "",
      apiVersion: "v1",
      resource: i % 5 === 0 ? "secrets" : "configmaps",
      subresource: "",
      namespace: `ns-${(u + (i % 2)) % 100}`,
      name: "x",
    });
  }
  let total = 0, allowed = 0;
  const end = performance.now() + SECONDS * 1000;
  while (performance.now() < end) {
    for (const r of reqs) if (rbac.decide(r).decision === "allow") allowed++;
    total += reqs.length;
  }
  return { rate: total / SECONDS, allowed, total };
}

async function getsPerSecond(mode: string): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "bench-authz-" });
  const token = crypto.randomUUID();
  await Deno.writeTextFile(`${dir}/tokens.csv`, `${token},user-1,uid-1\n`, { mode: 0o600 });
  const parsed = parseServerOptions([
    `--data-dir=${dir}`,
    "--secure-port=0",
    "--bind-address=127.0.0.1",
    `--authorization-mode=${mode}`,
    `--token-auth-file=${dir}/tokens.csv`,
  ]);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const server = await startServer(parsed.options, {
    logger: new Logger({ verbosity: 0, sink: () => {} }),
  });
  const client = Deno.createHttpClient({ caCerts: [server.caPem] });
  try {
    await server.ready;
    const reg = server.registry;
    const nsStore = reg.lookup("", "v1", "namespaces")!;
    for (let i = 0; i < 100; i++) await nsStore.create("", { metadata: { name: `ns-${i}` } });
    const roles = reg.lookup(G, "v1", "roles")!, binds = reg.lookup(G, "v1", "rolebindings")!;
    for (let i = 0; i < N; i++) {
      await roles.create(`ns-${i % 100}`, role(i));
      await binds.create(`ns-${i % 100}`, binding(i));
    }
    await reg.lookup("", "v1", "configmaps")!.create("ns-1", {
      metadata: { name: "x" },
      data: { a: "b" },
    });
    const url = `${server.url}/api/v1/namespaces/ns-1/configmaps/x`;
    const headers = { authorization: `Bearer ${token}` };
    const check = await fetch(url, { headers, client });
    if (check.status !== 200) throw new Error(`${mode}: GET answered ${check.status}`);
    await check.body?.cancel();
    let count = 0;
    const end = performance.now() + SECONDS * 1000;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const r = await fetch(url, { headers, client });
        await r.arrayBuffer();
        if (r.status === 200) count++;
      }
    }));
    return count / SECONDS;
  } finally {
    client.close();
    await server.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

const d = decisionsPerSecond();
console.log(
  `RBAC decisions: ${Math.round(d.rate).toLocaleString("en-US")}/s ` +
    `(${N} Roles, ${N} RoleBindings + defaults; ${
      Math.round((d.allowed / d.total) * 100)
    }% allowed)`,
);
const rbacRate = await getsPerSecond("RBAC");
const allowRate = await getsPerSecond("AlwaysAllow");
console.log(`GET /configmaps/x as user-1, concurrency ${CONCURRENCY}, ${SECONDS}s each:`);
console.log(`  RBAC:        ${Math.round(rbacRate).toLocaleString("en-US")} req/s`);
console.log(`  AlwaysAllow: ${Math.round(allowRate).toLocaleString("en-US")} req/s`);
console.log(`  RBAC/AlwaysAllow: ${(rbacRate / allowRate).toFixed(3)}`);
