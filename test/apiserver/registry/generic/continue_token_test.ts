import assert from "node:assert/strict";
import {
  continueExpiredError,
  ContinueTokenError,
  decodeContinue,
  encodeContinue,
  INCONSISTENT_CONTINUE_MESSAGE,
  nextStartKey,
} from "../../../../apiserver/registry/generic/continue_token.ts";

function b64url(s: string): string {
  const bin = String.fromCharCode(...new TextEncoder().encode(s));
  return btoa(bin).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

function unb64url(s: string): string {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

Deno.test("encodeContinue() writes Kubernetes' exact token", () => {
  const token = encodeContinue(12, nextStartKey("default/foo"));
  // Byte-for-byte what Go's json.Marshal + base64.RawURLEncoding produce.
  assert.equal(
    token,
    "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIsInN0YXJ0IjoiZGVmYXVsdC9mb29cdTAwMDAifQ",
  );
  assert.ok(!token.includes("="));
  assert.equal(unb64url(token), '{"v":"meta.k8s.io/v1","rv":12,"start":"default/foo\\u0000"}');
});

Deno.test("encodeContinue() escapes as Go's encoding/json", () => {
  const json = unb64url(encodeContinue(-1, 'a<b>&"\\\n\t\b\f\u0001\u2028é'));
  assert.equal(
    json,
    '{"v":"meta.k8s.io/v1","rv":-1,"start":"a\\u003cb\\u003e\\u0026\\"\\\\\\n\\t\\b\\f\\u0001\\u2028é"}',
  );
});

Deno.test("decodeContinue() round-trips encodeContinue()", () => {
  for (
    const [rv, key] of [[5, "ns/a\u0000"], [-1, "x"], [9007199254740991, "a/b/c\u0000"]] as const
  ) {
    assert.deepEqual(decodeContinue(encodeContinue(rv, key)), { rv, startKeySuffix: key });
  }
});

Deno.test("decodeContinue() accepts what Go's decoder accepts", () => {
  const token = b64url('{"V":"meta.k8s.io/v1","RV":-1,"Start":"/a/b","extra":1}');
  assert.deepEqual(decodeContinue(token), { rv: -1, startKeySuffix: "a/b" });
  const wrapped = encodeContinue(3, "k");
  assert.deepEqual(decodeContinue(wrapped.slice(0, 4) + "\r\n" + wrapped.slice(4)), {
    rv: 3,
    startKeySuffix: "k",
  });
});

Deno.test("decodeContinue() rejects bad tokens with Kubernetes' messages", async (t) => {
  const cases: [string, string, string][] = [
    ["!!", "genericInvalidKey", "continue key is not valid: illegal base64 data at input byte 0"],
    [
      "abcde",
      "genericInvalidKey",
      "continue key is not valid: illegal base64 data at input byte 4",
    ],
    ["ab=", "genericInvalidKey", "continue key is not valid: illegal base64 data at input byte 2"],
    [
      b64url("xyz"),
      "genericInvalidKey",
      "continue key is not valid: invalid character 'x' looking for beginning of value",
    ],
    [
      b64url('{"v":'),
      "genericInvalidKey",
      "continue key is not valid: unexpected end of JSON input",
    ],
    [
      b64url("[1]"),
      "genericInvalidKey",
      "continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken",
    ],
    [
      b64url('{"v":"meta.k8s.io/v1","rv":"1","start":"a"}'),
      "genericInvalidKey",
      "continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64",
    ],
    [
      b64url('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}'),
      "genericInvalidKey",
      "continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64",
    ],
    [
      b64url('{"v":"x","rv":1,"start":"a"}'),
      "unrecognizedEncodedVersion",
      "continue key is not valid: server does not recognize this encoded version x",
    ],
    [
      b64url('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'),
      "invalidStartRV",
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    ],
    [
      b64url('{"v":"meta.k8s.io/v1","rv":1}'),
      "emptyStartKey",
      "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)",
    ],
    [
      b64url('{"v":"meta.k8s.io/v1","rv":1,"start":"../other/x"}'),
      "genericInvalidKey",
      "continue key is not valid: ../other/x",
    ],
    [
      b64url('{"v":"meta.k8s.io/v1","rv":1,"start":"a//b"}'),
      "genericInvalidKey",
      "continue key is not valid: a//b",
    ],
  ];
  for (const [token, kind, detail] of cases) {
    await t.step(detail, () => {
      assert.throws(() => decodeContinue(token), (e: unknown) => {
        assert.ok(e instanceof ContinueTokenError);
        assert.equal(e.kind, kind);
        assert.equal(e.detail, detail);
        assert.equal(e.code, 400);
        assert.equal(e.reason, "BadRequest");
        assert.equal(e.message, `invalid continue token: ${detail}`);
        return true;
      });
    });
  }
});

Deno.test("continueExpiredError() answers 410 with an rv=-1 token from the same key", () => {
  const err = continueExpiredError("ns/b\u0000");
  assert.equal(err.code, 410);
  assert.equal(err.reason, "Expired");
  assert.equal(err.status.message, INCONSISTENT_CONTINUE_MESSAGE);
  const token = err.status.metadata.continue!;
  assert.deepEqual(decodeContinue(token), { rv: -1, startKeySuffix: "ns/b\u0000" });
});
