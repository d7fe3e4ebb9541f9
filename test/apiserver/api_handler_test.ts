/**
 * The composed request handler, called in-process: a Request in, a Response out, no TLS.
 * The parts are the real ones (libSQL storage in a temp directory, the registry, static
 * tokens, the RBAC authorizer fed from the change feed).
 */
import assert from "node:assert/strict";
import { patchAppliers } from "../../apiserver/http/patch_appliers.ts";
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import { type ApiHandler, buildApiHandler } from "../../apiserver/api_handler.ts";
import { AuthenticatorChain } from "../../apiserver/auth/authn/authenticator.ts";
import {
  RejectUnknownBearer,
  StaticTokenAuthenticator,
} from "../../apiserver/auth/authn/static_token.ts";
import { buildAuthorizer } from "../../apiserver/auth/authz/build_authorizer.ts";
import { ChangeFeedResourceFeed } from "../../apiserver/auth/authz/resource_feed.ts";
import { HealthChecks } from "../../apiserver/health/mod.ts";
import { createApiServerMetrics, MetricsRegistry } from "../../apiserver/metrics/mod.ts";
import { BUILTIN_KINDS } from "../../apiserver/registry/builtin_kinds.ts";
import { ResourceRegistry } from "../../apiserver/registry/resource_registry.ts";
import { ChangeFeed } from "../../apiserver/watch/change_feed.ts";
import { WatchCaches } from "../../apiserver/watch/watch_caches.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { featureGatesFromFlag, KNOWN_FEATURES } from "../../shared/feature_gates.ts";
import { Logger } from "../../shared/log/mod.ts";
import { openTempStorage } from "../support/registry_harness.ts";
import { testConn } from "../support/test_conn.ts";

const TOKENS = [
  { token: "admin-token", user: { username: "admin", groups: ["system:masters"] } },
  { token: "alice-token", user: { username: "alice", groups: [] } },
  { token: "bob-token", user: { username: "bob", groups: [] } },
];

const RBAC = "rbac.authorization.k8s.io";

