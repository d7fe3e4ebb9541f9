import assert from "node:assert/strict";
import {
  countCpuList,
  parseLoadavgTasks,
  parseMeminfo,
  readHostReadings,
} from "../../../nodeagent/status/read_host_readings.ts";
import { filesystemStats, parseDfLine } from "../../../nodeagent/status/filesystem_stats.ts";
import { goArch, osImageFrom, readNodeInfo } from "../../../nodeagent/status/node_info.ts";

Deno.test("countCpuList() counts CPU ranges", () => {
  assert.equal(countCpuList("0-3,6,8-9\n"), 7);
  assert.equal(countCpuList("0"), 1);
});

Deno.test("parseMeminfo() and parseLoadavgTasks() read /proc formats", () => {
  const m = parseMeminfo(
    "MemTotal:       24684084 kB\nMemAvailable:   100 kB\nHugePages_Total:       0\n",
  );
  assert.deepEqual(m, { MemTotal: 24684084 * 1024, MemAvailable: 102400, HugePages_Total: 0 });
  assert.equal(parseLoadavgTasks("0.56 0.21 0.08 2/102 9003\n"), 102);
  assert.throws(() => parseLoadavgTasks("garbage"), SyntaxError);
});

Deno.test("parseDfLine() reads POSIX df output, even with spaces in names", () => {
  assert.deepEqual(parseDfLine("/dev/vda 270553174016 23664234496 85280059392 22% /"), [
    270553174016,
    23664234496,
    85280059392,
  ]);
  assert.deepEqual(parseDfLine("my disk 10 4 6 40% /mnt/a b"), [10, 4, 6]);
  assert.throws(() => parseDfLine("nothing here"), SyntaxError);
});

Deno.test("filesystemStats() agrees between statvfs and df", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ffi = await filesystemStats(dir);
    const df = await filesystemStats(dir, { ffi: false });
    assert.ok(ffi.capacityBytes > 0);
    assert.equal(ffi.capacityBytes, df.capacityBytes);
    assert.ok(ffi.availableBytes <= ffi.capacityBytes);
    assert.equal(ffi.inodes, df.inodes);
  } finally {
    await Deno.remove(dir);
  }
});

Deno.test("readHostReadings() reads this host", async () => {
  const r = await readHostReadings("/");
  assert.ok(r.cpuCount >= 1);
  assert.ok(r.memoryTotalBytes > r.memoryAvailableBytes && r.memoryAvailableBytes > 0);
  assert.ok(r.pidMax > r.processCount && r.processCount > 0);
  assert.ok(r.rootFs.capacityBytes > 0);
});

Deno.test("readNodeInfo() reports the kubelet's nodeInfo fields", async () => {
  const info = await readNodeInfo({
    containerRuntimeVersion: "process://1",
    agentVersion: "v1.32.0",
  });
  assert.equal(info.operatingSystem, "linux");
  assert.equal(info.architecture, goArch());
  assert.equal(info.kubeletVersion, "v1.32.0");
  assert.ok(info.kernelVersion.length > 0);
  assert.equal(
    osImageFrom('NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'),
    "Debian GNU/Linux 12 (bookworm)",
  );
  assert.equal(goArch("x86_64"), "amd64");
  assert.equal(goArch("aarch64"), "arm64");
});
