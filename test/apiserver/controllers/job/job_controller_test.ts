import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { JobController } from "../../../../apiserver/controllers/job/job_controller.ts";
import {
  COMPLETION_INDEX,
  JOB_TRACKING_FINALIZER,
} from "../../../../apiserver/controllers/job/job_pods.ts";
import {
  eventReasons,
  openWorkloadEnv,
  podsIn,
  setPhase,
  template,
  type WorkloadEnv,
} from "./job_test_support.ts";

async function withJobs(
  fn: (
    env: WorkloadEnv & { jobs: ReturnType<WorkloadEnv["h"]["store"]>; c: JobController },
  ) => Promise<void>,
): Promise<void> {
  const env = await openWorkloadEnv("job-controller-");
  const c = new JobController({ registry: env.h.registry, feed: env.feed, clock: env.clock });
  try {
    await fn({ ...env, jobs: env.h.store("batch", "v1", "jobs"), c });
  } finally {
    await c.stop();
    await env.close();
  }
}

function job(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: "default" },
    spec: { template: template(), ...spec },
  };
}

type Cond = { type: string; status: string; reason?: string; message?: string };
const conditions = (j: KubeObject) =>
  ((j.status as { conditions?: Cond[] })?.conditions ?? []).filter((c) => c.status === "True")
    .map((c) => `${c.type}:${c.reason}`);

Deno.test("JobController.sync() runs completions with parallelism and completes the Job", async () => {
  await withJobs(async ({ jobs, pods, events, c, clock }) => {
    await jobs.create("default", job("pi", { completions: 3, parallelism: 2 }));
    await c.sync("default/pi");
    let ps = await podsIn(pods);
    assert.equal(ps.length, 2);
    for (const p of ps) {
      assert.deepEqual(p.metadata.finalizers, [JOB_TRACKING_FINALIZER]);
      assert.equal(p.metadata.ownerReferences?.[0].kind, "Job");
      assert.equal(p.metadata.labels?.["batch.kubernetes.io/job-name"], "pi");
      assert.ok(p.metadata.name!.startsWith("pi-"));
    }
    let j = await jobs.get("default", "pi");
    assert.equal((j.status as { active: number }).active, 2);
    assert.ok((j.status as { startTime?: string }).startTime);

    const first = ps[0].metadata.uid;
    await setPhase(pods, ps[0], "Succeeded");
    clock.t += 1000;
    await c.sync("default/pi");
    ps = await podsIn(pods);
    assert.equal(ps.length, 3);
    assert.deepEqual(
      ps.find((p) => p.metadata.uid === first)?.metadata.finalizers ?? [],
      [],
    );
    j = await jobs.get("default", "pi");
    assert.deepEqual([
      (j.status as { succeeded: number }).succeeded,
      (j.status as { active: number }).active,
    ], [1, 2]);

    for (const p of ps) {
      if ((p.status as { phase?: string })?.phase !== "Succeeded") {
        await setPhase(pods, p, "Succeeded");
      }
    }
    await c.sync("default/pi");
    j = await jobs.get("default", "pi");
    assert.deepEqual(conditions(j), [
      "SuccessCriteriaMet:CompletionsReached",
      "Complete:CompletionsReached",
    ]);
    const status = j.status as Record<string, unknown>;
    assert.equal(status.succeeded, 3);
    assert.equal(status.active, 0);
    assert.ok(status.completionTime);
    assert.deepEqual(status.uncountedTerminatedPods, {});
    assert.ok((await podsIn(pods)).every((p) => !p.metadata.finalizers?.length));
    const reasons = await eventReasons(events, "pi");
    assert.equal(reasons.filter((r) => r === "SuccessfulCreate").length, 3);
    assert.ok(reasons.includes("Completed"));
  });
});

Deno.test("JobController.sync() backs off after a failure and fails the Job past backoffLimit", async () => {
  await withJobs(async ({ jobs, pods, events, c, clock }) => {
    await jobs.create("default", job("flaky", { backoffLimit: 1 }));
    await c.sync("default/flaky");
    let [p] = await podsIn(pods);
    await setPhase(pods, p, "Failed");
    const again = await c.sync("default/flaky");
    assert.equal((await podsIn(pods)).length, 1, "no replacement during the back-off");
    assert.ok(again !== undefined && again > 0 && again <= 10_000);
    clock.t += 10_000;
    await c.sync("default/flaky");
    const ps = await podsIn(pods);
    assert.equal(ps.length, 2);
    p = ps.find((x) => (x.status as { phase?: string })?.phase !== "Failed")!;
    await setPhase(pods, p, "Failed");
    await c.sync("default/flaky");
    const j = await jobs.get("default", "flaky");
    assert.deepEqual(conditions(j), [
      "FailureTarget:BackoffLimitExceeded",
      "Failed:BackoffLimitExceeded",
    ]);
    const failed = (j.status as { conditions: Cond[] }).conditions.find((x) =>
      x.type === "Failed"
    )!;
    assert.equal(failed.message, "Job has reached the specified backoff limit");
    assert.equal((j.status as { failed: number }).failed, 2);
    assert.ok((await eventReasons(events, "flaky")).includes("BackoffLimitExceeded"));
  });
});

