import assert from "node:assert/strict";
import {
  type Backoff,
  crashLoopMessage,
  goDuration,
  inBackoff,
  nextBackoff,
} from "../../../nodeagent/pods/restart_backoff.ts";

Deno.test("nextBackoff() starts at 10 s and doubles to 5 min", () => {
  let b: Backoff | undefined;
  const seen: string[] = [];
  let t = 0;
  for (let i = 0; i < 7; i++) {
    b = nextBackoff(b, t, t);
    seen.push(goDuration(b.ms));
    t += b.ms;
  }
  assert.deepEqual(seen, ["10s", "20s", "40s", "1m20s", "2m40s", "5m0s", "5m0s"]);
});

Deno.test("nextBackoff() starts over when the crash comes 10 min after the last restart", () => {
  const b = { ms: 160_000, lastUpdate: 0 };
  assert.equal(nextBackoff(b, 600_000, 600_000).ms, 300_000);
  assert.equal(nextBackoff(b, 600_001, 600_001).ms, 10_000);
});

Deno.test("inBackoff() holds until the wait since the crash has passed", () => {
  const b = { ms: 10_000, lastUpdate: 0 };
  assert.equal(inBackoff(undefined, 0, 0), false);
  assert.equal(inBackoff(b, 1_000, 10_999), true);
  assert.equal(inBackoff(b, 1_000, 11_000), false);
});

Deno.test("crashLoopMessage() words the waiting message as the kubelet does", () => {
  assert.equal(
    crashLoopMessage({ ms: 20_000, lastUpdate: 0 }, "app", {
      name: "p",
      namespace: "ns",
      uid: "u",
    }),
    "back-off 20s restarting failed container=app pod=p_ns(u)",
  );
});
