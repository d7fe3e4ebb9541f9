/** Kubernetes' AuthenticationConfiguration rules and messages, and the strict decoding. */
import assert from "node:assert/strict";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";
import {
  type AuthenticationConfiguration,
  decodeAuthenticationConfiguration,
  type JwtAuthenticatorConfig,
} from "../../../../apiserver/auth/authn/authentication_configuration.ts";
import { validateAuthenticationConfiguration } from "../../../../apiserver/auth/authn/validate_authentication_configuration.ts";

function jwt(over: Partial<JwtAuthenticatorConfig> = {}): JwtAuthenticatorConfig {
  return {
    issuer: { url: "https://issuer.example", audiences: ["a"] },
    claimValidationRules: [],
    claimMappings: { username: { claim: "sub", prefix: "" }, groups: {}, uid: {}, extra: [] },
    userValidationRules: [],
    ...over,
  };
}

function problems(config: AuthenticationConfiguration, anonymousConfigurable = false): string[] {
  return validateAuthenticationConfiguration(config, {
    disallowedIssuers: ["https://kubernetes.default.svc.cluster.local"],
    anonymousConfigurable,
  }).errors.map(fieldErrorMessage);
}

Deno.test("validateAuthenticationConfiguration() accepts a good configuration and compiles it", () => {
  const v = validateAuthenticationConfiguration({
    jwt: [jwt({
      claimMappings: {
        username: { expression: "claims.sub" },
        groups: { expression: "claims.groups" },
        uid: { expression: "claims.sub" },
        extra: [{ key: "example.com/a", valueExpression: "claims.a" }],
      },
      claimValidationRules: [{ expression: "claims.x == 1", message: "m" }],
      userValidationRules: [{ expression: "user.username != ''" }],
    })],
  }, { disallowedIssuers: [], anonymousConfigurable: false });
  assert.deepEqual(v.errors, []);
  const a = v.authenticators[0];
  assert.ok(a.username && a.groups && a.uid);
  assert.equal(a.extra.length, 1);
  assert.equal(a.claimRules.length, 1);
  assert.equal(a.userRules.length, 1);
});

Deno.test("validateAuthenticationConfiguration() reports issuer problems with kube's messages", () => {
  const got = problems({
    jwt: [
      jwt({
        issuer: {
          url: "http://u:p@issuer.example/?q=1#f",
          discoveryURL: "http://u:p@issuer.example/?q=1#f",
          audiences: ["a", "a"],
          certificateAuthority: "not a pem",
        },
      }),
      jwt({ issuer: { url: "https://kubernetes.default.svc.cluster.local", audiences: [] } }),
      jwt({ issuer: { url: "", audiences: ["x"], audienceMatchPolicy: "MatchAll" } }),
    ],
  });
  const want = [
    'jwt[0].issuer.url: Invalid value: "http://u:p@issuer.example/?q=1#f": URL scheme must be https',
    'jwt[0].issuer.url: Invalid value: "http://u:p@issuer.example/?q=1#f": URL must not contain a username or password',
    'jwt[0].issuer.url: Invalid value: "http://u:p@issuer.example/?q=1#f": URL must not contain a query',
    'jwt[0].issuer.url: Invalid value: "http://u:p@issuer.example/?q=1#f": URL must not contain a fragment',
    'jwt[0].issuer.discoveryURL: Invalid value: "http://u:p@issuer.example/?q=1#f": discoveryURL must be different from URL',
    'jwt[0].issuer.audiences[1]: Duplicate value: "a"',
    'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences',
    'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>"',
    'jwt[1].issuer.url: Invalid value: "https://kubernetes.default.svc.cluster.local": URL must not overlap with disallowed issuers: [https://kubernetes.default.svc.cluster.local]',
    "jwt[1].issuer.audiences: Required value: at least one jwt[1].issuer.audiences is required",
    "jwt[2].issuer.url: Required value",
    'jwt[2].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience',
  ];
  for (const w of want) {
    assert.ok(got.some((g) => g.startsWith(w)), `${w}\n  in ${got.join("\n  ")}`);
  }
});

