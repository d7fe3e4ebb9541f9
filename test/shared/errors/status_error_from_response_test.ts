import assert from "node:assert/strict";
import { statusErrorFromResponse } from "../../../shared/errors/status_error_from_response.ts";

const text = new Headers({ "content-type": "text/plain; charset=utf-8" });

Deno.test("statusErrorFromResponse() takes a Status body as it is", () => {
  const body = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    metadata: { resourceVersion: "7" },
    status: "Failure",
    message: 'pods "p" not found',
    reason: "NotFound",
    details: { name: "p", kind: "pods" },
    code: 404,
  });
  const e = statusErrorFromResponse({ status: 404, body });
  assert.equal(e.code, 404);
  assert.equal(e.reason, "NotFound");
  assert.equal(e.message, 'pods "p" not found');
  assert.deepEqual(e.status.details, { name: "p", kind: "pods" });
  assert.deepEqual(e.status.metadata, { resourceVersion: "7" });
});

Deno.test("statusErrorFromResponse() takes the response's code when the Status has none", () => {
  const body = JSON.stringify({ kind: "Status", reason: "Expired", message: "too old" });
  assert.equal(statusErrorFromResponse({ status: 410, body }).code, 410);
});

Deno.test("statusErrorFromResponse() builds client-go's generic error for other bodies", async (t) => {
  const cases: [number, string, string, string][] = [
    [404, "GET", "NotFound", "the server could not find the requested resource"],
    [409, "POST", "AlreadyExists", "the server reported a conflict"],
    [409, "PUT", "Conflict", "the server reported a conflict"],
    [401, "GET", "Unauthorized", "the server has asked for the client to provide credentials"],
    [400, "GET", "BadRequest", "the server rejected our request for an unknown reason"],
    [403, "GET", "Forbidden", "nope"],
    [422, "PUT", "Invalid", "the server rejected our request due to an error in our request"],
    [503, "GET", "ServiceUnavailable", "the server is currently unable to handle the request"],
    [
      500,
      "GET",
      "InternalError",
      'an error on the server ("nope") has prevented the request from succeeding',
    ],
    [
      418,
      "GET",
      "",
      "the server responded with the status code 418 but did not return more information",
    ],
  ];
  for (const [code, method, reason, message] of cases) {
    await t.step(`${code} ${method}`, () => {
      const e = statusErrorFromResponse({ status: code, body: " nope\n", headers: text }, method);
      assert.equal(e.code, code);
      assert.equal(e.reason, reason);
      assert.equal(e.message, message);
      assert.deepEqual(e.status.details?.causes, [
        { reason: "UnexpectedServerResponse", message: "nope" },
      ]);
    });
  }
});

Deno.test("statusErrorFromResponse() reads only text bodies, as client-go does", () => {
  const json = new Headers({ "content-type": "application/json" });
  const e = statusErrorFromResponse({ status: 500, body: '{"error":"x"}', headers: json });
  assert.equal(
    e.message,
    'an error on the server ("unknown") has prevented the request from succeeding',
  );
  const none = statusErrorFromResponse({ status: 500, body: "x".repeat(5000) });
  assert.equal(none.status.details?.causes?.[0].message?.length, 2048);
});

Deno.test("statusErrorFromResponse() keeps a Retry-After", () => {
  const headers = new Headers({ "retry-after": "3" });
  const e = statusErrorFromResponse({ status: 429, body: "", headers });
  assert.equal(e.reason, "TooManyRequests");
  assert.equal(e.status.details?.retryAfterSeconds, 3);
  assert.equal(e.headers["Retry-After"], "3");
});
