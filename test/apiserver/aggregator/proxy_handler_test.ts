import assert from "node:assert/strict";
import { escapeExtraKey, upstreamHeaders } from "../../../apiserver/aggregator/proxy_handler.ts";

Deno.test("escapeExtraKey() percent-encodes what is not a header token byte, and %", () => {
  assert.equal(escapeExtraKey("scopes"), "scopes");
  assert.equal(escapeExtraKey("example.com/team"), "example.com%2Fteam");
  assert.equal(escapeExtraKey("a%b c"), "a%25b%20c");
  assert.equal(escapeExtraKey("ü"), "%C3%BC");
});

Deno.test("upstreamHeaders() drops credentials, impersonation and forged identity headers", () => {
  const req = new Request("https://x/apis/g/v", {
    headers: {
      authorization: "Bearer secret",
      "impersonate-user": "alice",
      "x-remote-user": "forged",
      "x-remote-extra-forged": "1",
      accept: "application/json",
      connection: "keep-alive",
    },
  });
  const h = upstreamHeaders(req, {
    username: "bob",
    groups: ["g1", "system:authenticated"],
    extra: { "example.com/team": ["blue", "red"] },
  });
  assert.deepEqual(h, {
    accept: "application/json",
    "x-remote-user": "bob",
    "x-remote-group": ["g1", "system:authenticated"],
    "x-remote-extra-example.com%2Fteam": ["blue", "red"],
  });
});

Deno.test("upstreamHeaders() appends the client's address to X-Forwarded-For", () => {
  const req = new Request("https://x/apis/g/v", {
    method: "POST",
    body: "{}",
    headers: { "x-forwarded-for": "10.0.0.1", "content-length": "2" },
  });
  const h = upstreamHeaders(req, { username: "bob", groups: [] }, "192.0.2.9");
  assert.equal(h["x-forwarded-for"], "10.0.0.1, 192.0.2.9");
  assert.equal(h["content-length"], "2");
  assert.equal(h["x-remote-group"], undefined);
});
