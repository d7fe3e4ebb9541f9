import assert from "node:assert/strict";
import { decodeCri, encodeCri } from "../../../../nodeagent/runtime/cri/cri_messages.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");

Deno.test("encodeCri() uses the field numbers of cri-api's api.proto", async (t) => {
  // Expected bytes written by hand from api.proto's field numbers and the protobuf wire format.
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "CheckpointContainerRequest",
      { containerId: "c1", location: "/x", timeout: 5 },
      "0a 02 63 31 12 02 2f 78 18 05",
    ],
    ["ContainerStatusRequest", { containerId: "c1", verbose: true }, "0a 02 63 31 10 01"],
    ["StopContainerRequest", { containerId: "c", timeout: 30 }, "0a 01 63 10 1e"],
    ["VersionRequest", { version: "v1" }, "0a 02 76 31"],
    [
      "ListContainersRequest",
      { filter: { podSandboxId: "p" } },
      "0a 03 1a 01 70",
    ],
  ];
  for (const [name, value, want] of cases) {
    await t.step(name, () => assert.equal(hex(encodeCri(name, value)), want));
  }
});

Deno.test("decodeCri() reads enums by name, 64-bit times as strings, and skips unknown fields", () => {
  // ContainerStatus: id "a" (1), state CONTAINER_EXITED (3 = 2), started_at 5 (5), exit_code 1
  // (7), and an unknown field 99 (varint) a newer runtime might send.
  const bytes = new Uint8Array([
    0x0a,
    0x01,
    0x61,
    0x18,
    0x02,
    0x28,
    0x05,
    0x38,
    0x01,
    0x98,
    0x06,
    0x07,
  ]);
  const s = decodeCri<Record<string, unknown>>("ContainerStatus", bytes);
  assert.equal(s.id, "a");
  assert.equal(s.state, "CONTAINER_EXITED");
  assert.equal(s.startedAt, "5");
  assert.equal(s.exitCode, 1);
  assert.deepEqual(s.labels, {});
});
