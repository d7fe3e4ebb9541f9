import assert from "node:assert/strict";
import { type ListPlan, pageLimit, planGet, planList } from "../../../apiserver/http/list_plan.ts";
import { parseListOptions } from "../../../apiserver/http/query.ts";
import { encodeContinue } from "../../../apiserver/registry/generic/continue_token.ts";
import { assertThrowsStatus } from "../../support/assert_throws_status.ts";

const TOKEN = encodeContinue(42, "ns/b\u0000");
const STALE_TOKEN = encodeContinue(-1, "ns/c\u0000");
const INVALID = 'ListOptions.meta.k8s.io "" is invalid: ';
const CONTINUE_RV_400 = "specifying resource version is not allowed when using continue";

function plan(query: string): ListPlan {
  return planList(parseListOptions(new URLSearchParams(query)));
}

Deno.test("planGet() implements the get table", async (t) => {
  await t.step("unset: Most Recent", () => {
    assert.deepEqual(planGet({ resourceVersion: "" }), { mode: "latest" });
  });
  await t.step(
    "0: Any",
    () => assert.deepEqual(planGet({ resourceVersion: "0" }), { mode: "any" }),
  );
  await t.step("other: Not older than", () => {
    assert.deepEqual(planGet({ resourceVersion: "17" }), { mode: "notOlderThan", revision: 17 });
  });
  await t.step("unparsable: 400", () => {
    assertThrowsStatus(
      () => planGet({ resourceVersion: "abc" }),
      400,
      'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    );
  });
});

Deno.test("planList() implements every row of the list table", async (t) => {
  type Row = [string, string, ListPlan | [number, string]];
  const rows: Row[] = [
    // resourceVersionMatch unset, limit unset
    ["unset / no limit / rv unset: Most Recent", "", { mode: "latest" }],
    ["unset / no limit / rv 0: Any", "resourceVersion=0", { mode: "any" }],
    ["unset / no limit / rv 5: Not older than", "resourceVersion=5", {
      mode: "notOlderThan",
      revision: 5,
    }],
    // resourceVersionMatch unset, limit=n, no continue
    ["unset / limit / rv unset: Most Recent", "limit=2", { mode: "latest" }],
    ["unset / limit / rv 0: Any", "limit=2&resourceVersion=0", { mode: "any" }],
    ["unset / limit / rv 5: Exact", "limit=2&resourceVersion=5", { mode: "exact", revision: 5 }],
    // resourceVersionMatch unset, limit=n, continue=token
    ["unset / continue / rv unset: Continue Token, Exact", `limit=2&continue=${TOKEN}`, {
      mode: "continue",
      revision: 42,
      startKeySuffix: "ns/b\u0000",
    }],
    [
      "unset / continue / rv 0: treated as Continue Token, Exact",
      `limit=2&continue=${TOKEN}&resourceVersion=0`,
      { mode: "continue", revision: 42, startKeySuffix: "ns/b\u0000" },
    ],
    [
      "unset / continue / rv 5: 400",
      `limit=2&continue=${TOKEN}&resourceVersion=5`,
      [400, CONTINUE_RV_400],
    ],
    // Exact
    ["Exact / no limit / rv unset: invalid", "resourceVersionMatch=Exact", [
      422,
      INVALID +
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
    ]],
    ["Exact / no limit / rv 0: invalid", "resourceVersionMatch=Exact&resourceVersion=0", [
      422,
      INVALID +
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ]],
    ["Exact / no limit / rv 5: Exact", "resourceVersionMatch=Exact&resourceVersion=5", {
      mode: "exact",
      revision: 5,
    }],
    ["Exact / limit / rv unset: invalid", "limit=2&resourceVersionMatch=Exact", [
      422,
      INVALID +
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
    ]],
    ["Exact / limit / rv 0: invalid", "limit=2&resourceVersionMatch=Exact&resourceVersion=0", [
      422,
      INVALID +
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ]],
    ["Exact / limit / rv 5: Exact", "limit=2&resourceVersionMatch=Exact&resourceVersion=5", {
      mode: "exact",
      revision: 5,
    }],
    // NotOlderThan
    ["NotOlderThan / no limit / rv unset: invalid", "resourceVersionMatch=NotOlderThan", [
      422,
      INVALID +
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
    ]],
    [
      "NotOlderThan / no limit / rv 0: Any",
      "resourceVersionMatch=NotOlderThan&resourceVersion=0",
      { mode: "any" },
    ],
    [
      "NotOlderThan / no limit / rv 5: Not older than",
      "resourceVersionMatch=NotOlderThan&resourceVersion=5",
      { mode: "notOlderThan", revision: 5 },
    ],
    ["NotOlderThan / limit / rv unset: invalid", "limit=2&resourceVersionMatch=NotOlderThan", [
      422,
      INVALID +
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
    ]],
    [
      "NotOlderThan / limit / rv 0: Any",
      "limit=2&resourceVersionMatch=NotOlderThan&resourceVersion=0",
      { mode: "any" },
    ],
    [
      "NotOlderThan / limit / rv 5: Not older than",
      "limit=2&resourceVersionMatch=NotOlderThan&resourceVersion=5",
      { mode: "notOlderThan", revision: 5 },
    ],
  ];
  for (const [name, query, want] of rows) {
    await t.step(name, () => {
      if (Array.isArray(want)) {
        const [code, message] = want;
        assertThrowsStatus(() => plan(query), code, message);
      } else {
        assert.deepEqual(plan(query), want);
      }
    });
  }
});

Deno.test("planList() handles continue tokens and bad versions", async (t) => {
  await t.step("rv=-1 token continues at the latest revision", () => {
    assert.deepEqual(plan(`limit=2&continue=${STALE_TOKEN}`), {
      mode: "continue",
      revision: -1,
      startKeySuffix: "ns/c\u0000",
    });
  });
  await t.step("continue without limit", () => {
    assert.equal(plan(`continue=${TOKEN}`).mode, "continue");
  });
  await t.step("bad token: 400 before the resourceVersion check", () => {
    assertThrowsStatus(
      () => plan("limit=2&continue=!!&resourceVersion=5"),
      400,
      "invalid continue token: continue key is not valid: illegal base64 data at input byte 0",
    );
  });
  await t.step("unparsable rv on a store read: 400", () => {
    assertThrowsStatus(
      () => plan("limit=2&resourceVersion=abc"),
      400,
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    );
  });
  await t.step("unparsable rv on a cache read: 400", () => {
    assertThrowsStatus(
      () => plan("resourceVersion=-1"),
      400,
      'resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax',
    );
  });
  await t.step("rv out of range", () => {
    assertThrowsStatus(
      () => plan("resourceVersion=18446744073709551616"),
      400,
      'resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range',
    );
  });
  await t.step("a zero spelled 00 with Exact reads the latest state", () => {
    assert.deepEqual(plan("resourceVersionMatch=Exact&resourceVersion=00"), { mode: "latest" });
  });
});

Deno.test("pageLimit() ignores limit for resourceVersion=0 as the watch cache does", () => {
  const lim = (s: string) => pageLimit(parseListOptions(new URLSearchParams(s)));
  assert.equal(lim(""), undefined);
  assert.equal(lim("limit=0"), undefined);
  assert.equal(lim("limit=5"), 5);
  assert.equal(lim("limit=5&resourceVersion=0"), undefined);
  assert.equal(lim("limit=5&resourceVersion=7"), 5);
  assert.equal(lim(`limit=5&resourceVersion=0&continue=${TOKEN}`), 5);
});