/** RBAC objects: alice may read ConfigMaps in `default`; bob may impersonate alice. */
const POLICY: { resource: string; namespace: string; object: KubeObject }[] = [
  {
    resource: "roles",
    namespace: "default",
    object: {
      metadata: { name: "configmap-reader" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
    },
  },
  {
    resource: "rolebindings",
    namespace: "default",
    object: {
      metadata: { name: "alice-reads-configmaps" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "configmap-reader" },
      subjects: [{ apiGroup: RBAC, kind: "User", name: "alice" }],
    },
  },
  {
    resource: "clusterroles",
    namespace: "",
    object: {
      metadata: { name: "impersonate-alice" },
      rules: [{
        apiGroups: [""],
        resources: ["users"],
        verbs: ["impersonate"],
        resourceNames: ["alice"],
      }],
    },
  },
  {
    resource: "clusterrolebindings",
    namespace: "",
    object: {
      metadata: { name: "bob-impersonates-alice" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "impersonate-alice" },
      subjects: [{ apiGroup: RBAC, kind: "User", name: "bob" }],
    },
  },
];

/** Builds the handler over a fresh temp storage holding POLICY, runs `fn`, cleans up. */
async function withHandler(fn: (handle: ApiHandler) => Promise<void>): Promise<void> {
  const temp = await openTempStorage("api_handler_");
  const watchCaches = new WatchCaches(
    new ChangeFeed({ storage: temp.storage, remote: false, historyWindowMs: 60_000 }),
  );
  const authorization = await buildAuthorizer({ modes: ["RBAC"] });
  try {
    const registry = new ResourceRegistry({
      storage: temp.storage,
      listCacheFor: (store) => watchCaches.listCacheFor(store),
    });
    for (const kind of BUILTIN_KINDS) registry.add(kind);
    for (const p of POLICY) {
      await registry.lookup(RBAC, "v1", p.resource)!.create(p.namespace, p.object);
    }
    await watchCaches.feed.start();
    await authorization.follow(new ChangeFeedResourceFeed(watchCaches.feed));
    const logger = new Logger({ verbosity: 0, sink: () => {} });
    const handle = buildApiHandler({
      registry,
      watchCaches,
      patchAppliers: patchAppliers(builtinSchemaModel()),
      authenticator: new AuthenticatorChain([
        new StaticTokenAuthenticator(TOKENS),
        new RejectUnknownBearer(),
      ]),
      authorizer: authorization.chain,
      health: new HealthChecks(),
      metrics: createApiServerMetrics(new MetricsRegistry({ currentVersion: "1.32" })),
      featureGates: featureGatesFromFlag("", KNOWN_FEATURES).gates,
      logger,
    });
    await fn(handle);
  } finally {
    authorization.stop();
    await watchCaches.feed.stop();
    await temp.close();
  }
}

/** Sends one request to `handle`; returns its status and parsed JSON body. */
async function call(
  handle: ApiHandler,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const req = new Request(`https://127.0.0.1:6443${path}`, { headers });
  const res = await handle(req, testConn(req));
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : { text } };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

Deno.test("buildApiHandler() answers 401 to a request without valid credentials", async () => {
  await withHandler(async (handle) => {
    for (const headers of [{}, bearer("wrong-token")]) {
      const { status, body } = await call(handle, "/api/v1/namespaces/default/configmaps", headers);
      assert.equal(status, 401);
      assert.equal(body.kind, "Status");
      assert.equal(body.reason, "Unauthorized");
    }
  });
});

Deno.test("buildApiHandler() answers 403 when the authorizer denies the request", async () => {
  await withHandler(async (handle) => {
    const denied = await call(handle, "/api/v1/namespaces/default/secrets", bearer("alice-token"));
    assert.equal(denied.status, 403);
    assert.equal(denied.body.reason, "Forbidden");
    assert.equal(
      denied.body.message,
      'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
    assert.equal((denied.body.details as { kind?: string }).kind, "secrets");

    const nonResource = await call(handle, "/version", bearer("alice-token"));
    assert.equal(nonResource.status, 403);
    assert.match(String(nonResource.body.message), /User "alice" cannot get path "\/version"/);

    const allowed = await call(
      handle,
      "/api/v1/namespaces/default/configmaps",
      bearer("alice-token"),
    );
    assert.equal(allowed.status, 200);
    assert.equal(allowed.body.kind, "ConfigMapList");
  });
});

Deno.test("buildApiHandler() runs an allowed impersonation as the impersonated user", async () => {
  await withHandler(async (handle) => {
    const asAlice = { ...bearer("bob-token"), "impersonate-user": "alice" };
    const configMaps = await call(handle, "/api/v1/namespaces/default/configmaps", asAlice);
    assert.equal(configMaps.status, 200, "alice may list ConfigMaps; bob may not");
    const secrets = await call(handle, "/api/v1/namespaces/default/secrets", asAlice);
    assert.equal(secrets.status, 403);
    assert.match(String(secrets.body.message), /User "alice" cannot list resource "secrets"/);
  });
});

Deno.test("buildApiHandler() refuses impersonation the caller may not do", async () => {
  await withHandler(async (handle) => {
    const asBob = { ...bearer("alice-token"), "impersonate-user": "bob" };
    const denied = await call(handle, "/api/v1/namespaces/default/configmaps", asBob);
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );

    const groupOnly = { ...bearer("admin-token"), "impersonate-group": "system:masters" };
    const invalid = await call(handle, "/api/v1/namespaces/default/configmaps", groupOnly);
    assert.equal(invalid.status, 400);
  });
});

Deno.test("buildApiHandler() answers health and metrics paths before routing, else 404", async () => {
  await withHandler(async (handle) => {
    const admin = bearer("admin-token");
    assert.deepEqual(await call(handle, "/healthz", admin), { status: 200, body: { text: "ok" } });
    const metrics = await call(handle, "/metrics", admin);
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.body.text), /apiserver_request_total/);
    const missing = await call(handle, "/no/such/path", admin);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.reason, "NotFound");
  });
});
