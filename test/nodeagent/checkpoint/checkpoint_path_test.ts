import assert from "node:assert/strict";
import { checkpointArchivePath } from "../../../nodeagent/checkpoint/checkpoint_path.ts";

Deno.test("checkpointArchivePath() names the archive like the kubelet", () => {
  const at = Date.UTC(2024, 1, 29, 18, 28, 17, 456);
  assert.equal(
    checkpointArchivePath("/var/lib/nodeagent/", {
      namespace: "default",
      pod: "counter-ddbdd9dd6-m59ds",
      container: "counter",
    }, at),
    "/var/lib/nodeagent/checkpoints/checkpoint-counter-ddbdd9dd6-m59ds_default-counter-2024-02-29T18:28:17Z.tar",
  );
});

Deno.test("checkpointArchivePath() rejects names that could escape the directory", async (t) => {
  const bad: [string, string, string][] = [
    ["..", "p", "c"],
    ["default", "../../etc", "c"],
    ["default", "p", "c/../../x"],
    ["default", "p", ""],
    ["Default", "p", "c"],
    ["default", ".hidden", "c"],
  ];
  for (const [namespace, pod, container] of bad) {
    await t.step(`${namespace}/${pod}/${container}`, () => {
      assert.throws(
        () => checkpointArchivePath("/r", { namespace, pod, container }, 0),
        RangeError,
      );
    });
  }
});
