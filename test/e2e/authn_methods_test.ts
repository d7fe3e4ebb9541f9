/**
 * End to end: every authentication method of the server, each with a good credential, a bad
 * one (401) and, where it can expire, an expired one; forged and foreign client certificates
 * never authenticate. Identities are read back through TokenReview (as the admin) and
 * SelfSubjectReview.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadServiceAccountKeys } from "../../apiserver/auth/authn/service_account_keys.ts";
import { ServiceAccountTokenIssuer } from "../../apiserver/auth/authn/service_account_token.ts";
import { createCA, issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";

const DAY = 24 * 60 * 60 * 1000;
const ISSUER = "https://kubernetes.default.svc.cluster.local";

/** Fetches with a client certificate (and no bearer token). */
async function certFetch(
  t: TestServer,
  pair: { certPem: string; keyPem: string },
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  const client = Deno.createHttpClient({
    caCerts: [t.server.caPem],
    cert: pair.certPem,
    key: pair.keyPem,
  } as Deno.CreateHttpClientOptions);
  try {
    const res = await fetch(t.server.url + path, { ...init, client });
    await res.bytes().then((b) => Object.defineProperty(res, "_body", { value: b }));
    return res;
  } finally {
    client.close();
  }
}

/** The body read by certFetch. */
function bodyOf(res: Response): unknown {
  return JSON.parse(new TextDecoder().decode((res as unknown as { _body: Uint8Array })._body));
}

const SSR = {
  apiVersion: "authentication.k8s.io/v1",
  kind: "SelfSubjectReview",
};

async function whoami(
  t: TestServer,
  init: RequestInit & { auth?: boolean } = {},
): Promise<{ status: number; user?: Record<string, unknown> }> {
  const res = await t.fetch("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
    ...init,
    method: "POST",
    headers: { "content-type": "application/json", ...(init.headers ?? {}) },
    body: JSON.stringify(SSR),
  });
  const body = await res.json();
  return { status: res.status, user: body.status?.userInfo };
}

async function tokenReview(t: TestServer, token: string, audiences?: string[]) {
  const res = await t.fetch("/apis/authentication.k8s.io/v1/tokenreviews", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token, ...(audiences ? { audiences } : {}) },
    }),
  });
  assert.equal(res.status, 201);
  return (await res.json()).status;
}

