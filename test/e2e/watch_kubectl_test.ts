/**
 * kubectl 1.32 against the watch verb: `get -w` prints changes as they happen,
 * `wait --for=delete` returns once the object is gone, `delete ns` waits for the namespace.
 */
import assert from "node:assert/strict";
import { kubectlFor, skipWithoutKubectl, spawnKubectl } from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";

async function write(t: TestServer, method: string, path: string, body?: unknown) {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.body?.cancel();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status}`);
}

function kubectl(t: TestServer, args: string[]) {
  return spawnKubectl(kubectlFor(t), args);
}

Deno.test({
  name: "kubectl get -w, wait --for=delete and delete ns follow the watch",
  ignore: skipWithoutKubectl("the kubectl watch tests"),
}, async (t) => {
  const s = await startTestServer();
  try {
    await t.step("get cm -w prints changes as they happen", async () => {
      await write(s, "POST", "/api/v1/namespaces/default/configmaps", {
        metadata: { name: "before" },
      });
      const child = kubectl(s, ["get", "cm", "-n", "default", "-w", "--request-timeout=60s"]);
      let out = "";
      const reading = (async () => {
        for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) out += chunk;
      })();
      await eventually("kubectl listing", () => out.includes("before"));
      await write(s, "POST", "/api/v1/namespaces/default/configmaps", {
        metadata: { name: "watched" },
      });
      await eventually("kubectl printing the new ConfigMap", () => /watched/.test(out));
      await write(s, "DELETE", "/api/v1/namespaces/default/configmaps/watched");
      await eventually("the deletion", () => (out.match(/watched/g) ?? []).length >= 2);
      child.kill("SIGTERM");
      await child.status;
      await reading;
      await child.stderr.cancel();
    });

    await t.step("wait --for=delete returns when the object is deleted", async () => {
      await write(s, "POST", "/api/v1/namespaces/default/configmaps", {
        metadata: { name: "x" },
      });
      const child = kubectl(s, ["wait", "--for=delete", "cm/x", "-n", "default", "--timeout=60s"]);
      await write(s, "DELETE", "/api/v1/namespaces/default/configmaps/x");
      const out = await child.output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    });

    await t.step("delete ns waits until the namespace is gone", async () => {
      await write(s, "POST", "/api/v1/namespaces", { metadata: { name: "doomed" } });
      await write(s, "POST", "/api/v1/namespaces/doomed/configmaps", {
        metadata: { name: "inside" },
      });
      const out = await kubectl(s, ["delete", "ns", "doomed", "--timeout=60s"]).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const res = await s.fetch("/api/v1/namespaces/doomed");
      await res.body?.cancel();
      assert.equal(res.status, 404);
    });
  } finally {
    await s.close();
  }
});
