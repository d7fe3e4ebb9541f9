import assert from "node:assert/strict";
import { join } from "node:path";
import { loadKubeconfig, parseKubeconfig } from "../../../shared/client/kubeconfig.ts";
import { writeAdminKubeconfig } from "../../../apiserver/pki/write_admin_kubeconfig.ts";

const b64 = (s: string) => btoa(s);

Deno.test("loadKubeconfig() resolves contexts, inline data and relative files", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "certs"));
    await Deno.writeTextFile(join(dir, "certs", "ca.crt"), "CA-FROM-FILE");
    await Deno.writeTextFile(join(dir, "certs", "c.crt"), "CERT-FROM-FILE");
    await Deno.writeTextFile(join(dir, "certs", "c.key"), "KEY-FROM-FILE");
    await Deno.writeTextFile(join(dir, "token"), "file-token\n");
    const path = join(dir, "config");
    await Deno.writeTextFile(
      path,
      `apiVersion: v1
kind: Config
current-context: inline
clusters:
- name: a
  cluster:
    server: https://a.example:6443
    certificate-authority-data: ${b64("CA-INLINE")}
- name: b
  cluster:
    server: https://b.example
    certificate-authority: certs/ca.crt
users:
- name: tok
  user:
    token: abc
- name: files
  user:
    client-certificate: certs/c.crt
    client-key: certs/c.key
- name: tokfile
  user:
    tokenFile: token
contexts:
- name: inline
  context: {cluster: a, user: tok, namespace: team}
- name: certs
  context: {cluster: b, user: files}
- name: tf
  context: {cluster: b, user: tokfile}
`,
    );
    await t.step("current-context", async () => {
      assert.deepEqual(await loadKubeconfig(path), {
        server: "https://a.example:6443",
        caPem: "CA-INLINE",
        token: "abc",
        namespace: "team",
      });
    });
    await t.step("--context with files", async () => {
      assert.deepEqual(await loadKubeconfig(path, { context: "certs" }), {
        server: "https://b.example",
        caPem: "CA-FROM-FILE",
        clientCertPem: "CERT-FROM-FILE",
        clientKeyPem: "KEY-FROM-FILE",
      });
    });
    await t.step("tokenFile", async () => {
      assert.equal((await loadKubeconfig(path, { context: "tf" })).token, "file-token");
    });
    await t.step("unknown context", async () => {
      await assert.rejects(loadKubeconfig(path, { context: "nope" }), /context "nope" not found/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseKubeconfig() rejects malformed files with clear errors", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["not yaml", "a: [", /not valid YAML/],
    ["not a mapping", "- 1", /not a mapping/],
    ["no current context", "kind: Config", /no current-context/],
    [
      "no server",
      "current-context: c\ncontexts: [{name: c, context: {cluster: x}}]\nclusters: [{name: x, cluster: {}}]",
      /has no server/,
    ],
  ];
  for (const [name, text, re] of cases) {
    await t.step(name, async () => {
      await assert.rejects(parseKubeconfig(text, "/"), re);
    });
  }
});

Deno.test("writeAdminKubeconfig() output loads back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "admin.kubeconfig");
    await writeAdminKubeconfig(path, {
      server: "https://127.0.0.1:6443",
      caPem: "CA\n",
      clientCertPem: "CERT\n",
      clientKeyPem: "KEY\n",
    });
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.deepEqual(await loadKubeconfig(path), {
      server: "https://127.0.0.1:6443",
      caPem: "CA\n",
      clientCertPem: "CERT\n",
      clientKeyPem: "KEY\n",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
