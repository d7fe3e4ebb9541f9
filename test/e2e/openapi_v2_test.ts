/**
 * End-to-end `/openapi/v2`: JSON and gnostic Protobuf (decoded back and compared with the JSON
 * document), ETag and 304, 406, HEAD, gzip, and kubectl 1.32's `explain` over the v2 document.
 */
import assert from "node:assert/strict";
import { OPENAPI_V2_PROTO_TYPE } from "../../apiserver/openapi/openapi_v2_handler.ts";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { decodeOpenApiV2Proto } from "../support/openapi_v2_proto_decode.ts";
import { v2ProtoDocumentToJson } from "../support/openapi_v2_proto_json.ts";
import { startTestServer } from "../support/test_server.ts";

const PB = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

Deno.test("/openapi/v2 serves JSON and the same document as Protobuf", async () => {
  const s = await startTestServer();
  try {
    const res = await s.fetch("/openapi/v2", { headers: { accept: "application/json" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.match(res.headers.get("etag") ?? "", /^"[0-9A-F]{128}"$/);
    const doc = await res.json();
    assert.equal(doc.swagger, "2.0");
    const dep = doc.definitions["io.k8s.api.apps.v1.Deployment"];
    assert.deepEqual(dep["x-kubernetes-group-version-kind"], [
      { group: "apps", version: "v1", kind: "Deployment" },
    ]);
    assert.ok(doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments"].post);
    assert.ok(doc.paths["/api/v1/namespaces/{namespace}/pods/{name}/status"].patch);
    const pb = await s.fetch("/openapi/v2", { headers: { accept: PB } });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers.get("content-type"), OPENAPI_V2_PROTO_TYPE);
    assert.notEqual(pb.headers.get("etag"), res.headers.get("etag"));
    const back = v2ProtoDocumentToJson(
      decodeOpenApiV2Proto(new Uint8Array(await pb.arrayBuffer())),
    );
    for (
      const name of [
        "io.k8s.api.apps.v1.Deployment",
        "io.k8s.api.apps.v1.DeploymentSpec",
        "io.k8s.api.core.v1.PodSpec",
        "io.k8s.api.core.v1.Container",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
      ]
    ) {
      assert.deepEqual(back.definitions[name], doc.definitions[name], name);
    }
    assert.deepEqual(Object.keys(back.definitions).sort(), Object.keys(doc.definitions).sort());
    assert.deepEqual(Object.keys(back.paths).sort(), Object.keys(doc.paths).sort());
    const p = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}";
    assert.deepEqual(back.paths[p], doc.paths[p]);
  } finally {
    await s.close();
  }
});

Deno.test("/openapi/v2 answers If-None-Match with 304, HEAD without a body, and 406", async () => {
  const s = await startTestServer();
  try {
    for (const accept of ["application/json", PB]) {
      const first = await s.fetch("/openapi/v2", { headers: { accept } });
      await first.body?.cancel();
      const etag = first.headers.get("etag")!;
      const again = await s.fetch("/openapi/v2", { headers: { accept, "if-none-match": etag } });
      assert.equal(again.status, 304, accept);
      assert.equal(again.headers.get("etag"), etag);
      assert.equal(await again.text(), "");
      const stale = await s.fetch("/openapi/v2", { headers: { accept, "if-none-match": '"0"' } });
      assert.equal(stale.status, 200);
      await stale.body?.cancel();
    }
    const head = await s.fetch("/openapi/v2", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "application/json");
    const refused = await s.fetch("/openapi/v2", { headers: { accept: "text/html" } });
    assert.equal(refused.status, 406);
    await refused.body?.cancel();
    const post = await s.fetch("/openapi/v2", { method: "POST", body: "{}" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("/openapi/v2 is gzip-compressed for clients that accept it", async () => {
  const s = await startTestServer();
  try {
    const plain = await s.fetch("/openapi/v2", { headers: { "accept-encoding": "identity" } });
    const bytes = new Uint8Array(await plain.arrayBuffer());
    assert.equal(plain.headers.get("content-encoding"), null);
    const zipped = await s.fetch("/openapi/v2", { headers: { "accept-encoding": "gzip" } });
    assert.equal(zipped.headers.get("content-encoding"), "gzip");
    assert.match(zipped.headers.get("vary") ?? "", /Accept-Encoding/);
    const body = new Uint8Array(await zipped.arrayBuffer());
    const raw = body[0] === 0x1f && body[1] === 0x8b
      ? new Uint8Array(
        await new Response(new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip")))
          .arrayBuffer(),
      )
      : body;
    assert.deepEqual(raw, bytes);
  } finally {
    await s.close();
  }
});

Deno.test({
  name: "kubectl explain --output plaintext-openapiv2 reads /openapi/v2",
  ignore: skipWithoutKubectl("the kubectl explain openapiv2 test"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      const out = ok(
        await kubectl(k, [
          "explain",
          "--output",
          "plaintext-openapiv2",
          "deployment.spec.strategy",
        ]),
      );
      assert.match(
        out,
        /^KIND:\s+Deployment\nVERSION:\s+apps\/v1\n\nRESOURCE: strategy <Object>\n/,
      );
      assert.match(out, /rollingUpdate\t<Object>/);
      const svc = ok(
        await kubectl(k, ["explain", "--output", "plaintext-openapiv2", "service.spec.ports"]),
      );
      assert.match(svc, /RESOURCE: ports <\[\]Object>/);
    } finally {
      await s.close();
    }
  },
});
