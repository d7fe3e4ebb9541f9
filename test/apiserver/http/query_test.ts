import assert from "node:assert/strict";
import {
  parseBool,
  parseGetOptions,
  parseInt64,
  parseListOptions,
} from "../../../apiserver/http/query.ts";
import { supportedFieldLabels } from "../../../shared/selectors/field_selector.ts";
import { assertThrowsStatus } from "../../support/assert_throws_status.ts";

function q(s: string): URLSearchParams {
  return new URLSearchParams(s);
}

Deno.test("parseBool() reads query booleans as Kubernetes does", async (t) => {
  const cases: [string | null, boolean][] = [
    [null, false],
    ["", true],
    ["true", true],
    ["True", true],
    ["1", true],
    ["yes", true],
    ["anything", true],
    ["0", false],
    ["false", false],
    ["False", false],
    ["FALSE", false],
  ];
  for (const [v, want] of cases) {
    await t.step(String(v), () => assert.equal(parseBool(v), want));
  }
  await t.step("bare ?watch", () => assert.equal(parseBool(q("watch").get("watch")), true));
});

Deno.test("parseInt64() accepts Go's syntax and rejects the rest with Go's message", async (t) => {
  const ok: [string, number][] = [["0", 0], ["500", 500], ["+5", 5], ["-3", -3], ["007", 7]];
  for (const [v, want] of ok) await t.step(v, () => assert.equal(parseInt64(v), want));
  const bad: [string, string][] = [
    ["", 'strconv.ParseInt: parsing "": invalid syntax'],
    ["abc", 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ["1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ["0.1s", 'strconv.ParseInt: parsing "0.1s": invalid syntax'],
    ["1_000", 'strconv.ParseInt: parsing "1_000": invalid syntax'],
    ["9223372036854775808", 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
  ];
  for (const [v, msg] of bad) {
    await t.step(JSON.stringify(v), () => assertThrowsStatus(() => parseInt64(v), 400, msg));
  }
});

Deno.test("parseListOptions() returns typed options", () => {
  const opts = parseListOptions(q(
    "labelSelector=app%3Dweb&fieldSelector=metadata.name%3Da&resourceVersion=5&resourceVersionMatch=NotOlderThan&limit=10&timeoutSeconds=30&allowWatchBookmarks&limit=20",
  ));
  assert.equal(opts.labelSelector, "app=web");
  assert.equal(opts.labels.toString(), "app=web");
  assert.equal(opts.fieldSelector, "metadata.name=a");
  assert.equal(opts.fields.exactMatch("metadata.name"), "a");
  assert.equal(opts.resourceVersion, "5");
  assert.equal(opts.resourceVersionMatch, "NotOlderThan");
  assert.equal(opts.limit, 10);
  assert.equal(opts.timeoutSeconds, 30);
  assert.equal(opts.allowWatchBookmarks, true);
  assert.equal(opts.watch, false);
  assert.equal(opts.continue, "");
  assert.equal(opts.sendInitialEvents, undefined);
});

Deno.test("parseListOptions() defaults an empty query", () => {
  const opts = parseListOptions(q(""));
  assert.equal(opts.labels.empty(), true);
  assert.equal(opts.fields.empty(), true);
  assert.equal(opts.limit, 0);
  assert.equal(opts.timeoutSeconds, undefined);
  assert.equal(opts.watch, false);
});

Deno.test("parseListOptions() reads watch flags", async (t) => {
  await t.step("bare watch", () => assert.equal(parseListOptions(q("watch")).watch, true));
  await t.step("watch=1", () => assert.equal(parseListOptions(q("watch=1")).watch, true));
  await t.step("watch=false", () => assert.equal(parseListOptions(q("watch=false")).watch, false));
  await t.step("forced by path", () => {
    assert.equal(parseListOptions(q(""), { forceWatch: true }).watch, true);
  });
  await t.step("WatchList defaults", () => {
    const opts = parseListOptions(q("watch=1"), { watchListEnabled: true });
    assert.equal(opts.sendInitialEvents, true);
    assert.equal(opts.resourceVersionMatch, "NotOlderThan");
    const exact = parseListOptions(q("watch=1&resourceVersion=7"), { watchListEnabled: true });
    assert.equal(exact.sendInitialEvents, undefined);
  });
  await t.step("sendInitialEvents with the gate", () => {
    const opts = parseListOptions(
      q("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"),
      { watchListEnabled: true },
    );
    assert.equal(opts.sendInitialEvents, true);
  });
});

const INVALID = 'ListOptions.meta.k8s.io "" is invalid: ';

Deno.test("parseListOptions() rejects bad values with Kubernetes' status", async (t) => {
  const cases: [string, number, string][] = [
    ["limit=abc", 400, 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ["timeoutSeconds=0.1s", 400, 'strconv.ParseInt: parsing "0.1s": invalid syntax'],
    [
      "labelSelector=a%20b",
      400,
      "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
    ],
    ["fieldSelector=a", 400, "invalid selector: 'a'; can't understand 'a'"],
    [
      "resourceVersionMatch=Exact",
      422,
      INVALID +
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
    ],
    [
      "resourceVersionMatch=NotOlderThan",
      422,
      INVALID +
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
    ],
    [
      "resourceVersion=0&resourceVersionMatch=Exact",
      422,
      INVALID +
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    [
      "resourceVersion=5&resourceVersionMatch=Foo",
      422,
      INVALID +
      'resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""',
    ],
    [
      "resourceVersion=5&resourceVersionMatch=Exact&continue=abc",
      422,
      INVALID +
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided",
    ],
    [
      "resourceVersionMatch=Exact&continue=abc",
      422,
      INVALID +
      "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]",
    ],
    [
      "sendInitialEvents=true",
      422,
      INVALID + "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list",
    ],
    [
      "watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=1",
      422,
      INVALID +
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
    ],
    [
      "watch=1&sendInitialEvents=true",
      422,
      INVALID +
      "[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled]",
    ],
    [
      "watch=1&sendInitialEvents=true&resourceVersionMatch=Exact",
      422,
      INVALID +
      '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
  ];
  for (const [query, code, message] of cases) {
    await t.step(query, () => assertThrowsStatus(() => parseListOptions(q(query)), code, message));
  }
});

Deno.test("parseListOptions() checks field labels with the kind's converter", () => {
  const fieldLabels = supportedFieldLabels(["metadata.name", "spec.nodeName"], {
    "spec.host": "spec.nodeName",
  });
  const opts = parseListOptions(q("fieldSelector=spec.host%3Dn1"), { fieldLabels });
  assert.equal(opts.fields.toString(), "spec.nodeName=n1");
  assertThrowsStatus(
    () => parseListOptions(q("fieldSelector=spec.foo%3D1"), { fieldLabels }),
    400,
    "field label not supported: spec.foo",
  );
});

Deno.test("parseGetOptions() reads resourceVersion", () => {
  assert.deepEqual(parseGetOptions(q("")), { resourceVersion: "" });
  assert.deepEqual(parseGetOptions(q("resourceVersion=0")), { resourceVersion: "0" });
  assert.deepEqual(parseGetOptions(q("resourceVersion=12&pretty=true")), {
    resourceVersion: "12",
  });
});