Deno.test("validateAuthenticationConfiguration() reports duplicates and too many authenticators", () => {
  const dup = problems({
    jwt: [
      jwt({ issuer: { url: "https://a", discoveryURL: "https://d", audiences: ["x"] } }),
      jwt({ issuer: { url: "https://a", discoveryURL: "https://d", audiences: ["x"] } }),
    ],
  });
  assert.ok(dup.includes('jwt[1].issuer.url: Duplicate value: "https://a"'), dup.join("\n"));
  assert.ok(dup.includes('jwt[1].issuer.discoveryURL: Duplicate value: "https://d"'));
  const many = problems({ jwt: Array.from({ length: 65 }, () => jwt()) });
  assert.deepEqual(many, ["jwt: Too many: 65: must have at most 64 items"]);
});

Deno.test("validateAuthenticationConfiguration() reports claim rule and mapping problems", () => {
  const got = problems({
    jwt: [jwt({
      claimValidationRules: [
        { claim: "a", expression: "true" },
        {},
        { claim: "b", message: "m" },
        { claim: "b" },
        { expression: "claims.x", requiredValue: "v" },
        { expression: "1 + 1" },
        { expression: "claims.(" },
      ],
      claimMappings: {
        username: { expression: "claims.email", prefix: "p" },
        groups: { claim: "g" },
        uid: { claim: "u", expression: "claims.u" },
        extra: [
          { key: "Example.com/a", valueExpression: "claims.a" },
          { key: "nodomain", valueExpression: "claims.a" },
          { key: "kubernetes.io/a", valueExpression: "claims.a" },
          { key: "example.com/b", valueExpression: "" },
          { key: "example.com/b", valueExpression: "claims.b" },
        ],
      },
      userValidationRules: [{ expression: "" }, { expression: "'x'" }],
    })],
  });
  const want = [
    'jwt[0].claimValidationRules[0]: Invalid value: "a": claim and expression can\'t both be set',
    "jwt[0].claimValidationRules[1]: Required value: claim or expression is required",
    'jwt[0].claimValidationRules[2].message: Invalid value: "m": may not be specified when claim is set',
    'jwt[0].claimValidationRules[3].claim: Duplicate value: "b"',
    'jwt[0].claimValidationRules[4].requiredValue: Invalid value: "v": may not be specified when expression is set',
    'jwt[0].claimValidationRules[5].expression: Invalid value: "1 + 1": must evaluate to one of [bool]',
    'jwt[0].claimValidationRules[6].expression: Invalid value: "claims.(": compilation failed: ERROR:',
    'jwt[0].claimMappings.username.prefix: Invalid value: "p": may not be specified when expression is set',
    "jwt[0].claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing",
    'jwt[0].claimMappings.uid: Invalid value: "": claim and expression can\'t both be set',
    'jwt[0].claimMappings.extra[0].key: Invalid value: "Example.com/a": must be lowercase',
    'jwt[0].claimMappings.extra[1].key: Invalid value: "nodomain": must be a domain-prefixed path',
    'jwt[0].claimMappings.extra[2].key: Invalid value: "kubernetes.io/a": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
    "jwt[0].claimMappings.extra[3].valueExpression: Required value",
    'jwt[0].claimMappings.extra[4].key: Duplicate value: "example.com/b"',
    'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
    "jwt[0].userValidationRules[0].expression: Required value",
    "jwt[0].userValidationRules[1].expression: Invalid value: \"'x'\": must evaluate to one of [bool]",
  ];
  for (const w of want) {
    assert.ok(got.some((g) => g.startsWith(w)), `${w}\n  in ${got.join("\n  ")}`);
  }
});

Deno.test("validateAuthenticationConfiguration() accepts claims.email with email_verified in a rule", () => {
  const got = problems({
    jwt: [jwt({
      claimMappings: { username: { expression: "claims.email" }, groups: {}, uid: {}, extra: [] },
      claimValidationRules: [{ expression: "claims.?email_verified.orValue(true) == true" }],
    })],
  });
  assert.deepEqual(got, []);
  const missing = problems({
    jwt: [jwt({ claimMappings: { username: {}, groups: {}, uid: {}, extra: [] } })],
  });
  assert.deepEqual(missing, [
    "jwt[0].claimMappings.username: Required value: claim or expression is required",
  ]);
});

