import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { RestClient } from "../../shared/client/rest_client.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { parseCertificate } from "../../shared/pki/parse_certificate.ts";
import { pemCertificates } from "../../shared/pki/pem.ts";
import { bootstrapTokenSecret, runTokenCommand } from "../../apiserver/token_command.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { AGENT_POLL, startAgentProcess } from "../nodeagent/_agent_process.ts";

const CONTROLLERS = "--controllers=*,bootstrapsigner,tokencleaner";
const CLUSTER_INFO = {
  version: "v1",
  resource: "configmaps",
  namespace: "kube-public",
  name: "cluster-info",
};
const CSRS = {
  group: "certificates.k8s.io",
  version: "v1",
  resource: "certificatesigningrequests",
};

/** The join command's token and CA hash, from `apiserver token create --print-join-command`. */
async function joinCommand(ts: TestServer): Promise<{ token: string; hash: string }> {
  const lines: string[] = [];
  const code = await runTokenCommand(
    ["create", "--ttl", "1h", "--print-join-command", `--kubeconfig=${ts.server.kubeconfigPath}`],
    (l) => lines.push(l),
  );
  assert.equal(code, 0);
  const token = /--token=(\S+)/.exec(lines[0])![1];
  const hash = /--discovery-token-ca-cert-hash=(\S+)/.exec(lines[0])![1];
  assert.match(lines[0], new RegExp(`^nodeagent --server=${ts.server.url} `));
  return { token, hash };
}

function b64url(s: string | Uint8Array): string {
  return Buffer.from(s).toString("base64url");
}

/** Checks the detached JWS independently: HS256 over header.payload, keyed with the secret. */
function checkJws(jws: string, content: string, token: string): void {
  const [id, secret] = token.split(".");
  const [header, empty, signature] = jws.split(".");
  assert.equal(empty, "", "the payload is detached");
  assert.deepEqual(JSON.parse(Buffer.from(header, "base64url").toString()), {
    alg: "HS256",
    kid: id,
  });
  const mac = createHmac("sha256", secret).update(`${header}.${b64url(content)}`).digest();
  assert.equal(signature, b64url(mac));
}

async function clusterInfo(ts: TestServer): Promise<Record<string, string>> {
  const res = await ts.fetch("/api/v1/namespaces/kube-public/configmaps/cluster-info", {
    auth: false,
  });
  assert.equal(res.status, 200, "cluster-info is readable anonymously");
  return (await res.json()).data;
}

