import assert from "node:assert/strict";
import {
  BOOTSTRAP_TOKEN_PATTERN,
  bootstrapTokenProblem,
} from "../../../../apiserver/auth/authn/bootstrap_token.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";

const b64 = (s: string) => btoa(s);
const NOW = new Date("2030-01-01T00:00:00Z");

function secret(data: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject {
  const encoded: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) encoded[k] = b64(v);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
    type: "bootstrap.kubernetes.io/token",
    data: encoded,
    ...extra,
  };
}

const good = {
  "token-id": "abcdef",
  "token-secret": "0123456789abcdef",
  "usage-bootstrap-authentication": "true",
};

Deno.test("bootstrapTokenProblem() checks every key of the bootstrap token Secret", async (t) => {
  const cases: {
    name: string;
    secret: KubeObject;
    tokenSecret?: string;
    want: RegExp | undefined;
  }[] = [
    { name: "good", secret: secret(good), want: undefined },
    {
      name: "future expiration",
      secret: secret({ ...good, expiration: "2031-01-01T00:00:00Z" }),
      want: undefined,
    },
    {
      name: "good extra groups",
      secret: secret({
        ...good,
        "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token",
      }),
      want: undefined,
    },
    {
      name: "wrong secret",
      secret: secret(good),
      tokenSecret: "0123456789abcdeX",
      want: /does not match/,
    },
    { name: "wrong id", secret: secret({ ...good, "token-id": "zzzzzz" }), want: /token-id/ },
    {
      name: "expired",
      secret: secret({ ...good, expiration: "2029-12-31T23:59:59Z" }),
      want: /expired/,
    },
    {
      name: "bad expiration",
      secret: secret({ ...good, expiration: "tomorrow" }),
      want: /RFC 3339/,
    },
    {
      name: "no authentication usage",
      secret: secret({ ...good, "usage-bootstrap-authentication": "false" }),
      want: /may not be used/,
    },
    {
      name: "extra group outside system:bootstrappers:",
      secret: secret({ ...good, "auth-extra-groups": "system:masters" }),
      want: /auth-extra-groups/,
    },
    { name: "wrong type", secret: secret(good, { type: "Opaque" }), want: /not of type/ },
    {
      name: "being deleted",
      secret: secret(good, {
        metadata: { name: "x", deletionTimestamp: "2029-01-01T00:00:00Z" },
      }),
      want: /being deleted/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const got = bootstrapTokenProblem(
        c.secret,
        "abcdef",
        c.tokenSecret ?? good["token-secret"],
        NOW,
      );
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? "", c.want);
    });
  }
});

Deno.test("BOOTSTRAP_TOKEN_PATTERN matches 6.16 lowercase alphanumerics only", () => {
  assert.ok(BOOTSTRAP_TOKEN_PATTERN.test("abcdef.0123456789abcdef"));
  assert.ok(!BOOTSTRAP_TOKEN_PATTERN.test("ABCDEF.0123456789abcdef"));
  assert.ok(!BOOTSTRAP_TOKEN_PATTERN.test("abcdef.0123456789abcde"));
});
