import assert from "node:assert/strict";
import { statusNeedsWrite } from "../../../nodeagent/status/status_needs_write.ts";
import type { NodeCondition } from "../../../nodeagent/status/node_conditions.ts";

const cond = (status: "True" | "False", hb: string): NodeCondition => ({
  type: "Ready",
  status,
  reason: "r",
  message: "m",
  lastHeartbeatTime: hb,
  lastTransitionTime: "2026-01-01T00:00:00Z",
});

Deno.test("statusNeedsWrite() writes on change or after the report frequency", async (t) => {
  const last = { status: { conditions: [cond("True", "a")], rest: { cpu: "2" } }, at: 0 };
  const cases: [string, Parameters<typeof statusNeedsWrite>[1], number, boolean][] = [
    ["first write", last.status, 0, true],
    [
      "only heartbeat moved",
      { conditions: [cond("True", "b")], rest: { cpu: "2" } },
      10_000,
      false,
    ],
    ["status changed", { conditions: [cond("False", "b")], rest: { cpu: "2" } }, 10_000, true],
    ["capacity changed", { conditions: [cond("True", "b")], rest: { cpu: "4" } }, 10_000, true],
    [
      "report frequency passed",
      { conditions: [cond("True", "b")], rest: { cpu: "2" } },
      300_000,
      true,
    ],
  ];
  for (const [name, next, now, want] of cases) {
    await t.step(name, () => {
      const prev = name === "first write" ? undefined : last;
      assert.equal(statusNeedsWrite(prev, next, now, 300_000), want);
    });
  }
});
