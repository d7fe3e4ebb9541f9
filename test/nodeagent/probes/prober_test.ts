import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import type { EventObject, EventRecorder } from "../../../nodeagent/events/event_recorder.ts";
import type { ProbedContainer } from "../../../nodeagent/probes/probe_spec.ts";
import { Prober } from "../../../nodeagent/probes/prober.ts";
import type { ExecSyncResult } from "../../../nodeagent/runtime/runtime.ts";

/** Records events (a fake of the API server's event sink). */
class Events implements EventRecorder {
  readonly seen: { type: string; reason: string; message: string; obj: EventObject }[] = [];
  event(obj: EventObject, type: string, reason: string, message: string): void {
    this.seen.push({ obj, type, reason, message });
  }
}

/** An exec "runtime" whose commands answer by their first word: `ok` succeeds, `bad` fails. */
function scripted() {
  const answers = new Map<string, number>([["ok", 0], ["bad", 1]]);
  return {
    answers,
    execSync(_id: string, cmd: string[]): Promise<ExecSyncResult> {
      const code = answers.get(cmd[0]) ?? 127;
      return Promise.resolve({
        exitCode: code,
        stdout: code ? "" : "fine",
        stderr: code ? "sick" : "",
        timedOut: false,
      });
    },
  };
}

function setup(c: ProbedContainer) {
  const clock = new FakeClock();
  const events = new Events();
  const runtime = scripted();
  let changes = 0;
  const prober = new Prober({ runtime, clock, recorder: events, onChange: () => changes++ });
  const pod = {
    metadata: { name: "p", namespace: "default", uid: "u1" },
    spec: { containers: [c] },
  } as unknown as KubeObject;
  const startedAt = clock.now();
  const tick = async (id = "c1") => {
    prober.sync(pod, [c], "127.0.0.1", new Map([[c.name, { id, startedAt }]]));
    await prober.idle();
  };
  return { clock, events, runtime, prober, tick, changes: () => changes };
}

Deno.test("Prober readiness: not ready until the probe succeeds, unready after failureThreshold failures", async () => {
  const c: ProbedContainer = {
    name: "web",
    readinessProbe: { exec: { command: ["ok"] }, periodSeconds: 5, failureThreshold: 2 },
  };
  const s = setup(c);
  assert.equal(s.prober.ready("u1", c, "c1"), false, "readiness starts as failure");
  await s.tick();
  assert.equal(s.prober.ready("u1", c, "c1"), true);
  assert.equal(s.changes(), 1);
  c.readinessProbe!.exec!.command = ["bad"];
  await s.tick(); // not due yet: the period has not passed
  assert.equal(s.prober.ready("u1", c, "c1"), true);
  s.clock.advance(5_000);
  await s.tick();
  assert.equal(s.prober.ready("u1", c, "c1"), true, "one failure is below the threshold");
  s.clock.advance(5_000);
  await s.tick();
  assert.equal(s.prober.ready("u1", c, "c1"), false);
  assert.deepEqual(s.events.seen.map((e) => [e.type, e.reason, e.message]), [
    ["Warning", "Unhealthy", "Readiness probe failed: sick"],
    ["Warning", "Unhealthy", "Readiness probe failed: sick"],
  ]);
  assert.equal(s.events.seen[0].obj.fieldPath, "spec.containers{web}");
  assert.equal(s.prober.killReason("u1", c, "c1"), undefined, "readiness never kills");
});

Deno.test("Prober liveness: waits initialDelaySeconds, then asks for a kill after failureThreshold failures and holds", async () => {
  const c: ProbedContainer = {
    name: "web",
    livenessProbe: {
      exec: { command: ["bad"] },
      initialDelaySeconds: 10,
      periodSeconds: 1,
      failureThreshold: 3,
    },
  };
  const s = setup(c);
  await s.tick();
  assert.equal(s.events.seen.length, 0, "no probe before the initial delay");
  s.clock.advance(10_000);
  for (let i = 0; i < 3; i++) {
    assert.equal(s.prober.killReason("u1", c, "c1"), undefined);
    await s.tick();
    s.clock.advance(1_000);
  }
  assert.equal(s.prober.killReason("u1", c, "c1"), "liveness");
  await s.tick();
  assert.equal(s.events.seen.length, 3, "on hold: no probing after the failure");
  assert.equal(s.prober.killReason("u1", c, "c2"), undefined, "a new container starts over");
});

Deno.test("Prober startup: gates liveness and readiness until it succeeds", async () => {
  const c: ProbedContainer = {
    name: "web",
    startupProbe: { exec: { command: ["bad"] }, periodSeconds: 1, failureThreshold: 30 },
    livenessProbe: { exec: { command: ["bad"] }, periodSeconds: 1, failureThreshold: 1 },
    readinessProbe: { exec: { command: ["ok"] }, periodSeconds: 1 },
  };
  const s = setup(c);
  await s.tick();
  assert.equal(s.prober.started("u1", c, "c1"), false);
  assert.equal(s.prober.ready("u1", c, "c1"), false);
  assert.deepEqual(s.events.seen.map((e) => e.message), ["Startup probe failed: sick"]);
  c.startupProbe!.exec!.command = ["ok"];
  s.clock.advance(1_000);
  await s.tick();
  assert.equal(s.prober.started("u1", c, "c1"), true);
  s.clock.advance(1_000);
  await s.tick();
  assert.equal(s.prober.ready("u1", c, "c1"), true);
  assert.equal(s.prober.killReason("u1", c, "c1"), "liveness");
});

Deno.test("Prober: successThreshold successes in a row make a container ready", async () => {
  const c: ProbedContainer = {
    name: "web",
    readinessProbe: { exec: { command: ["ok"] }, periodSeconds: 1, successThreshold: 2 },
  };
  const s = setup(c);
  await s.tick();
  assert.equal(s.prober.ready("u1", c, "c1"), false);
  s.clock.advance(1_000);
  await s.tick();
  assert.equal(s.prober.ready("u1", c, "c1"), true);
});

Deno.test("Prober: a probe that cannot run is an 'errored' event and changes nothing", async () => {
  const c: ProbedContainer = {
    name: "web",
    livenessProbe: { tcpSocket: { port: "nope" }, periodSeconds: 1, failureThreshold: 1 },
  };
  const s = setup(c);
  await s.tick();
  assert.equal(s.prober.killReason("u1", c, "c1"), undefined);
  assert.deepEqual(s.events.seen.map((e) => e.message), [
    "Liveness probe errored: couldn't find port: nope in container web",
  ]);
});
