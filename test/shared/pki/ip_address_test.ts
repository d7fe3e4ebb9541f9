import assert from "node:assert/strict";
import { formatIpAddress, parseIpAddress } from "../../../shared/pki/ip_address.ts";

Deno.test("parseIpAddress() parses IPv4 and IPv6 and refuses the rest", async (t) => {
  const cases: [string, string | null][] = [
    ["127.0.0.1", "127.0.0.1"],
    ["::1", "::1"],
    ["fd00:0:0:0:0:0:0:7", "fd00::7"],
    ["::ffff:10.0.0.1", "::ffff:a00:1"],
    ["2001:db8::1:0:0:1", "2001:db8::1:0:0:1"],
    ["localhost", null],
    ["256.1.1.1", null],
    ["01.2.3.4", null],
    ["1::2::3", null],
    ["1:2:3:4:5:6:7:8:9", null],
  ];
  for (const [input, want] of cases) {
    await t.step(input, () => {
      const bytes = parseIpAddress(input);
      assert.equal(bytes ? formatIpAddress(bytes) : null, want);
    });
  }
});
