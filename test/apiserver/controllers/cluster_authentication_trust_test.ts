import assert from "node:assert/strict";
import {
  clusterAuthenticationData,
  mergeClusterAuthenticationData,
} from "../../../apiserver/controllers/cluster_authentication_trust.ts";
import { createCA } from "../../../shared/pki/issue_certificate.ts";

const info = {
  clientCaPem: "CLIENT",
  requestHeaderAllowedNames: ["front-proxy-client"],
  requestHeaderUsernameHeaders: ["X-Remote-User"],
  requestHeaderGroupHeaders: ["X-Remote-Group"],
  requestHeaderExtraHeadersPrefixes: ["X-Remote-Extra-"],
  requestHeaderUidHeaders: [],
};

Deno.test("clusterAuthenticationData() writes kube's keys, lists as JSON arrays", () => {
  assert.deepEqual(clusterAuthenticationData({ ...info, requestHeaderCaPem: "PROXY" }), {
    "client-ca-file": "CLIENT",
    "requestheader-client-ca-file": "PROXY",
    "requestheader-allowed-names": '["front-proxy-client"]',
    "requestheader-username-headers": '["X-Remote-User"]',
    "requestheader-group-headers": '["X-Remote-Group"]',
    "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
  });
  assert.deepEqual(clusterAuthenticationData(info), { "client-ca-file": "CLIENT" });
  const uid = clusterAuthenticationData({
    ...info,
    requestHeaderCaPem: "PROXY",
    requestHeaderUidHeaders: ["X-Remote-Uid"],
  });
  assert.equal(uid["requestheader-uid-headers"], '["X-Remote-Uid"]');
});

Deno.test("mergeClusterAuthenticationData() keeps what other servers published", async () => {
  const a = await createCA("a"), b = await createCA("b");
  const current = {
    "client-ca-file": a.certPem,
    "requestheader-allowed-names": '["other-proxy"]',
  };
  const merged = mergeClusterAuthenticationData(current, {
    "client-ca-file": b.certPem,
    "requestheader-allowed-names": '["front-proxy-client"]',
  })!;
  assert.equal(merged["client-ca-file"].match(/BEGIN CERTIFICATE/g)?.length, 2);
  assert.equal(merged["requestheader-allowed-names"], '["other-proxy","front-proxy-client"]');
  assert.equal(mergeClusterAuthenticationData(merged, { "client-ca-file": b.certPem }), undefined);
});
