import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { CronJobController } from "../../../../apiserver/controllers/cronjob/cronjob_controller.ts";
import { SCHEDULED_TIMESTAMP } from "../../../../apiserver/controllers/cronjob/cronjob_jobs.ts";
import type { Store } from "../../../../apiserver/registry/generic/store.ts";
import {
  eventReasons,
  openWorkloadEnv,
  template,
  type WorkloadEnv,
} from "../job/job_test_support.ts";

interface Env extends WorkloadEnv {
  cronjobs: Store;
  jobs: Store;
  c: CronJobController;
}

async function withCron(fn: (env: Env) => Promise<void>): Promise<void> {
  const env = await openWorkloadEnv("cronjob-controller-");
  const c = new CronJobController({
    registry: env.h.registry,
    feed: env.feed,
    clock: env.clock,
    zone: "UTC",
  });
  try {
    await fn({
      ...env,
      cronjobs: env.h.store("batch", "v1", "cronjobs"),
      jobs: env.h.store("batch", "v1", "jobs"),
      c,
    });
  } finally {
    await c.stop();
    await env.close();
  }
}

async function createCron(
  env: Env,
  name: string,
  spec: Record<string, unknown>,
): Promise<KubeObject> {
  return await env.cronjobs.create("default", {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name, namespace: "default" },
    spec: { jobTemplate: { spec: { template: template() } }, ...spec },
  });
}

async function jobNames(jobs: Store): Promise<string[]> {
  return (await jobs.list("default", { plan: { mode: "latest" } })).items.map((j) =>
    j.metadata.name!
  ).sort();
}

async function finishJob(jobs: Store, name: string, type: "Complete" | "Failed", at: number) {
  const t = new Date(at).toISOString().replace(/\.\d+Z$/, "Z");
  await jobs.guaranteedUpdate(
    "default",
    name,
    (cur) => ({
      ...cur!,
      status: {
        startTime: t,
        ...(type === "Complete" ? { completionTime: t, succeeded: 1 } : { failed: 1 }),
        conditions: [
          {
            type: type === "Complete" ? "SuccessCriteriaMet" : "FailureTarget",
            status: "True",
            reason: "r",
            message: "m",
            lastTransitionTime: t,
          },
          { type, status: "True", reason: "r", message: "m", lastTransitionTime: t },
        ],
      },
    }),
    {},
    { subresource: "status" },
  );
}

Deno.test("CronJobController.sync() creates a Job per activation, named by its minute", async () => {
  await withCron(async (env) => {
    const cj = await createCron(env, "tick", { schedule: "*/5 * * * *" });
    env.clock.t = Date.parse(cj.metadata.creationTimestamp!);
    const wait = await env.c.sync("default/tick");
    assert.deepEqual(await jobNames(env.jobs), [], "no activation since creation");
    assert.ok(wait !== undefined && wait > 0 && wait <= 5 * 60_000 + 100);
    env.clock.t += wait!;
    await env.c.sync("default/tick");
    const names = await jobNames(env.jobs);
    assert.equal(names.length, 1);
    const scheduled = Math.floor((env.clock.t - 100) / 60_000) * 60_000;
    assert.equal(names[0], `tick-${scheduled / 60_000}`);
    const job = await env.jobs.get("default", names[0]);
    assert.equal(job.metadata.ownerReferences?.[0].kind, "CronJob");
    assert.equal(
      job.metadata.annotations?.[SCHEDULED_TIMESTAMP],
      new Date(scheduled).toISOString().replace(/\.\d+Z$/, "Z"),
    );
    const status = (await env.cronjobs.get("default", "tick")).status as Record<string, unknown>;
    assert.equal((status.active as unknown[]).length, 1);
    assert.equal(
      status.lastScheduleTime,
      new Date(scheduled).toISOString().replace(/\.\d+Z$/, "Z"),
    );
    assert.ok((await eventReasons(env.events, "tick")).includes("SuccessfulCreate"));

    await env.c.sync("default/tick");
    assert.equal((await jobNames(env.jobs)).length, 1, "the same activation runs once");

    await finishJob(env.jobs, names[0], "Complete", env.clock.t);
    await env.c.sync("default/tick");
    const after = (await env.cronjobs.get("default", "tick")).status as Record<string, unknown>;
    assert.equal(after.active, undefined);
    assert.ok(after.lastSuccessfulTime);
    assert.ok((await eventReasons(env.events, "tick")).includes("SawCompletedJob"));
  });
});

Deno.test("CronJobController.sync() honours Forbid, Replace and startingDeadlineSeconds", async () => {
  await withCron(async (env) => {
    const forbid = await createCron(env, "forbid", {
      schedule: "* * * * *",
      concurrencyPolicy: "Forbid",
    });
    await createCron(env, "replace", { schedule: "* * * * *", concurrencyPolicy: "Replace" });
    env.clock.t = Date.parse(forbid.metadata.creationTimestamp!) + 61_000;
    await env.c.sync("default/forbid");
    await env.c.sync("default/replace");
    const first = await jobNames(env.jobs);
    assert.equal(first.length, 2);
    env.clock.t += 60_000;
    await env.c.sync("default/forbid");
    await env.c.sync("default/replace");
    const second = await jobNames(env.jobs);
    assert.equal(second.filter((n) => n.startsWith("forbid-")).length, 1, "Forbid waits");
    assert.ok((await eventReasons(env.events, "forbid")).includes("JobAlreadyActive"));
    const replaced = second.filter((n) => n.startsWith("replace-"));
    assert.equal(replaced.length, 1, "Replace deleted the running one");
    assert.ok(!first.includes(replaced[0]));

    const late = await createCron(env, "late", {
      schedule: "* * * * *",
      startingDeadlineSeconds: 10,
    });
    // Half a minute past an activation, three activations after creation.
    const created = Date.parse(late.metadata.creationTimestamp!);
    env.clock.t = Math.floor(created / 60_000) * 60_000 + 4 * 60_000 + 30_000;
    await env.c.sync("default/late");
    // Activations more than startingDeadlineSeconds ago are not started.
    assert.equal((await jobNames(env.jobs)).filter((n) => n.startsWith("late-")).length, 0);
  });
});

Deno.test("CronJobController.sync() keeps the history limits and stays put when suspended", async () => {
  await withCron(async (env) => {
    const cj = await createCron(env, "hist", {
      schedule: "* * * * *",
      successfulJobsHistoryLimit: 1,
      failedJobsHistoryLimit: 1,
    });
    env.clock.t = Date.parse(cj.metadata.creationTimestamp!);
    for (let i = 0; i < 3; i++) {
      env.clock.t += 60_000;
      await env.c.sync("default/hist");
      const running = await jobNames(env.jobs);
      for (const n of running) {
        const j = await env.jobs.get("default", n);
        if (!(j.status as { conditions?: unknown[] })?.conditions) {
          await finishJob(env.jobs, n, "Complete", env.clock.t + i);
        }
      }
    }
    await env.c.sync("default/hist");
    assert.equal((await jobNames(env.jobs)).length, 1);
    assert.ok((await eventReasons(env.events, "hist")).includes("SuccessfulDelete"));

    await env.cronjobs.guaranteedUpdate(
      "default",
      "hist",
      (cur) => ({ ...cur!, spec: { ...(cur!.spec as object), suspend: true } }),
    );
    env.clock.t += 120_000;
    await env.c.sync("default/hist");
    assert.equal((await jobNames(env.jobs)).length, 1);
  });
});
