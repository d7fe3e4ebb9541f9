import assert from "node:assert/strict";
import {
  type CheckpointDeps,
  handleCheckpoint,
  type NodeRequestAttributes,
} from "../../../nodeagent/checkpoint/handle_checkpoint.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import { featureGates } from "../../../nodeagent/config/feature_gates.ts";
import { ProcessRuntime } from "../../../nodeagent/runtime/process/process_runtime.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import { readTar } from "./_read_tar.ts";
import { eventually } from "../../support/eventually.ts";

const NODE = "node-1";
const pod = {
  namespace: "default",
  name: "holder-7d9f",
  uid: "5b1c2d3e-aaaa-bbbb-cccc-000011112222",
};

// Fakes for the external decisions: TokenReview (token -> user) and SubjectAccessReview.
const TOKENS: Record<string, UserInfo> = {
  "allowed-token": { username: "checkpointer", groups: [] },
  "denied-token": { username: "viewer", groups: [] },
};
const authenticate = (req: Request) =>
  Promise.resolve(TOKENS[(req.headers.get("authorization") ?? "").replace(/^Bearer /, "")]);

function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  for (let i = hay.indexOf(needle[0]); i >= 0; i = hay.indexOf(needle[0], i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return true;
  }
  return false;
}

Deno.test("handleCheckpoint() answers 401, 403, 404, 500 and 200 as the kubelet does", async (t) => {
  const root = await Deno.makeTempDir();
  const runtime = new ProcessRuntime({ rootDir: root });
  const seen: NodeRequestAttributes[] = [];
  const clock = new FakeClock(Date.UTC(2024, 1, 29, 18, 28, 17));
  const deps = (over: Partial<CheckpointDeps> = {}): CheckpointDeps => ({
    runtime,
    gates: featureGates(),
    authenticate,
    authorize: (user, attrs) => {
      seen.push(attrs);
      return Promise.resolve(user.username === "checkpointer");
    },
    rootDir: root,
    nodeName: NODE,
    clock,
    ...over,
  });
  const post = (path: string, token?: string, method = "POST") =>
    new Request(`https://localhost:10250${path}`, {
      method,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  try {
    const secret = `marker-${crypto.randomUUID()}`;
    const program =
      "import os, time\ns = os.environ['R'][::-1]\nopen('ready', 'w').close()\ntime.sleep(600)";
    await runtime.startContainer(pod, {
      name: "app",
      command: ["/usr/bin/python3", "-c", program],
      env: [{ name: "R", value: [...secret].reverse().join("") }],
    });
    const done = await runtime.startContainer(pod, { name: "done", command: ["true"] });
    const work = `${root}/pods/${pod.uid}/containers/app/work`;
    await eventually("ready", () => Deno.stat(`${work}/ready`).then(() => true, () => undefined));
    await eventually("exit", async () => {
      const s = await runtime.containerStatus(done.id);
      return s && "terminated" in s.state ? true : undefined;
    });

    const base = `/checkpoint/default/${pod.name}`;
    const cases: [string, Request, Partial<CheckpointDeps>, number, RegExp?][] = [
      ["no credentials is 401", post(`${base}/app`), {}, 401],
      ["a user without nodes/checkpoint is 403", post(`${base}/app`, "denied-token"), {}, 403],
      ["gate off is 404", post(`${base}/app`, "allowed-token"), {
        gates: featureGates({ ContainerCheckpoint: false }),
      }, 404],
      [
        "unknown namespace is 404",
        post(`/checkpoint/other/${pod.name}/app`, "allowed-token"),
        {},
        404,
        /pod does not exist/,
      ],
      [
        "unknown pod is 404",
        post("/checkpoint/default/nope/app", "allowed-token"),
        {},
        404,
        /pod does not exist/,
      ],
      [
        "unknown container is 404",
        post(`${base}/nope`, "allowed-token"),
        {},
        404,
        /container nope does not exist/,
      ],
      [
        "escaping names are 404",
        post(`/checkpoint/default/..%2F..%2Fetc/app`, "allowed-token"),
        {},
        404,
      ],
      [
        "an unparsable timeout is 404",
        post(`${base}/app?timeout=soon`, "allowed-token"),
        {},
        404,
        /cannot parse value of timeout parameter/,
      ],
      [
        "a runtime error is 500",
        post(`${base}/done`, "allowed-token"),
        {},
        500,
        /checkpointing of default\/holder-7d9f\/done failed/,
      ],
      ["GET is 405", post(`${base}/app`, "allowed-token", "GET"), {}, 405],
    ];
    for (const [name, req, over, code, message] of cases) {
      await t.step(name, async () => {
        const res = await handleCheckpoint(req, deps(over));
        const body = await res.json();
        assert.equal(res.status, code, JSON.stringify(body));
        assert.equal(body.kind, "Status");
        if (message) assert.match(body.message, message);
      });
    }
    await t.step("a failed checkpoint leaves no archive", async () => {
      const left = await Array.fromAsync(Deno.readDir(`${root}/checkpoints`));
      assert.deepEqual(left, []);
    });
    await t.step("an allowed user gets 200 with the archive path", async () => {
      const res = await handleCheckpoint(post(`${base}/app?timeout=30`, "allowed-token"), deps());
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      const path =
        `${root}/checkpoints/checkpoint-${pod.name}_default-app-2024-02-29T18:28:17Z.tar`;
      assert.deepEqual(body, { items: [path] });
      assert.equal(res.headers.get("content-type"), "application/json");
      const st = await Deno.stat(path);
      assert.equal(st.mode! & 0o777, 0o600);
      assert.equal(st.uid, Deno.uid());
      const entries = await readTar(path);
      const needle = new TextEncoder().encode(secret);
      assert.ok(
        [...entries].some(([n, d]) => n.startsWith("checkpoint/pages-") && contains(d, needle)),
        "the memory dump holds the string",
      );
    });
    assert.deepEqual(seen[0], {
      verb: "create",
      resource: "nodes",
      subresource: "checkpoint",
      name: NODE,
    });
  } finally {
    await runtime.close();
    await Deno.remove(root, { recursive: true });
  }
});
