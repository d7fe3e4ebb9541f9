import assert from "node:assert/strict";
import { encodeMessage } from "../../../../shared/codec/protobuf/encode_message.ts";
import { decodeMessage } from "../../../../shared/codec/protobuf/decode_message.ts";
import { ProtobufError } from "../../../../shared/codec/protobuf/protobuf_error.ts";

Deno.test("encodeMessage() writes fields in field-number order whatever the JSON key order", () => {
  const pod = {
    status: { phase: "Running" },
    spec: { nodeName: "n1", containers: [{ image: "nginx", name: "web" }] },
    metadata: { namespace: "default", name: "p", labels: { b: "2", a: "1" } },
  };
  const reordered = {
    metadata: { labels: { a: "1", b: "2" }, name: "p", namespace: "default" },
    spec: { containers: [{ name: "web", image: "nginx" }], nodeName: "n1" },
    status: { phase: "Running" },
  };
  const bytes = encodeMessage("core.v1.Pod", pod);
  assert.deepEqual(bytes, encodeMessage("core.v1.Pod", reordered));
  assert.deepEqual(decodeMessage("core.v1.Pod", bytes), reordered);
});

Deno.test("encodeMessage() names the path of a value it cannot encode", () => {
  const pod = {
    metadata: { name: "p" },
    spec: { containers: [{ name: "a" }, { name: "b", ports: [{ containerPort: "80" }] }] },
  };
  assert.throws(
    () => encodeMessage("core.v1.Pod", pod),
    (err: unknown) =>
      err instanceof ProtobufError && err.reason === "InvalidValue" &&
      err.message === "spec.containers[1].ports[0].containerPort: expected a 32-bit integer",
  );
  assert.throws(
    () => encodeMessage("core.v1.ConfigMap", { metadata: { labels: { k: 5 } } }),
    (err: unknown) =>
      err instanceof ProtobufError && err.message === "metadata.labels[k]: expected a string",
  );
});
