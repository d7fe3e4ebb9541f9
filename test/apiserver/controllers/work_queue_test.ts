import assert from "node:assert/strict";
import { WorkQueue } from "../../../apiserver/controllers/work_queue.ts";

Deno.test("WorkQueue processes a key added while it waits once, in the order first added", async () => {
  const done: string[] = [];
  const q = new WorkQueue<string>(async (k) => {
    await Promise.resolve();
    done.push(k);
  }, () => {});
  q.add("a");
  q.add("b");
  q.add("a");
  q.add("c");
  q.add("b");
  await q.idle();
  assert.deepEqual(done, ["a", "b", "c"]);
});

Deno.test("WorkQueue processes a key again when it is added during its own processing", async () => {
  const done: string[] = [];
  const q: WorkQueue<string> = new WorkQueue(async (k) => {
    if (done.length === 0) q.add(k);
    await Promise.resolve();
    done.push(k);
  }, () => {});
  q.add("a");
  await q.idle();
  assert.deepEqual(done, ["a", "a"]);
});

Deno.test("WorkQueue reports what processing threw and goes on", async () => {
  const errors: [string, string][] = [];
  const done: string[] = [];
  const q = new WorkQueue<string>((k) => {
    if (k === "bad") return Promise.reject(new Error("boom"));
    done.push(k);
    return Promise.resolve();
  }, (k, err) => errors.push([k, (err as Error).message]));
  q.add("bad");
  q.add("good");
  await q.idle();
  assert.deepEqual(errors, [["bad", "boom"]]);
  assert.deepEqual(done, ["good"]);
});

Deno.test("WorkQueue.stop() waits for the key in progress, drops the rest and takes no more", async () => {
  const done: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  let began!: () => void;
  const beganA = new Promise<void>((r) => began = r);
  const q = new WorkQueue<string>(async (k) => {
    if (k === "a") {
      began();
      await gate;
    }
    done.push(k);
  }, () => {});
  q.add("a");
  q.add("b");
  await beganA;
  const stopped = q.stop();
  assert.equal(q.stopped, true);
  q.add("c");
  release();
  await stopped;
  assert.deepEqual(done, ["a"]);
});
