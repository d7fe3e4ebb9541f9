import assert from "node:assert/strict";
import { formatTime } from "../../../../../shared/api/meta/v1/time.ts";

Deno.test("formatTime() writes RFC 3339 in UTC to the second, as metav1.Time", async (t) => {
  const cases: [string, number, string][] = [
    ["whole second", Date.UTC(2026, 10, 22, 11, 0, 0), "2026-11-22T11:00:00Z"],
    ["milliseconds dropped", Date.UTC(2026, 10, 22, 11, 0, 0, 999), "2026-11-22T11:00:00Z"],
    ["the next second", Date.UTC(2026, 10, 22, 11, 0, 1, 1), "2026-11-22T11:00:01Z"],
    ["back to an earlier second", Date.UTC(2024, 1, 29, 18, 28, 17, 500), "2024-02-29T18:28:17Z"],
    ["the epoch", 0, "1970-01-01T00:00:00Z"],
  ];
  for (const [name, ms, want] of cases) {
    await t.step(name, () => assert.equal(formatTime(ms), want));
  }
});
