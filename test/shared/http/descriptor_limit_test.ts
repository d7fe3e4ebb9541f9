import assert from "node:assert/strict";
import { readDescriptorLimit } from "../../../shared/http/descriptor_limit.ts";

Deno.test("raiseDescriptorLimit() raises the soft limit on open files to the hard one", async () => {
  if (Deno.build.os !== "linux") return;
  // A child whose soft limit is lower than its hard one (the deno command would raise it
  // itself before running anything, so the child lowers it and raises it again).
  const code = `
    import { raiseDescriptorLimit, readDescriptorLimit } from ${
    JSON.stringify(new URL("../../../shared/http/descriptor_limit.ts", import.meta.url).href)
  };
    const lib = Deno.dlopen("libc.so.6", {
      setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
    });
    const { hard } = readDescriptorLimit();
    const lowered = new BigUint64Array([256n, BigInt(hard)]);
    lib.symbols.setrlimit(7, new Uint8Array(lowered.buffer));
    const before = readDescriptorLimit();
    const after = raiseDescriptorLimit();
    console.log(JSON.stringify({ before, after }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const { before, after } = JSON.parse(text);
  assert.equal(before.soft, 256);
  assert.equal(after.soft, after.hard);
  assert.ok(after.hard > 256);
});

Deno.test("readDescriptorLimit() reads the limits from /proc", () => {
  if (Deno.build.os !== "linux") return;
  const limit = readDescriptorLimit();
  assert.ok(limit && limit.soft > 0 && limit.hard >= limit.soft);
});
