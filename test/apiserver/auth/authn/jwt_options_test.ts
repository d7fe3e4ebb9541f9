/** The `--authentication-config` and `--oidc-*` flags: conversion, exclusions, every problem. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseServerOptions } from "../../../../apiserver/options.ts";

function errorsOf(args: string[]): string[] {
  const p = parseServerOptions(args);
  return p.ok ? [] : p.errors;
}

const FILE = (body: string) =>
  `apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n${body}`;

async function writeConfig(body: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "jwt-options-" });
  const path = join(dir, "authn.yaml");
  await Deno.writeTextFile(path, FILE(body));
  return path;
}

Deno.test("jwtOptionsFromFlags() turns --oidc-* flags into one issuer as kube-apiserver does", async (t) => {
  const base = ["--oidc-issuer-url=https://issuer.example", "--oidc-client-id=kube"];
  const mapping = (args: string[]) => {
    const p = parseServerOptions(args);
    assert.ok(p.ok, p.ok ? "" : p.errors.join("; "));
    return p.ok ? p.options.authentication.jwt : undefined!;
  };
  await t.step("sub claim: the issuer URL and # as the default prefix; RS256", () => {
    const jwt = mapping(base);
    const a = jwt.authenticators[0].config;
    assert.deepEqual(a.issuer.audiences, ["kube"]);
    assert.deepEqual(a.claimMappings.username, {
      claim: "sub",
      prefix: "https://issuer.example#",
    });
    assert.deepEqual(jwt.signingAlgs, ["RS256"]);
  });
  await t.step("email claim: no prefix; - disables; groups, required claims, algorithms", () => {
    assert.equal(
      mapping([...base, "--oidc-username-claim=email"]).authenticators[0].config.claimMappings
        .username.prefix,
      "",
    );
    const jwt = mapping([
      ...base,
      "--oidc-username-prefix=-",
      "--oidc-groups-claim=groups",
      "--oidc-groups-prefix=oidc:",
      "--oidc-required-claim=tenant=acme",
      "--oidc-required-claim=hd=example.com",
      "--oidc-signing-algs=ES256,RS512",
    ]);
    const a = jwt.authenticators[0];
    assert.equal(a.config.claimMappings.username.prefix, "");
    assert.deepEqual(a.config.claimMappings.groups, { claim: "groups", prefix: "oidc:" });
    assert.deepEqual(a.requiredClaims, [
      { claim: "tenant", value: "acme" },
      { claim: "hd", value: "example.com" },
    ]);
    assert.deepEqual(jwt.signingAlgs, ["ES256", "RS512"]);
  });
});

Deno.test("jwtOptionsFromFlags() reports every problem of the JWT flags", async () => {
  assert.deepEqual(errorsOf(["--oidc-client-id=kube"]), [
    "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set",
  ]);
  const errs = errorsOf([
    "--oidc-issuer-url=http://issuer.example",
    "--oidc-client-id=kube",
    "--oidc-signing-algs=HS256",
    "--oidc-required-claim=novalue",
    "--oidc-ca-file=/nonexistent/oidc-ca.pem",
  ]);
  assert.ok(errs.some((e) => e.startsWith("--oidc-ca-file: ")), errs.join("\n"));
  assert.ok(
    errs.includes('--oidc-signing-algs: oidc: unsupported signing alg: "HS256"'),
    errs.join("\n"),
  );
  assert.ok(errs.some((e) => e.startsWith("--oidc-required-claim: malformed pair")));
  assert.ok(errs.includes(
    'invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://issuer.example": URL scheme must be https',
  ));
  const file = await writeConfig("jwt: []\nanonymous:\n  enabled: true\n");
  const both = errorsOf([
    `--authentication-config=${file}`,
    "--oidc-issuer-url=https://issuer.example",
    "--anonymous-auth=false",
  ]);
  assert.ok(both.includes("authentication-config file and oidc-* flags are mutually exclusive"));
  assert.ok(both.includes(
    "--authentication-config: anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file",
  ));
  assert.ok(both.some((e) => e.includes("AnonymousAuthConfigurableEndpoints feature gate")));
  const gateOff = errorsOf([
    `--authentication-config=${file}`,
    "--feature-gates=StructuredAuthenticationConfiguration=false,AnonymousAuthConfigurableEndpoints=true",
  ]);
  assert.deepEqual(gateOff, [
    "set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file",
  ]);
  const missing = errorsOf(["--authentication-config=/nonexistent/authn.yaml"]);
  assert.equal(missing.length, 1);
  assert.match(
    missing[0],
    /^--authentication-config: failed to load authentication configuration from file/,
  );
});

Deno.test("jwtOptionsFromFlags() reads an authentication configuration file with anonymous conditions", async () => {
  const file = await writeConfig(
    "jwt:\n- issuer:\n    url: https://issuer.example\n    audiences: [kube]\n  claimMappings:\n    username:\n      claim: sub\n      prefix: ''\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n",
  );
  const p = parseServerOptions([
    `--authentication-config=${file}`,
    "--feature-gates=AnonymousAuthConfigurableEndpoints=true",
  ]);
  assert.ok(p.ok, p.ok ? "" : p.errors.join("; "));
  if (!p.ok) return;
  const jwt = p.options.authentication.jwt;
  assert.equal(jwt.configFile, file);
  assert.equal(jwt.authenticators.length, 1);
  assert.deepEqual(jwt.anonymous, { enabled: true, conditions: [{ path: "/livez" }] });
  assert.equal(jwt.signingAlgs.length, 9);
});
