import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import {
  detachedSignature,
  detachedSignatureValid,
} from "../../../shared/bootstrap/detached_jws.ts";

Deno.test("detachedSignature() is HS256 over header.payload keyed with the token secret, payload left out", () => {
  const jws = detachedSignature("content", "abcdef", "0123456789abcdef");
  const [header, payload, sig] = jws.split(".");
  assert.equal(payload, "");
  assert.equal(Buffer.from(header, "base64url").toString(), '{"alg":"HS256","kid":"abcdef"}');
  const input = `${header}.${Buffer.from("content").toString("base64url")}`;
  assert.equal(sig, createHmac("sha256", "0123456789abcdef").update(input).digest("base64url"));
});

Deno.test("detachedSignatureValid() accepts the secret or the whole token as key, nothing else", () => {
  const bySecret = detachedSignature("x", "abcdef", "0123456789abcdef");
  const byToken = detachedSignature("x", "abcdef", "abcdef.0123456789abcdef");
  assert.ok(detachedSignatureValid(bySecret, "x", "abcdef", "0123456789abcdef"));
  assert.ok(detachedSignatureValid(byToken, "x", "abcdef", "0123456789abcdef"));
  assert.ok(!detachedSignatureValid(bySecret, "y", "abcdef", "0123456789abcdef"));
  assert.ok(!detachedSignatureValid(bySecret, "x", "abcdef", "fedcba9876543210"));
});
