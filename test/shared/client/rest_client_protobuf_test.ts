import assert from "node:assert/strict";
import { RestClient } from "../../../shared/client/rest_client.ts";
import { serveHttps } from "../../../shared/http/https_server.ts";
import { createCA, issueCertificate } from "../../../shared/pki/issue_certificate.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { startTestServer } from "../../support/test_server.ts";

Deno.test("RestClient with protobuf sends and reads Kubernetes' Protobuf envelope", async () => {
  const t = await startTestServer();
  const client = await RestClient.fromKubeconfig(t.server.kubeconfigPath, { protobuf: true });
  try {
    const ref = { version: "v1", resource: "configmaps", namespace: "default" };
    const created = await client.create(ref, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "pb" },
      data: { a: "b" },
    });
    assert.equal(created.metadata.name, "pb");
    const got = await client.get<{ data: Record<string, string> }>({ ...ref, name: "pb" });
    assert.deepEqual(got.data, { a: "b" });
    await assert.rejects(
      () => client.get({ ...ref, name: "missing" }),
      (err) => err instanceof StatusError && err.code === 404 && err.reason === "NotFound",
    );
  } finally {
    client.close();
    await t.close();
  }
});

Deno.test("RestClient with protobuf rejects a response whose prefix is not k8s\\0", async () => {
  const ca = await createCA("test-ca");
  const serving = await issueCertificate({
    ca,
    commonName: "localhost",
    ipAddresses: ["127.0.0.1"],
    usages: "server",
  });
  const server = await serveHttps(
    () =>
      new Response(new Uint8Array([0x6b, 0x38, 0x74, 0x00, 0x0a, 0x00]), {
        headers: { "content-type": "application/vnd.kubernetes.protobuf" },
      }),
    {
      hostname: "127.0.0.1",
      port: 0,
      certPem: serving.certPem,
      keyPem: serving.keyPem,
      requestClientCert: false,
    },
  );
  const client = new RestClient(
    {
      server: `https://127.0.0.1:${server.port}`,
      caPem: ca.certPem,
    } as ConstructorParameters<typeof RestClient>[0],
    { protobuf: true },
  );
  try {
    await assert.rejects(
      () => client.get({ version: "v1", resource: "configmaps", namespace: "x", name: "y" }),
      (err) => err instanceof StatusError && /prefix|magic/i.test(err.message),
    );
  } finally {
    client.close();
    await server.close();
  }
});