Deno.test("validateAuthenticationConfiguration() checks anonymous against its gate", () => {
  const off = problems({
    jwt: [],
    anonymous: { enabled: false, conditions: [{ path: "/livez" }] },
  });
  assert.equal(
    off[0],
    "anonymous: Forbidden: anonymous is not supported when AnonymousAuthConfigurableEndpoints feature gate is disabled",
  );
  assert.equal(off.length, 2);
  assert.match(off[1], /^anonymous\.conditions: Invalid value: .*enabled should be set to true/);
  assert.deepEqual(
    problems({ jwt: [], anonymous: { enabled: true, conditions: [{ path: "/livez" }] } }, true),
    [],
  );
});

Deno.test("decodeAuthenticationConfiguration() is strict about versions, kinds and fields", () => {
  const ok = decodeAuthenticationConfiguration(
    "apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AuthenticationConfiguration\njwt: []\n",
  );
  assert.ok(ok.ok);
  const bad = (text: string) => {
    const d = decodeAuthenticationConfiguration(text);
    assert.ok(!d.ok);
    return d.errors.join("\n");
  };
  assert.match(bad(""), /empty config data/);
  assert.match(
    bad("apiVersion: apiserver.config.k8s.io/v2\nkind: AuthenticationConfiguration\n"),
    /no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io\/v2"/,
  );
  assert.match(bad("apiVersion: v1\n"), /Object 'Kind' is missing/);
  assert.match(
    bad(
      "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: https://x\n    bogus: 1\n",
    ),
    /strict decoding error: unknown field "jwt\[0\]\.issuer\.bogus"/,
  );
  assert.match(bad("{"), /error converting YAML to JSON/);
});

Deno.test("validateAuthenticationConfiguration() reports the remaining rules of kube's table", () => {
  const got = problems({
    jwt: [
      jwt({
        issuer: {
          url: "https://a.example",
          discoveryURL: "http://d.example/?q=1",
          audiences: ["x", ""],
          audienceMatchPolicy: "MatchAny",
        },
        claimValidationRules: [{ expression: "claims.x == 1" }, { expression: "claims.x == 1" }],
        claimMappings: {
          username: { claim: "sub" },
          groups: { claim: "g", expression: "claims.g" },
          uid: { expression: "claims.(" },
          extra: [{ key: "example.com/a", valueExpression: "claims.(" }],
        },
        userValidationRules: [{ expression: "true" }, { expression: "true" }],
      }),
      jwt({
        issuer: { url: "https://b.example", audiences: ["x"] },
        claimMappings: {
          username: { claim: "sub", expression: "claims.sub" },
          groups: {},
          uid: {},
          extra: [],
        },
      }),
    ],
  });
  const want = [
    'jwt[0].issuer.discoveryURL: Invalid value: "http://d.example/?q=1": URL scheme must be https',
    'jwt[0].issuer.discoveryURL: Invalid value: "http://d.example/?q=1": URL must not contain a query',
    "jwt[0].issuer.audiences[1]: Required value",
    'jwt[0].claimValidationRules[1].expression: Duplicate value: "claims.x == 1"',
    "jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing",
    'jwt[0].claimMappings.groups: Invalid value: "": claim and expression can\'t both be set',
    'jwt[0].claimMappings.uid.expression: Invalid value: "claims.(": compilation failed: ERROR:',
    'jwt[0].claimMappings.extra[0].valueExpression: Invalid value: "claims.(": compilation failed: ERROR:',
    'jwt[0].userValidationRules[1].expression: Duplicate value: "true"',
    'jwt[1].claimMappings.username: Invalid value: "": claim and expression can\'t both be set',
  ];
  for (const w of want) {
    assert.ok(got.some((g) => g.startsWith(w)), `${w}\n  in ${got.join("\n  ")}`);
  }
  assert.equal(got.length, want.length, got.join("\n"));
});
