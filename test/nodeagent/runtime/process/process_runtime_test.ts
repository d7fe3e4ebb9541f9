import assert from "node:assert/strict";
import { ProcessRuntime } from "../../../../nodeagent/runtime/process/process_runtime.ts";
import { CreateContainerError, type PodInfo } from "../../../../nodeagent/runtime/runtime.ts";
import { readTar } from "../../checkpoint/_read_tar.ts";
import { eventually } from "../../../support/eventually.ts";

const pod: PodInfo = {
  namespace: "default",
  name: "web",
  uid: "0f7c1e2a-1111-2222-3333-444455556666",
};

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (
    let i = hay.indexOf(needle[0]);
    i >= 0 && i <= hay.length - needle.length;
    i = hay.indexOf(needle[0], i + 1)
  ) {
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

Deno.test("ProcessRuntime runs a container as a process and reports its exit and restarts", async () => {
  const root = await Deno.makeTempDir();
  const rt = new ProcessRuntime({ rootDir: root });
  try {
    const spec = {
      name: "job",
      command: ["/bin/sh", "-c"],
      args: ['echo "hello $GREETING" > out.txt; pwd; exit 3'],
      env: [{ name: "GREETING", value: "world" }],
    };
    const s = await rt.startContainer(pod, spec);
    assert.ok("running" in s.state && s.pid! > 0);
    assert.equal(s.restartCount, 0);
    const done = await eventually("exit", async () => {
      const st = await rt.containerStatus(s.id);
      return st && "terminated" in st.state ? st : undefined;
    });
    assert.ok("terminated" in done.state);
    assert.equal(done.state.terminated.exitCode, 3);
    assert.equal(done.state.terminated.reason, "Error");
    const dir = `${root}/pods/${pod.uid}/containers/job`;
    assert.equal(await Deno.readTextFile(`${dir}/work/out.txt`), "hello world\n");
    // The log is in the kubelet's CRI format: time, stream, F (full line), content.
    assert.match(
      await Deno.readTextFile(`${dir}/0.log`),
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[0-9:.]{18}Z stdout F ${dir}/work\\n$`),
    );
    const again = await rt.startContainer(pod, spec);
    assert.equal(again.restartCount, 1);
    await rt.stopContainer(again.id, 5_000);
    assert.deepEqual((await rt.listPods()).map((p) => [p.name, p.ready]), [["web", false]]);
  } finally {
    await rt.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ProcessRuntime.stopContainer() terminates a running process", async () => {
  const root = await Deno.makeTempDir();
  const rt = new ProcessRuntime({ rootDir: root });
  try {
    const s = await rt.startContainer(pod, { name: "sleeper", command: ["sleep", "600"] });
    await rt.stopContainer(s.id, 10_000);
    const st = await rt.containerStatus(s.id);
    assert.ok(st && "terminated" in st.state);
    assert.equal(st.state.terminated.signal, 15);
  } finally {
    await rt.close();
    await Deno.remove(root, { recursive: true });
  }
});

/** Whether a process with `pid` still runs (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return false;
  }
}

Deno.test("ProcessRuntime: the container's other processes end with its main process", async (t) => {
  const root = await Deno.makeTempDir();
  const rt = new ProcessRuntime({ rootDir: root });
  // A background child keeps the container's output open: it must not outlive the container.
  const leaver = (name: string, main: string) => ({
    name,
    command: ["sh", "-c", `sleep 300 & echo $! > bg.pid; ${main}`],
  });
  const bgPid = async (name: string) => {
    const file = `${root}/pods/${pod.uid}/containers/${name}/work/bg.pid`;
    return await eventually("bg.pid", async () => Number(await Deno.readTextFile(file)) || 0, {
      retryErrors: true,
    });
  };
  try {
    await t.step("the main process exits", async () => {
      const s = await rt.startContainer(pod, leaver("exits", "exit 4"));
      const bg = await bgPid("exits");
      const st = await eventually("terminated", async () => {
        const st = await rt.containerStatus(s.id);
        return st && "terminated" in st.state ? st : undefined;
      }, { timeoutMs: 20_000 });
      assert.ok("terminated" in st.state);
      assert.equal(st.state.terminated.exitCode, 4);
      await eventually("the background process gone", () => !alive(bg));
    });
    await t.step("stopContainer()", async () => {
      const s = await rt.startContainer(pod, leaver("stopped", "exec sleep 301"));
      const bg = await bgPid("stopped");
      await rt.stopContainer(s.id, 10_000);
      const st = await rt.containerStatus(s.id);
      assert.ok(st && "terminated" in st.state);
      assert.equal(st.state.terminated.signal, 15);
      await eventually("the background process gone", () => !alive(bg));
    });
  } finally {
    await rt.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ProcessRuntime.startContainer() fails with CreateContainerError", async (t) => {
  const root = await Deno.makeTempDir();
  const rt = new ProcessRuntime({ rootDir: root });
  try {
    await t.step("missing Localhost seccomp profile", async () => {
      const err = await rt.startContainer(pod, {
        name: "c",
        command: ["true"],
        securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "nope.json" } },
      }).then(() => undefined, (e) => e);
      assert.ok(err instanceof CreateContainerError);
      assert.match(err.message, /cannot load seccomp profile/);
    });
    await t.step("no command", async () => {
      await assert.rejects(rt.startContainer(pod, { name: "c" }), CreateContainerError);
    });
    await t.step("executable not found", async () => {
      await assert.rejects(
        rt.startContainer(pod, { name: "c", command: ["/no/such/binary"] }),
        CreateContainerError,
      );
    });
    await t.step("path-escaping names", async () => {
      await assert.rejects(
        rt.startContainer(pod, { name: "../x", command: ["true"] }),
        CreateContainerError,
      );
      await assert.rejects(
        rt.startContainer({ ...pod, uid: "../../x" }, { name: "c", command: ["true"] }),
        CreateContainerError,
      );
    });
  } finally {
    await rt.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ProcessRuntime.checkpointContainer() dumps the process memory holding a known string", async () => {
  const root = await Deno.makeTempDir();
  const rt = new ProcessRuntime({ rootDir: root });
  try {
    const secret = `marker-${crypto.randomUUID()}`;
    // The string is built at run time from its reverse, so only the process' heap holds it.
    const program = [
      "import os, time",
      "s = os.environ['REVERSED'][::-1]",
      "kept = [s * 1]",
      "open('state.txt', 'w').write('ready')",
      "os.rename('state.txt', 'ready')",
      "time.sleep(600)",
    ].join("\n");
    const s = await rt.startContainer(pod, {
      name: "holder",
      command: ["/usr/bin/python3", "-c", program],
      env: [{ name: "REVERSED", value: [...secret].reverse().join("") }],
    });
    const work = `${root}/pods/${pod.uid}/containers/holder/work`;
    await eventually("ready", () => Deno.stat(`${work}/ready`).then(() => true, () => undefined));
    await Deno.mkdir(`${root}/checkpoints`);
    const location = `${root}/checkpoints/checkpoint-web_default-holder-2026-01-01T00:00:00Z.tar`;
    await rt.checkpointContainer(s.id, {
      location,
      signal: new AbortController().signal,
      timeoutSeconds: 0,
    });
    assert.equal((await Deno.stat(location)).mode! & 0o777, 0o600);
    const entries = await readTar(location);
    for (
      const name of [
        "config.dump",
        "spec.dump",
        "checkpoint/cmdline",
        "checkpoint/environ",
        "checkpoint/status",
        "checkpoint/maps",
        "checkpoint/fds.json",
        "checkpoint/pagemap.json",
        "stats-dump",
        "workdir/ready",
      ]
    ) {
      assert.ok(entries.has(name), `archive has ${name}`);
    }
    const needle = new TextEncoder().encode(secret);
    const holders = [...entries].filter(([n, data]) =>
      n.startsWith("checkpoint/pages-") && indexOf(data, needle) >= 0
    );
    assert.ok(holders.length > 0, "a memory dump holds the string");
    assert.equal(indexOf(entries.get("checkpoint/cmdline")!, needle), -1);
    const st = await rt.containerStatus(s.id);
    assert.ok(st && "running" in st.state);
    const state = (await Deno.readTextFile(`/proc/${st.pid}/stat`)).split(") ")[1][0];
    assert.notEqual(state, "T", "the process was resumed");
  } finally {
    await rt.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ProcessRuntime.checkpointContainer() leaves no archive when aborted and resumes the process", async () => {
  const root = await Deno.makeTempDir();
  const rt = new ProcessRuntime({ rootDir: root });
  try {
    const s = await rt.startContainer(pod, { name: "sleeper", command: ["sleep", "600"] });
    const pid = s.pid!;
    const stopped = () => Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1][0] === "T";
    // A signal that fires once the capture has paused the process (as a timeout would).
    const ac = new AbortController();
    const signal = ac.signal;
    signal.throwIfAborted = () => {
      if (!signal.aborted && stopped()) ac.abort(new Error("checkpoint timed out"));
      if (signal.aborted) throw signal.reason;
    };
    await Deno.mkdir(`${root}/checkpoints`);
    await assert.rejects(
      rt.checkpointContainer(s.id, {
        location: `${root}/checkpoints/x.tar`,
        signal,
        timeoutSeconds: 1,
      }),
      /timed out/,
    );
    assert.ok(signal.aborted, "aborted while the process was paused");
    assert.deepEqual([...Deno.readDirSync(`${root}/checkpoints`)], []);
    await eventually("resume", () => Promise.resolve(stopped() ? undefined : true));
    const st = await rt.containerStatus(s.id);
    assert.ok(st && "running" in st.state);
  } finally {
    await rt.close();
    await Deno.remove(root, { recursive: true });
  }
});
