/**
 * A body the declared Content-Type cannot decode answers 400 in the words of kube-apiserver
 * (Go's decoders), never a JavaScript parser's message.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { assertStatus, call } from "./foundation_helpers.ts";

Deno.test("an undecodable create body answers kube-apiserver's 400", async () => {
  const s = await startTestServer();
  try {
    const json = assertStatus(
      await call(s, "POST", "/api/v1/namespaces", '{"metadata": {"name": "a",}}'),
      400,
      "BadRequest",
    );
    assert.equal(
      json.message,
      "the object provided is unrecognized (must be of type Namespace): couldn't get " +
        "version/kind; json parse error: invalid character '}' looking for beginning of object " +
        'key string ({"metadata": {"name": "a",}})',
    );
    const yaml = assertStatus(
      await call(s, "POST", "/api/v1/namespaces/default/configmaps", "data:\n\tx: 1\n", {
        "content-type": "application/yaml",
      }),
      400,
      "BadRequest",
    );
    assert.match(
      yaml.message ?? "",
      /^the object provided is unrecognized \(must be of type ConfigMap\): error converting YAML to JSON: yaml: line 2: /,
    );
    const pb = assertStatus(
      await call(s, "POST", "/api/v1/namespaces/default/configmaps", "not protobuf", {
        "content-type": "application/vnd.kubernetes.protobuf",
      }),
      400,
    );
    assert.equal(
      pb.message,
      "the object provided is unrecognized (must be of type ConfigMap): provided data does not " +
        "appear to be a protobuf message, expected prefix [107 56 115 0] (not protobuf)",
    );
  } finally {
    await s.close();
  }
});