Deno.test("JobController.sync() fails a Job past activeDeadlineSeconds, deleting its pods first", async () => {
  await withJobs(async ({ jobs, pods, c, clock }) => {
    await jobs.create("default", job("slow", { activeDeadlineSeconds: 30 }));
    const wait = await c.sync("default/slow");
    assert.equal(wait, 30_000);
    clock.t += 30_000;
    await c.sync("default/slow");
    let j = await jobs.get("default", "slow");
    assert.deepEqual(conditions(j), ["FailureTarget:DeadlineExceeded"]);
    const [p] = await podsIn(pods);
    assert.ok(p.metadata.deletionTimestamp, "the active pod is being deleted");
    await c.sync("default/slow");
    j = await jobs.get("default", "slow");
    assert.deepEqual(conditions(j), ["FailureTarget:DeadlineExceeded", "Failed:DeadlineExceeded"]);
    assert.deepEqual(await podsIn(pods), [], "the finalizer removed, the pod is gone");
  });
});

Deno.test("JobController.sync() gives Indexed pods their index, env, hostname and completes by index", async () => {
  await withJobs(async ({ jobs, pods, c }) => {
    await jobs.create(
      "default",
      job("idx", { completions: 3, parallelism: 3, completionMode: "Indexed" }),
    );
    await c.sync("default/idx");
    const ps = await podsIn(pods);
    const indexes = ps.map((p) => p.metadata.annotations?.[COMPLETION_INDEX]).sort();
    assert.deepEqual(indexes, ["0", "1", "2"]);
    for (const p of ps) {
      const i = p.metadata.labels?.[COMPLETION_INDEX];
      assert.equal(p.metadata.annotations?.[COMPLETION_INDEX], i);
      assert.ok(p.metadata.name!.startsWith(`idx-${i}-`));
      const spec = p.spec as { hostname: string; containers: { env: { name: string }[] }[] };
      assert.equal(spec.hostname, `idx-${i}`);
      assert.ok(spec.containers[0].env.some((e) => e.name === "JOB_COMPLETION_INDEX"));
    }
    const byIndex = (i: string) => ps.find((p) => p.metadata.labels?.[COMPLETION_INDEX] === i)!;
    await setPhase(pods, byIndex("0"), "Succeeded");
    await setPhase(pods, byIndex("2"), "Succeeded");
    await c.sync("default/idx");
    const j = await jobs.get("default", "idx");
    assert.equal((j.status as { completedIndexes: string }).completedIndexes, "0,2");
    await setPhase(pods, byIndex("1"), "Failed");
    await c.sync("default/idx");
    assert.equal(
      (await podsIn(pods)).filter((p) => p.metadata.labels?.[COMPLETION_INDEX] === "1").length,
      1,
      "back-off first",
    );
  });
});

