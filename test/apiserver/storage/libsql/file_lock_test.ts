import assert from "node:assert/strict";
import { FileLock } from "../../../../apiserver/storage/libsql/file_lock.ts";

Deno.test("FileLock.run() lets one holder of a file's lock run at a time", async () => {
  const dir = await Deno.makeTempDir({ prefix: "file_lock_" });
  try {
    await Deno.writeTextFile(`${dir}/state.db`, "");
    const a = FileLock.acquire(`file:${dir}/state.db`);
    const b = FileLock.acquire(`file://${dir}/state.db?mode=rw`);
    const other = FileLock.acquire(`file:${dir}/other.db`);
    const order: string[] = [];
    let release = () => {};
    const first = a.run(async () => {
      order.push("a start");
      await new Promise<void>((resolve) => release = resolve);
      order.push("a end");
    });
    const second = b.run(() => {
      order.push("b");
      return Promise.resolve();
    });
    await other.run(() => {
      order.push("other");
      return Promise.resolve();
    });
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, ["a start", "other", "a end", "b"]);
    for (const lock of [a, b, other]) lock.release();
    assert.equal(await a.run(() => Promise.resolve("unlocked")), "unlocked");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
