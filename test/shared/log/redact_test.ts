import assert from "node:assert/strict";
import { isSecretFieldName, redactValue, scrubSecrets } from "../../../shared/log/mod.ts";

Deno.test("isSecretFieldName() recognises secret-bearing names", async (t) => {
  const cases: [string, boolean][] = [
    ["authorization", true],
    ["Proxy-Authorization", true],
    ["token", true],
    ["bearerToken", true],
    ["password", true],
    ["key", true],
    ["privateKey", true],
    ["tls_private_key", true],
    ["client-key-data", true],
    ["secret", true],
    ["Set-Cookie", true],
    ["credentials", true],
    ["name", false],
    ["namespace", false],
    ["verb", false],
    ["path", false],
    ["accept", false],
  ];
  for (const [name, want] of cases) {
    await t.step(name, () => assert.equal(isSecretFieldName(name), want));
  }
});

Deno.test("scrubSecrets() masks credential-shaped text", async (t) => {
  const cases: [string, string][] = [
    ["Authorization: Bearer abc.def", "Authorization: Bearer [redacted]"],
    ["basic dXNlcjpwYXNz", "basic [redacted]"],
    ["/api?watch=1&token=abc", "/api?watch=1&token=[redacted]"],
    ["https://u:pw@host/", "https://u:[redacted]@host/"],
    ["plain text", "plain text"],
  ];
  for (const [input, want] of cases) {
    await t.step(input, () => assert.equal(scrubSecrets(input), want));
  }
});

Deno.test("redactValue() keeps structure and replaces secrets", () => {
  assert.deepEqual(
    redactValue({ a: [1, { token: "x" }], b: { password: "y", user: "u" }, d: new Date(0) }),
    {
      a: [1, { token: "[redacted]" }],
      b: { password: "[redacted]", user: "u" },
      d: "1970-01-01T00:00:00.000Z",
    },
  );
});
