import assert from "node:assert/strict";
import {
  ClusterIpAddresses,
  type IpCommand,
  SERVICE_DEVICE,
} from "../../../nodeagent/proxy/cluster_ip_addresses.ts";

function fakeIp(dummy: boolean): { ip: IpCommand; calls: string[] } {
  const calls: string[] = [];
  const ip: IpCommand = (args) => {
    calls.push(args.join(" "));
    if (args[0] === "link" && args[1] === "add" && !dummy) {
      return Promise.resolve({ ok: false, stderr: "Error: Unknown device type." });
    }
    return Promise.resolve({ ok: true, stderr: "" });
  };
  return { ip, calls };
}

Deno.test("ClusterIpAddresses assigns cluster IPs to its dummy interface and deletes it on close", async () => {
  const { ip, calls } = fakeIp(true);
  const a = new ClusterIpAddresses({ ip });
  assert.deepEqual([...await a.sync(new Set(["10.96.0.10", "fd00::a"]))], [
    "10.96.0.10",
    "fd00::a",
  ]);
  assert.deepEqual([...await a.sync(new Set(["10.96.0.10"]))], ["10.96.0.10"]);
  await a.close();
  assert.deepEqual(calls, [
    `link add ${SERVICE_DEVICE} type dummy`,
    `link set ${SERVICE_DEVICE} up`,
    `addr add 10.96.0.10/32 dev ${SERVICE_DEVICE}`,
    `addr add fd00::a/128 dev ${SERVICE_DEVICE}`,
    `addr del fd00::a/128 dev ${SERVICE_DEVICE}`,
    `link del ${SERVICE_DEVICE}`,
  ]);
});

Deno.test("ClusterIpAddresses falls back to lo without dummy interfaces and removes only its addresses", async () => {
  const { ip, calls } = fakeIp(false);
  const a = new ClusterIpAddresses({ ip });
  await a.sync(new Set(["10.96.0.10"]));
  assert.equal(a.device, "lo");
  await a.close();
  assert.deepEqual(calls, [
    `link add ${SERVICE_DEVICE} type dummy`,
    "addr add 10.96.0.10/32 dev lo",
    "addr del 10.96.0.10/32 dev lo",
  ]);
});