Deno.test("JobController.sync() applies podFailurePolicy: FailJob on an exit code, Ignore on a condition", async () => {
  await withJobs(async ({ jobs, pods, c }) => {
    await jobs.create(
      "default",
      job("pfp", {
        backoffLimit: 6,
        podFailurePolicy: {
          rules: [
            { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
            {
              action: "FailJob",
              onExitCodes: { containerName: "main", operator: "In", values: [42] },
            },
          ],
        },
      }),
    );
    await c.sync("default/pfp");
    let [p] = await podsIn(pods);
    await setPhase(pods, p, "Failed", 1, {
      conditions: [{ type: "DisruptionTarget", status: "True", reason: "DeletionByTaintManager" }],
    });
    await c.sync("default/pfp");
    let j = await jobs.get("default", "pfp");
    assert.equal((j.status as { failed: number }).failed, 0, "ignored failures do not count");
    const ps = await podsIn(pods);
    assert.equal(ps.length, 2, "replaced at once");
    p = ps.find((x) => (x.status as { phase?: string })?.phase !== "Failed")!;
    await setPhase(pods, p, "Failed", 42);
    await c.sync("default/pfp");
    j = await jobs.get("default", "pfp");
    assert.deepEqual(conditions(j), ["FailureTarget:PodFailurePolicy", "Failed:PodFailurePolicy"]);
    const failed = (j.status as { conditions: Cond[] }).conditions.find((x) =>
      x.type === "Failed"
    )!;
    assert.equal(
      failed.message,
      `Container main for pod default/${p.metadata.name} failed with exit code 42 matching FailJob rule at index 1`,
    );
  });
});

Deno.test("JobController.sync() suspends and resumes a Job", async () => {
  await withJobs(async ({ jobs, pods, events, c }) => {
    await jobs.create("default", job("s", { suspend: true }));
    await c.sync("default/s");
    assert.deepEqual(await podsIn(pods), []);
    let j = await jobs.get("default", "s");
    assert.deepEqual(conditions(j), ["Suspended:JobSuspended"]);
    await jobs.guaranteedUpdate(
      "default",
      "s",
      (cur) => ({ ...cur!, spec: { ...(cur!.spec as object), suspend: false } }),
    );
    await c.sync("default/s");
    assert.equal((await podsIn(pods)).length, 1);
    j = await jobs.get("default", "s");
    const suspended = (j.status as { conditions: Cond[] }).conditions.find((x) =>
      x.type === "Suspended"
    )!;
    assert.deepEqual([suspended.status, suspended.reason], ["False", "JobResumed"]);
    const reasons = await eventReasons(events, "s");
    assert.ok(reasons.includes("Suspended") && reasons.includes("Resumed"));
  });
});

Deno.test("JobController.sync() completes an Indexed Job by its successPolicy", async () => {
  await withJobs(async ({ jobs, pods, c }) => {
    await jobs.create(
      "default",
      job("leader", {
        completions: 3,
        parallelism: 3,
        completionMode: "Indexed",
        successPolicy: { rules: [{ succeededIndexes: "0" }] },
      }),
    );
    await c.sync("default/leader");
    const ps = await podsIn(pods);
    const leader = ps.find((p) => p.metadata.labels?.[COMPLETION_INDEX] === "0")!;
    await setPhase(pods, leader, "Succeeded");
    await c.sync("default/leader");
    let j = await jobs.get("default", "leader");
    assert.deepEqual(conditions(j), ["SuccessCriteriaMet:SuccessPolicy"]);
    const met = (j.status as { conditions: Cond[] }).conditions[0];
    assert.equal(met.message, "Matched rules at index 0");
    await c.sync("default/leader");
    j = await jobs.get("default", "leader");
    assert.deepEqual(conditions(j), ["SuccessCriteriaMet:SuccessPolicy", "Complete:SuccessPolicy"]);
    assert.equal((j.status as { failed: number }).failed, 0, "the pods removed are not failures");
  });
});

Deno.test("JobController.sync() counts failures per index under backoffLimitPerIndex", async () => {
  await withJobs(async ({ jobs, pods, c, clock }) => {
    await jobs.create(
      "default",
      job("per", {
        completions: 2,
        parallelism: 2,
        completionMode: "Indexed",
        backoffLimitPerIndex: 1,
      }),
    );
    await c.sync("default/per");
    const ofIndex = async (i: string) =>
      (await podsIn(pods)).filter((p) =>
        p.metadata.labels?.[COMPLETION_INDEX] === i &&
        (p.status as { phase?: string })?.phase !== "Failed"
      );
    const [first] = await ofIndex("1");
    assert.equal(first.metadata.annotations?.["batch.kubernetes.io/job-index-failure-count"], "0");
    await setPhase(pods, first, "Failed");
    await c.sync("default/per");
    clock.t += 10_000;
    await c.sync("default/per");
    const [second] = await ofIndex("1");
    assert.equal(second.metadata.annotations?.["batch.kubernetes.io/job-index-failure-count"], "1");
    await setPhase(pods, second, "Failed");
    await c.sync("default/per");
    let j = await jobs.get("default", "per");
    assert.equal((j.status as { failedIndexes: string }).failedIndexes, "1");
    const [zero] = await ofIndex("0");
    await setPhase(pods, zero, "Succeeded");
    clock.t += 60_000;
    await c.sync("default/per");
    assert.deepEqual(await ofIndex("1"), [], "a failed index gets no more pods");
    j = await jobs.get("default", "per");
    assert.deepEqual(conditions(j), ["FailureTarget:FailedIndexes", "Failed:FailedIndexes"]);
  });
});
