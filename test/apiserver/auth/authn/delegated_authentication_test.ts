import assert from "node:assert/strict";
import { join } from "node:path";
import { resolveDelegatedAuthentication } from "../../../../apiserver/auth/authn/delegated_authentication.ts";
import { defaultAuthenticationOptions } from "../../../../apiserver/auth/authn/authentication_options.ts";
import { Logger } from "../../../../shared/log/mod.ts";
import { servingPki, withHttpsServer } from "../../../support/test_pki.ts";

/** A kubeconfig for `url` trusting `caPem`, in a temp directory. */
async function kubeconfig(url: string, caPem: string): Promise<string> {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "main.kubeconfig");
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "m",
        cluster: { server: url, "certificate-authority-data": btoa(caPem) },
      }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "m", context: { cluster: "m", user: "u" } }],
      "current-context": "m",
    }),
  );
  return path;
}

const flags = (file: string, more: Record<string, boolean> = {}) => ({
  authenticationKubeconfig: file,
  skipLookup: false,
  tolerateLookupFailure: false,
  tokenCacheTtlMs: 10_000,
  ...more,
});

Deno.test("resolveDelegatedAuthentication() reads the main server's ConfigMap", async () => {
  const { ca, serving } = await servingPki();
  const paths: string[] = [];
  await withHttpsServer(serving, (req) => {
    paths.push(new URL(req.url).pathname);
    return Response.json({
      data: {
        "client-ca-file": "CLIENT",
        "requestheader-client-ca-file": "PROXY",
        "requestheader-allowed-names": '["front-proxy-client"]',
      },
    });
  }, async (server) => {
    const file = await kubeconfig(`https://127.0.0.1:${server.port}`, ca.certPem);
    const d = await resolveDelegatedAuthentication(flags(file), defaultAuthenticationOptions());
    assert.deepEqual(paths, [
      "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication",
    ]);
    assert.equal(d!.lookedUp.clientCaPem, "CLIENT");
    assert.equal(d!.lookedUp.requestHeader?.caPem, "PROXY");
    assert.deepEqual(d!.lookedUp.requestHeader?.allowedNames, ["front-proxy-client"]);
    assert.equal(d!.tokenReview.server, `https://127.0.0.1:${server.port}`);
    // With --authentication-skip-lookup nothing is read.
    const skipped = await resolveDelegatedAuthentication(
      flags(file, { skipLookup: true }),
      defaultAuthenticationOptions(),
    );
    assert.deepEqual(skipped!.lookedUp, {});
    assert.equal(paths.length, 1);
  });
});

Deno.test("resolveDelegatedAuthentication() fails on a forbidden read unless tolerated", async () => {
  const { ca, serving } = await servingPki();
  await withHttpsServer(serving, () => new Response("{}", { status: 403 }), async (server) => {
    const file = await kubeconfig(`https://127.0.0.1:${server.port}`, ca.certPem);
    await assert.rejects(
      () => resolveDelegatedAuthentication(flags(file), defaultAuthenticationOptions()),
      /Unable to get configmap\/extension-apiserver-authentication in kube-system\..*--role=extension-apiserver-authentication-reader/,
    );
    const warnings: string[] = [];
    const logger = new Logger({ verbosity: 0, sink: (line) => warnings.push(line) });
    const d = await resolveDelegatedAuthentication(
      flags(file, { tolerateLookupFailure: true }),
      defaultAuthenticationOptions(),
      logger,
    );
    assert.deepEqual(d!.lookedUp, {});
    assert.ok(warnings.some((w) => w.includes("Continuing without authentication configuration")));
  });
});

Deno.test("resolveDelegatedAuthentication() is off without --authentication-kubeconfig", async () => {
  assert.equal(
    await resolveDelegatedAuthentication(undefined, defaultAuthenticationOptions()),
    undefined,
  );
});
