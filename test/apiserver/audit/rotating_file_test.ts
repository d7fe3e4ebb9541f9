import assert from "node:assert/strict";
import { backupTime, RotatingFile } from "../../../apiserver/audit/rotating_file.ts";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("RotatingFile rotates past maxSizeMB and keeps maxBackups newest backups", async () => {
  const dir = await Deno.makeTempDir();
  try {
    let now = Date.parse("2026-01-02T03:04:05.678Z");
    const file = new RotatingFile({
      path: `${dir}/audit.log`,
      maxSizeMB: 1,
      maxBackups: 2,
      clock: () => now,
    });
    const line = "x".repeat(1023) + "\n"; // 1 KiB
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 700; i++) file.write(line); // 700 KiB: every second round rotates
      await file.flush();
      now += 1000;
    }
    await file.close();
    const files = await names(dir);
    assert.equal(files.length, 3, files.join(","));
    assert.ok(files.includes("audit.log"));
    const backups = files.filter((f) => f !== "audit.log");
    for (const b of backups) assert.match(b, /^audit-2026-01-02T03-04-0\d\.678\.log$/);
    // The first backup (oldest) was pruned: kept are the two newest.
    assert.ok(!backups.includes(`audit-${backupTime(Date.parse("2026-01-02T03:04:06.678Z"))}.log`));
    const size = (await Deno.stat(`${dir}/audit.log`)).size;
    assert.ok(size <= 1024 * 1024, `${size}`);
    assert.equal((await Deno.stat(`${dir}/audit.log`)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RotatingFile removes backups older than maxAgeDays", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const old = `${dir}/audit-${backupTime(Date.parse("2020-01-01T00:00:00Z"))}.log`;
    await Deno.writeTextFile(old, "old\n");
    await Deno.writeTextFile(`${dir}/audit-notatime.log`, "kept\n");
    const file = new RotatingFile({ path: `${dir}/audit.log`, maxSizeMB: 1, maxAgeDays: 7 });
    file.write("a".repeat(1024 * 1024 - 1) + "\n");
    file.write("b\n"); // rotates
    await file.close();
    const files = await names(dir);
    assert.ok(!files.includes(old.slice(dir.length + 1)), files.join(","));
    assert.ok(files.includes("audit-notatime.log"));
    assert.equal(files.length, 3);
    assert.equal(await Deno.readTextFile(`${dir}/audit.log`), "b\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RotatingFile appends to an existing file and counts its size", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/a.log`, "first\n");
    const file = new RotatingFile({ path: `${dir}/a.log` });
    file.write("second\n");
    await file.close();
    assert.equal(await Deno.readTextFile(`${dir}/a.log`), "first\nsecond\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
