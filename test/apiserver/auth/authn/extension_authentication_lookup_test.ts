import assert from "node:assert/strict";
import { parseExtensionAuthentication } from "../../../../apiserver/auth/authn/extension_authentication_lookup.ts";

Deno.test("parseExtensionAuthentication() reads the client CA and the front proxy's keys", () => {
  const got = parseExtensionAuthentication({
    "client-ca-file": "CLIENT",
    "requestheader-client-ca-file": "PROXY",
    "requestheader-allowed-names": '["front-proxy-client"]',
    "requestheader-username-headers": '["X-Remote-User"]',
    "requestheader-group-headers": '["X-Remote-Group"]',
    "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
  });
  assert.deepEqual(got, {
    clientCaPem: "CLIENT",
    requestHeader: {
      caPem: "PROXY",
      allowedNames: ["front-proxy-client"],
      usernameHeaders: ["X-Remote-User"],
      groupHeaders: ["X-Remote-Group"],
      extraHeaderPrefixes: ["X-Remote-Extra-"],
      uidHeaders: undefined,
    },
  });
});

Deno.test("parseExtensionAuthentication() without the front proxy's CA has no request header part", () => {
  assert.deepEqual(parseExtensionAuthentication({ "client-ca-file": "CLIENT" }), {
    clientCaPem: "CLIENT",
  });
  assert.deepEqual(parseExtensionAuthentication({}), {});
});

Deno.test("parseExtensionAuthentication() refuses a list that is not a JSON array of strings", () => {
  assert.throws(
    () =>
      parseExtensionAuthentication({
        "requestheader-client-ca-file": "PROXY",
        "requestheader-allowed-names": "front-proxy-client",
      }),
  );
  assert.throws(
    () =>
      parseExtensionAuthentication({
        "requestheader-client-ca-file": "PROXY",
        "requestheader-group-headers": "[1]",
      }),
    /requestheader-group-headers: not a JSON array of strings/,
  );
});
