import assert from "node:assert/strict";
import { EndpointPicker } from "../../../nodeagent/proxy/endpoint_picker.ts";
import type { ServicePortRule } from "../../../nodeagent/proxy/proxy_table.ts";

const EPS = [{ ip: "10.0.0.1", port: 80 }, { ip: "10.0.0.2", port: 80 }];
const rule = (affinitySeconds?: number): ServicePortRule => ({
  name: "default/web:",
  protocol: "TCP",
  clusterIPs: ["10.96.0.1"],
  port: 80,
  endpoints: EPS,
  ...(affinitySeconds === undefined ? {} : { affinitySeconds }),
});

Deno.test("EndpointPicker.pick() spreads at random and skips excluded endpoints", () => {
  let r = 0;
  const picker = new EndpointPicker({ random: () => r });
  assert.deepEqual(picker.pick(rule(), "1.1.1.1"), EPS[0]);
  r = 0.99;
  assert.deepEqual(picker.pick(rule(), "1.1.1.1"), EPS[1]);
  assert.deepEqual(picker.pick(rule(), "1.1.1.1", [EPS[1]]), EPS[0]);
  assert.equal(picker.pick(rule(), "1.1.1.1", EPS), undefined);
  assert.equal(picker.pick({ ...rule(), endpoints: [] }, "1.1.1.1"), undefined);
});

Deno.test("EndpointPicker.pick() keeps a client on its endpoint within the affinity timeout", () => {
  let now = 0;
  let r = 0;
  const picker = new EndpointPicker({ now: () => now, random: () => r });
  assert.deepEqual(picker.pick(rule(10), "1.1.1.1"), EPS[0]);
  r = 0.99;
  now = 9_000;
  assert.deepEqual(picker.pick(rule(10), "1.1.1.1"), EPS[0], "sticky");
  assert.deepEqual(picker.pick(rule(10), "2.2.2.2"), EPS[1], "another client");
  now = 9_000 + 10_001;
  assert.deepEqual(picker.pick(rule(10), "1.1.1.1"), EPS[1], "expired");
  // A gone endpoint is not kept.
  r = 0;
  assert.deepEqual(picker.pick({ ...rule(10), endpoints: [EPS[0]] }, "1.1.1.1"), EPS[0]);
  picker.prune(new Set());
  r = 0.99;
  assert.deepEqual(picker.pick(rule(10), "1.1.1.1"), EPS[1], "pruned");
});
