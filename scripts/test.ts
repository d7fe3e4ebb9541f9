/**
 * Runs the whole test suite with `deno test`, then prints `N passed, N failed` as the last
 * line, counted from deno test's JUnit report. Extra arguments are passed to `deno test`
 * (for example a path to run one folder).
 */
const junitPath = ".test-results/junit.xml";
await Deno.mkdir(".test-results", { recursive: true });
await Deno.remove(junitPath).catch(() => {});
const args = Deno.args.length > 0 ? Deno.args : ["test/"];
const child = new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", "--parallel", `--junit-path=${junitPath}`, ...args],
  env: { DENO_JOBS: Deno.env.get("DENO_JOBS") ?? "2" },
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
const { code } = await child.status;

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const xml = await Deno.readTextFile(junitPath);
  for (const m of xml.matchAll(/<testcase\b[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = m[2] ?? "";
    if (/<failure\b/.test(body) || /<error\b/.test(body)) failed++;
    else if (/<skipped\b/.test(body)) skipped++;
    else passed++;
  }
} catch {
  // No report: the run failed before any test ran.
}
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
Deno.exit(code);
