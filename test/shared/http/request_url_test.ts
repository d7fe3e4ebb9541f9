import assert from "node:assert/strict";
import { parseRequestHead } from "../../../shared/http/request_head.ts";
import { requestUrl } from "../../../shared/http/request_url.ts";

Deno.test("requestUrl() makes the URL from the target, the Host or the listening address", () => {
  const url = (head: string, hostname = "127.0.0.1", port = 6443) =>
    requestUrl(parseRequestHead(head), hostname, port);
  assert.equal(url("GET /api?x=1 HTTP/1.1\r\nHost: a:1"), "https://a:1/api?x=1");
  assert.equal(url("GET /api HTTP/1.1\r\nHost: [::1]:8"), "https://[::1]:8/api");
  assert.equal(url("GET /api HTTP/1.1"), "https://127.0.0.1:6443/api");
  assert.equal(url("GET /api HTTP/1.1", "::1", 7), "https://[::1]:7/api");
  assert.equal(url("GET //x/y HTTP/1.1\r\nHost: h"), "https://x/y");
  assert.equal(url("GET https://b:2/p HTTP/1.1\r\nHost: a"), "https://b:2/p");
  assert.throws(() => url("GET nope HTTP/1.1"));
});
