import assert from "node:assert/strict";
import {
  FIELD_MANAGER_MAX_LENGTH,
  managerOrUserAgent,
} from "../../../apiserver/fieldmanager/manager_name.ts";

Deno.test("managerOrUserAgent() names the manager from fieldManager or the User-Agent", async (t) => {
  const cases: [string, string | undefined, string | null | undefined, string][] = [
    ["fieldManager wins", "mine", "kubectl/v1.32.0 (linux/amd64)", "mine"],
    ["User-Agent up to its first slash", undefined, "kubectl/v1.32.0 (linux/amd64)", "kubectl"],
    ["no slash", undefined, "Mozilla", "Mozilla"],
    ["no User-Agent", undefined, null, ""],
    ["long ASCII is cut at 128", undefined, "a".repeat(200), "a".repeat(FIELD_MANAGER_MAX_LENGTH)],
    ["non-ASCII kept", undefined, "h\u00e9llo w\u00f6rld/1", "h\u00e9llo w\u00f6rld"],
    ["control characters dropped", undefined, "a\u0001b\tc/1", "abc"],
    ["cut by bytes, not characters", undefined, "\u00e9".repeat(100), "\u00e9".repeat(64)],
  ];
  for (const [name, fm, ua, want] of cases) {
    await t.step(name, () => assert.equal(managerOrUserAgent(fm, ua), want));
  }
  await t.step("every printable ASCII character is kept", () => {
    for (let c = 0x20; c <= 0x7e; c++) {
      const ch = String.fromCharCode(c);
      if (ch === "/") continue;
      assert.equal(managerOrUserAgent(undefined, `x${ch}y`), `x${ch}y`);
    }
  });
});
