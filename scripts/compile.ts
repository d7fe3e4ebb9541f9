/**
 * Compiles both executables into `dist/` with `deno compile`.
 *
 * `deno compile` needs Deno's runtime binary (`denort`). On machines that cannot download it
 * (air-gapped), point `DENORT_BIN` at a local copy: Deno itself honours that variable.
 */
const targets = [
  {
    entry: "cmd/apiserver.ts",
    output: "dist/apiserver",
    // Worker modules are not followed by deno compile; list them here.
    include: ["apiserver/storage/libsql/write_worker.ts", "apiserver/http/yaml_worker.ts"],
  },
  { entry: "cmd/nodeagent.ts", output: "dist/nodeagent", include: [] as string[] },
];
if (!Deno.env.get("DENORT_BIN")) {
  console.error(
    "note: DENORT_BIN is not set; deno compile will try to download denort, which fails on " +
      "air-gapped machines. Set DENORT_BIN=/path/to/denort to use a local copy.",
  );
}
await Deno.mkdir("dist", { recursive: true });
let failed = false;
for (const t of targets) {
  try {
    await Deno.stat(t.entry);
  } catch {
    console.error(`skip ${t.entry}: not present`);
    continue;
  }
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: [
      "compile",
      "-A",
      ...t.include.flatMap((f) => ["--include", f]),
      "--output",
      t.output,
      t.entry,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) failed = true;
  else console.log(`built ${t.output}`);
}
Deno.exit(failed ? 1 : 0);