async function statusWithToken(t: TestServer, token: string, path = "/apis"): Promise<number> {
  const res = await t.fetch(path, { headers: { authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
}

// deno-lint-ignore no-explicit-any
type Json = any;

/** A request with the admin client; the body parsed as JSON. */
async function call(
  t: TestServer,
  method: string,
  path: string,
  opts: { body?: unknown; query?: Record<string, string | number> } = {},
): Promise<{ status: number; body: Json }> {
  const r = await t.client.request(method, path, opts);
  return { status: r.status, body: r.body ? JSON.parse(r.body) : undefined };
}

Deno.test("authentication methods: certificates, token file, bootstrap, service accounts, proxy, anonymous", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "apiserver-authn-" });
  await Deno.writeTextFile(
    join(dir, "tokens.csv"),
    'file-token-1,alice,uid-alice,"dev,system:masters"\nfile-token-2,bob,uid-bob\n',
  );
  const proxyCa = await createCA("front-proxy-ca");
  await Deno.writeTextFile(join(dir, "front-proxy-ca.crt"), proxyCa.certPem);
  const ts = await startTestServer([
    `--token-auth-file=${join(dir, "tokens.csv")}`,
    "--enable-bootstrap-token-auth",
    `--requestheader-client-ca-file=${join(dir, "front-proxy-ca.crt")}`,
    "--requestheader-allowed-names=front-proxy",
  ], { dir });
  const pki = ts.server.pki;
  try {
    await t.step("client certificate: the admin certificate is kubernetes-admin", async () => {
      const res = await certFetch(
        ts,
        pki.adminClient,
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(SSR),
        },
      );
      assert.equal(res.status, 201);
      const user = (bodyOf(res) as { status: { userInfo: { username: string; groups: string[] } } })
        .status.userInfo;
      assert.equal(user.username, "kubernetes-admin");
      assert.deepEqual(user.groups, ["system:masters", "system:authenticated"]);
    });
    await t.step(
      "client certificate: forged, foreign and expired certificates get 401",
      async () => {
        const selfSigned = await issueCertificate({
          commonName: "kubernetes-admin",
          organizations: ["system:masters"],
          usages: "client",
        });
        const foreign = await issueCertificate({
          ca: await createCA("kubernetes-client-ca"),
          commonName: "kubernetes-admin",
          organizations: ["system:masters"],
          usages: "client",
        });
        const expired = await issueCertificate({
          ca: pki.clientCa,
          commonName: "old",
          organizations: ["system:masters"],
          usages: "client",
          validDays: 1,
          now: new Date(Date.now() - 10 * DAY),
        });
        for (const pair of [selfSigned, foreign, expired]) {
          const res = await certFetch(ts, pair, "/api/v1/namespaces");
          assert.equal(res.status, 401);
          assert.equal((bodyOf(res) as { reason: string }).reason, "Unauthorized");
        }
      },
    );
    await t.step("client certificate: a certificate of the client CA maps CN and O", async () => {
      const pair = await issueCertificate({
        ca: pki.clientCa,
        commonName: "carol",
        organizations: ["system:masters", "team-a"],
        usages: "client",
      });
      const res = await certFetch(ts, pair, "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(SSR),
      });
      assert.equal(res.status, 201);
      const u = (bodyOf(res) as { status: { userInfo: { username: string; groups: string[] } } })
        .status.userInfo;
      assert.equal(u.username, "carol");
      assert.deepEqual(u.groups, ["system:masters", "team-a", "system:authenticated"]);
    });

    await t.step("token file: good token authenticates, bad token is 401", async () => {
      const s = await tokenReview(ts, "file-token-2");
      assert.equal(s.authenticated, true);
      assert.deepEqual(s.user, {
        username: "bob",
        uid: "uid-bob",
        groups: ["system:authenticated"],
      });
      const me = await whoami(ts, { headers: { authorization: "Bearer file-token-1" } });
      assert.equal(me.status, 201);
      assert.equal(me.user?.username, "alice");
      assert.deepEqual(me.user?.groups, ["dev", "system:masters", "system:authenticated"]);
      assert.equal(await statusWithToken(ts, "file-token-3"), 401);
      const bad = await tokenReview(ts, "file-token-3");
      assert.equal(bad.authenticated, undefined);
      assert.match(bad.error, /invalid bearer token/);
    });

    await t.step(
      "bootstrap token: good, wrong secret, expired, not for authentication",
      async () => {
        const secret = (id: string, data: Record<string, string>) =>
          call(ts, "POST", "/api/v1/namespaces/kube-system/secrets", {
            body: {
              apiVersion: "v1",
              kind: "Secret",
              metadata: { name: `bootstrap-token-${id}` },
              type: "bootstrap.kubernetes.io/token",
              stringData: data,
            },
          });
        const ok = await secret("abcdef", {
          "token-id": "abcdef",
          "token-secret": "0123456789abcdef",
          "usage-bootstrap-authentication": "true",
          "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token",
          expiration: new Date(Date.now() + DAY).toISOString(),
        });
        assert.equal(ok.status, 201);
        assert.equal(
          (await secret("expird", {
            "token-id": "expird",
            "token-secret": "0123456789abcdef",
            "usage-bootstrap-authentication": "true",
            expiration: "2020-01-01T00:00:00Z",
          })).status,
          201,
        );
        assert.equal(
          (await secret("nouse0", {
            "token-id": "nouse0",
            "token-secret": "0123456789abcdef",
          })).status,
          201,
        );
        const s = await tokenReview(ts, "abcdef.0123456789abcdef");
        assert.equal(s.authenticated, true);
        assert.deepEqual(s.user, {
          username: "system:bootstrap:abcdef",
          groups: [
            "system:bootstrappers",
            "system:bootstrappers:kubeadm:default-node-token",
            "system:authenticated",
          ],
        });
        assert.equal(await statusWithToken(ts, "abcdef.0123456789abcdef"), 200);
        for (
          const bad of [
            "abcdef.0123456789abcdeX",
            "expird.0123456789abcdef",
            "nouse0.0123456789abcdef",
            "zzzzzz.0123456789abcdef",
          ]
        ) {
          assert.equal(await statusWithToken(ts, bad), 401, bad);
        }
      },
    );

    await t.step(
      "service account token: issued by TokenRequest, revoked with its account",
      async () => {
        const sa = await call(ts, "POST", "/api/v1/namespaces/default/serviceaccounts", {
          body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "robot" } },
        });
        assert.equal(sa.status, 201);
        const tr = await call(
          ts,
          "POST",
          "/api/v1/namespaces/default/serviceaccounts/robot/token",
          {
            body: {
              apiVersion: "authentication.k8s.io/v1",
              kind: "TokenRequest",
              spec: { audiences: [ISSUER], expirationSeconds: 600 },
            },
          },
        );
        assert.equal(tr.status, 201, JSON.stringify(tr.body));
        const trBody = tr.body;
        const token = trBody.status.token;
        assert.ok(Date.parse(trBody.status.expirationTimestamp) > Date.now());
        const s = await tokenReview(ts, token);
        assert.equal(s.authenticated, true);
        assert.equal(s.user.username, "system:serviceaccount:default:robot");
        assert.deepEqual(s.user.groups, [
          "system:serviceaccounts",
          "system:serviceaccounts:default",
          "system:authenticated",
        ]);
        assert.deepEqual(s.audiences, [ISSUER]);
        assert.equal(await statusWithToken(ts, token), 200);

        // Another audience: rejected for the API, accepted by a review asking for it.
        const vault = await call(
          ts,
          "POST",
          "/api/v1/namespaces/default/serviceaccounts/robot/token",
          {
            body: {
              apiVersion: "authentication.k8s.io/v1",
              kind: "TokenRequest",
              spec: { audiences: ["vault"] },
            },
          },
        );
        const vaultToken = vault.body.status.token;
        assert.equal(await statusWithToken(ts, vaultToken), 401);
        assert.equal((await tokenReview(ts, vaultToken, ["vault"])).authenticated, true);

        // Too short a lifetime is invalid.
        const short = await call(
          ts,
          "POST",
          "/api/v1/namespaces/default/serviceaccounts/robot/token",
          {
            body: {
              apiVersion: "authentication.k8s.io/v1",
              kind: "TokenRequest",
              spec: { audiences: [ISSUER], expirationSeconds: 60 },
            },
          },
        );
        assert.equal(short.status, 422);

        // An expired token signed with the server's own key.
        const keys = await loadServiceAccountKeys({ pkiDir: pki.dir });
        const past = new ServiceAccountTokenIssuer(keys, {
          issuer: ISSUER,
          now: () => new Date(Date.now() - 2 * 3600_000),
        });
        const saUid = sa.body.metadata.uid;
        const old = await past.issue({
          namespace: "default",
          serviceAccount: { name: "robot", uid: saUid },
          audiences: [ISSUER],
          expirationSeconds: 3600,
        });
        assert.equal(await statusWithToken(ts, old.token), 401);
        assert.equal(await statusWithToken(ts, token.slice(0, -4) + "AAAA"), 401);

        const del = await call(ts, "DELETE", "/api/v1/namespaces/default/serviceaccounts/robot");
        assert.equal(del.status, 200);
        assert.equal(await statusWithToken(ts, token), 401);
        const after = await call(
          ts,
          "POST",
          "/api/v1/namespaces/default/serviceaccounts/robot/token",
          {
            body: {
              apiVersion: "authentication.k8s.io/v1",
              kind: "TokenRequest",
              spec: { audiences: [ISSUER] },
            },
          },
        );
        assert.equal(after.status, 404);
      },
    );

    await t.step(
      "service account token bound to a pod stops working when the pod is gone",
      async () => {
        await call(ts, "POST", "/api/v1/namespaces/default/serviceaccounts", {
          body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "worker" } },
        });
        const pod = await call(ts, "POST", "/api/v1/namespaces/default/pods", {
          body: {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "p1" },
            spec: { serviceAccountName: "worker", containers: [{ name: "c", image: "busybox" }] },
          },
        });
        assert.equal(pod.status, 201, JSON.stringify(pod.body));
        const tr = await call(
          ts,
          "POST",
          "/api/v1/namespaces/default/serviceaccounts/worker/token",
          {
            body: {
              apiVersion: "authentication.k8s.io/v1",
              kind: "TokenRequest",
              spec: {
                audiences: [ISSUER],
                boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p1" },
              },
            },
          },
        );
        assert.equal(tr.status, 201, JSON.stringify(tr.body));
        const token = tr.body.status.token;
        const s = await tokenReview(ts, token);
        assert.deepEqual(s.user.extra["authentication.kubernetes.io/pod-name"], ["p1"]);
        await call(ts, "DELETE", "/api/v1/namespaces/default/pods/p1", {
          query: { gracePeriodSeconds: 0 },
        });
        await eventually("the token refused", async () => {
          return await statusWithToken(ts, token) === 401;
        });
      },
    );

    await t.step(
      "authenticating proxy: headers believed only from the proxy's certificate",
      async () => {
        const proxy = await issueCertificate({
          ca: proxyCa,
          commonName: "front-proxy",
          usages: "client",
        });
        const intruder = await issueCertificate({
          ca: proxyCa,
          commonName: "intruder",
          usages: "client",
        });
        const headers = {
          "content-type": "application/json",
          "X-Remote-User": "proxied-user",
          "X-Remote-Group": "system:masters",
          "X-Remote-Extra-Acme.com%2Fproject": "apollo",
        };
        const init = { method: "POST", headers, body: JSON.stringify(SSR) };
        const path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
        const ok = await certFetch(ts, proxy, path, init);
        assert.equal(ok.status, 201);
        const u = (bodyOf(ok) as { status: { userInfo: Record<string, unknown> } }).status.userInfo;
        assert.deepEqual(u, {
          username: "proxied-user",
          groups: ["system:masters", "system:authenticated"],
          extra: { "acme.com/project": ["apollo"] },
        });
        assert.equal((await certFetch(ts, intruder, path, init)).status, 401);
        // The admin client certificate is not the proxy's: its headers are not believed.
        const notProxy = await certFetch(ts, pki.adminClient, path, init);
        assert.equal(notProxy.status, 201);
        const nu =
          (bodyOf(notProxy) as { status: { userInfo: { username: string } } }).status.userInfo;
        assert.equal(nu.username, "kubernetes-admin");
        // Headers without any certificate are ignored: anonymous.
        const plain = await ts.fetch(path, { ...init, auth: false });
        await plain.body?.cancel();
        assert.notEqual(plain.status, 201);
      },
    );

    await t.step(
      "anonymous: no credential is system:anonymous, counted failures in /metrics",
      async () => {
        const res = await ts.fetch("/api/v1/namespaces", { auth: false });
        await res.body?.cancel();
        assert.equal(res.status, 403);
        const metrics = await (await ts.fetch("/metrics")).text();
        assert.match(metrics, /authentication_attempts\{result="failure"\} [1-9]/);
        assert.match(metrics, /authentication_attempts\{result="success"\} [1-9]/);
        assert.ok(!metrics.includes("file-token-1"));
      },
    );
  } finally {
    await ts.close();
  }
});
