import assert from "node:assert/strict";
import { parseServerOptions } from "../../../../apiserver/options.ts";

Deno.test("parseServerOptions() reads the authentication flags with Kubernetes' defaults", async (t) => {
  await t.step("defaults", () => {
    const p = parseServerOptions([]);
    assert.ok(p.ok);
    if (!p.ok) return;
    const a = p.options.authentication;
    assert.equal(a.anonymousAuth, true);
    assert.equal(a.serviceAccountLookup, true);
    assert.equal(a.enableBootstrapTokenAuth, false);
    assert.deepEqual(a.serviceAccountIssuers, ["https://kubernetes.default.svc.cluster.local"]);
    assert.deepEqual(a.apiAudiences, a.serviceAccountIssuers);
    assert.deepEqual(a.requestHeaderUsernameHeaders, ["X-Remote-User"]);
    assert.deepEqual(a.requestHeaderGroupHeaders, ["X-Remote-Group"]);
    assert.deepEqual(a.requestHeaderExtraHeadersPrefixes, ["X-Remote-Extra-"]);
    assert.equal(a.webhookCacheTtlMs, 120_000);
    assert.equal(a.webhookVersion, "v1beta1");
  });
  await t.step("booleans bare and with values, lists, durations", () => {
    const p = parseServerOptions([
      "--anonymous-auth=false",
      "--enable-bootstrap-token-auth",
      "--service-account-lookup=false",
      "--service-account-issuer=https://a.example",
      "--service-account-issuer=https://b.example",
      "--api-audiences=x,y",
      "--service-account-max-token-expiration=48h",
      "--authentication-token-webhook-cache-ttl=30s",
      "--authentication-token-webhook-version=v1",
    ]);
    assert.ok(p.ok, p.ok ? "" : p.errors.join("; "));
    if (!p.ok) return;
    const a = p.options.authentication;
    assert.equal(a.anonymousAuth, false);
    assert.equal(a.enableBootstrapTokenAuth, true);
    assert.equal(a.serviceAccountLookup, false);
    assert.deepEqual(a.serviceAccountIssuers, ["https://a.example", "https://b.example"]);
    assert.deepEqual(a.apiAudiences, ["x", "y"]);
    assert.equal(a.serviceAccountMaxTokenExpirationSeconds, 48 * 3600);
    assert.equal(a.webhookCacheTtlMs, 30_000);
    assert.equal(a.webhookVersion, "v1");
  });
});

Deno.test("parseServerOptions() reports every bad authentication flag at once", () => {
  const p = parseServerOptions([
    "--anonymous-auth=maybe",
    "--token-auth-file=/nonexistent/tokens.csv",
    "--client-ca-file=/nonexistent/ca.crt",
    "--service-account-issuer=http://[bad",
    "--service-account-max-token-expiration=5m",
    "--authentication-token-webhook-version=v2",
    "--requestheader-allowed-names=proxy",
  ]);
  assert.equal(p.ok, false);
  if (p.ok) return;
  const text = p.errors.join("\n");
  for (
    const flag of [
      "--anonymous-auth",
      "--token-auth-file",
      "--client-ca-file",
      "--service-account-issuer",
      "--service-account-max-token-expiration",
      "--authentication-token-webhook-version",
      "--requestheader-allowed-names",
    ]
  ) assert.match(text, new RegExp(`${flag}:`));
});