Deno.test({
  name: "a node joins with a token and the CA hash; wrong hash and expired tokens are refused",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "node-join-e2e-" });
    const ts = await startTestServer([CONTROLLERS, "--enable-bootstrap-token-auth"]);
    try {
      const { token, hash } = await joinCommand(ts);
      const id = token.split(".")[0];
      await t.step("cluster-info carries a JWS of the kubeconfig for the token", async () => {
        const data = await eventually(
          "the token's signature",
          async () =>
            (await clusterInfo(ts))[`jws-kubeconfig-${id}`] ? await clusterInfo(ts) : undefined,
          AGENT_POLL,
        );
        assert.match(data.kubeconfig, new RegExp(`server: ${ts.server.url}`));
        checkJws(data[`jws-kubeconfig-${id}`], data.kubeconfig, token);
      });

      await t.step("a wrong CA hash is refused with a clear message", async () => {
        const wrong = `sha256:${"0".repeat(64)}`;
        await assert.rejects(
          startAgentProcess({
            kubeconfig: `${dir}/bad/nodeagent.kubeconfig`,
            rootDir: `${dir}/bad`,
            nodeName: "join-bad",
            args: [
              `--server=${ts.server.url}`,
              `--token=${token}`,
              `--discovery-token-ca-cert-hash=${wrong}`,
            ],
          }),
          (err: Error) => {
            assert.match(err.message, /cluster CA found in cluster-info ConfigMap is invalid/);
            assert.ok(
              !err.message.includes(token.split(".")[1]),
              "the token secret is never shown",
            );
            return true;
          },
        );
      });

      await t.step("an expired token is refused (401) and says so", async () => {
        const secrets = { version: "v1", resource: "secrets", namespace: "kube-system" };
        const expired = bootstrapTokenSecret("expird", "0123456789abcdef", 1, Date.now() - 60_000);
        await ts.client.create(secrets, expired).catch(() => {});
        const bootstrap = `${dir}/expired-bootstrap.kubeconfig`;
        const admin = await loadKubeconfig(ts.server.kubeconfigPath);
        await Deno.writeTextFile(
          bootstrap,
          `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${admin.server}\n    certificate-authority-data: ${
            btoa(admin.caPem!)
          }\nusers:\n- name: u\n  user:\n    token: expird.0123456789abcdef\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`,
        );
        await assert.rejects(
          startAgentProcess({
            kubeconfig: `${dir}/expired/nodeagent.kubeconfig`,
            rootDir: `${dir}/expired`,
            nodeName: "join-expired",
            args: [`--bootstrap-kubeconfig=${bootstrap}`],
          }),
          /401 Unauthorized\): the bootstrap token is invalid or has expired/,
        );
      });

      await joinsAndIsTheNode(t, ts, { dir, token, hash });
    } finally {
      await ts.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

async function joinsAndIsTheNode(
  t: Deno.TestContext,
  ts: TestServer,
  o: { dir: string; token: string; hash: string },
): Promise<void> {
  const kubeconfig = `${o.dir}/good/nodeagent.kubeconfig`;
  const agent = await startAgentProcess({
    kubeconfig,
    rootDir: `${o.dir}/good`,
    nodeName: "join-good",
    args: [
      `--server=${ts.server.url}`,
      `--token=${o.token}`,
      `--discovery-token-ca-cert-hash=${o.hash}`,
    ],
  });
  try {
    await t.step("the Node becomes Ready", async () => {
      await eventually("Ready", async () => {
        const node = await ts.client.get<KubeObject>({
          version: "v1",
          resource: "nodes",
          name: "join-good",
        });
        const conds =
          ((node.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ??
            [];
        return conds.some((c) => c.type === "Ready" && c.status === "True");
      }, AGENT_POLL);
    });
    await t.step("its client CSR is Approved and Issued", async () => {
      const csrs = (await ts.client.list<KubeObject>(CSRS)).items;
      const mine = csrs.filter((c) =>
        (c.spec as Record<string, unknown>).username === `system:bootstrap:${o.token.split(".")[0]}`
      );
      assert.equal(mine.length, 1);
      const types = (mine[0].status as { conditions: { type: string; reason: string }[] })
        .conditions.map((c) => `${c.type}/${c.reason}`);
      assert.deepEqual(types, ["Approved/AutoApproved"]);
      assert.ok((mine[0].status as Record<string, string>).certificate);
      if (!skipWithoutKubectl("kubectl get csr")) {
        const r = await runKubectl({ kubeconfig: ts.server.kubeconfigPath, home: o.dir }, [
          "get",
          "csr",
        ]);
        assert.match(
          r.stdout,
          /kubernetes\.io\/kube-apiserver-client-kubelet\s+system:bootstrap:\S+\s+<none>\s+Approved,Issued/,
        );
      }
    });
    await t.step(
      "its kubeconfig (0600) holds a certificate for system:node:join-good",
      async () => {
        assert.equal((await Deno.stat(kubeconfig)).mode! & 0o777, 0o600);
        const config = await loadKubeconfig(kubeconfig);
        const cert = parseCertificate(pemCertificates(config.clientCertPem!)[0]);
        assert.equal(cert.commonName, "system:node:join-good");
        assert.deepEqual(cert.organizations, ["system:nodes"]);
      },
    );
    await t.step("the Node authorizer treats it as that node", async () => {
      const client = await RestClient.fromKubeconfig(kubeconfig);
      try {
        const review = await client.create<KubeObject>(
          { group: "authentication.k8s.io", version: "v1", resource: "selfsubjectreviews" },
          { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview", metadata: {} },
        );
        const info =
          (review.status as { userInfo: { username: string; groups: string[] } }).userInfo;
        assert.equal(info.username, "system:node:join-good");
        assert.ok(info.groups.includes("system:nodes"));
        await assert.rejects(
          client.get({ version: "v1", resource: "secrets", namespace: "kube-system", name: "x" }),
          (err: StatusError) => err.code === 403,
        );
      } finally {
        client.close();
      }
    });
  } finally {
    await agent.stop();
  }
}

Deno.test({
  name: "tokencleaner deletes an expired token and bootstrapsigner drops its signature",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const ts = await startTestServer([CONTROLLERS]);
    try {
      const secrets = { version: "v1", resource: "secrets", namespace: "kube-system" };
      // Expires in a few seconds: signed first, then cleaned.
      await ts.client.create(secrets, bootstrapTokenSecret("short1", "0123456789abcdef", 4_000));
      await eventually(
        "the signature",
        async () => (await clusterInfo(ts))["jws-kubeconfig-short1"],
        AGENT_POLL,
      );
      await eventually("the Secret deleted", async () => {
        try {
          await ts.client.get({ ...secrets, name: "bootstrap-token-short1" });
          return false;
        } catch (err) {
          return err instanceof StatusError && err.code === 404;
        }
      }, AGENT_POLL);
      await eventually(
        "the signature removed",
        async () => !(await clusterInfo(ts))["jws-kubeconfig-short1"],
        AGENT_POLL,
      );
      // Without the controllers selected, nothing signs.
      const cm = await ts.client.get<KubeObject>(CLUSTER_INFO);
      assert.ok((cm.data as Record<string, string>).kubeconfig);
    } finally {
      await ts.close();
    }
  },
});
