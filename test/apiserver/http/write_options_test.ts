import assert from "node:assert/strict";
import { parseDeleteOptions, parseWriteQuery } from "../../../apiserver/http/write_options.ts";
import { assertThrowsStatus } from "../../support/assert_throws_status.ts";

Deno.test("parseWriteQuery() reads dryRun, fieldValidation and fieldManager", async (t) => {
  const cases: [string, string, ReturnType<typeof parseWriteQuery>][] = [
    ["defaults", "", { dryRun: false, fieldValidation: "Warn", fieldManager: undefined }],
    ["dryRun=All", "dryRun=All", {
      dryRun: true,
      fieldValidation: "Warn",
      fieldManager: undefined,
    }],
    ["bare dryRun is not a dry run", "dryRun", {
      dryRun: false,
      fieldValidation: "Warn",
      fieldManager: undefined,
    }],
    ["dryRun repeated", "dryRun=&dryRun=All", {
      dryRun: true,
      fieldValidation: "Warn",
      fieldManager: undefined,
    }],
    ["Strict", "fieldValidation=Strict", {
      dryRun: false,
      fieldValidation: "Strict",
      fieldManager: undefined,
    }],
    ["Ignore", "fieldValidation=Ignore", {
      dryRun: false,
      fieldValidation: "Ignore",
      fieldManager: undefined,
    }],
    ["empty fieldValidation is Warn", "fieldValidation=", {
      dryRun: false,
      fieldValidation: "Warn",
      fieldManager: undefined,
    }],
    ["fieldManager", "fieldManager=kubectl-client-side-apply", {
      dryRun: false,
      fieldValidation: "Warn",
      fieldManager: "kubectl-client-side-apply",
    }],
    ["fieldManager of 128 bytes", `fieldManager=${"m".repeat(128)}`, {
      dryRun: false,
      fieldValidation: "Warn",
      fieldManager: "m".repeat(128),
    }],
  ];
  for (const [name, query, want] of cases) {
    await t.step(name, () => assert.deepEqual(parseWriteQuery(new URLSearchParams(query)), want));
  }
});

Deno.test("parseWriteQuery() rejects invalid values with 400", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["dryRun=true", "dryRun=true", /Invalid dryRun value: "true". Must be one of "All"/],
    ["dryRun=all", "dryRun=all", /Invalid dryRun value/],
    ["fieldValidation=strict", "fieldValidation=strict", /Invalid fieldValidation value/],
    ["fieldManager too long", `fieldManager=${"m".repeat(129)}`, /at most 128 bytes/],
  ];
  for (const [name, query, message] of cases) {
    await t.step(
      name,
      () =>
        assertThrowsStatus(
          () => parseWriteQuery(new URLSearchParams(query)),
          400,
          message,
          "BadRequest",
        ),
    );
  }
});

Deno.test("parseDeleteOptions() merges the body and the query, the query winning", async (t) => {
  const cases: [string, unknown, string, unknown][] = [
    ["nothing", undefined, "", {}],
    [
      "body only",
      {
        kind: "DeleteOptions",
        apiVersion: "v1",
        gracePeriodSeconds: 5,
        preconditions: { uid: "u" },
      },
      "",
      {
        kind: "DeleteOptions",
        apiVersion: "v1",
        gracePeriodSeconds: 5,
        preconditions: { uid: "u" },
      },
    ],
    ["query grace wins", { gracePeriodSeconds: 5 }, "gracePeriodSeconds=0", {
      gracePeriodSeconds: 0,
    }],
    ["negative grace", undefined, "gracePeriodSeconds=-1", { gracePeriodSeconds: -1 }],
    ["propagationPolicy", undefined, "propagationPolicy=Foreground", {
      propagationPolicy: "Foreground",
    }],
    ["orphanDependents=false", undefined, "orphanDependents=false", { orphanDependents: false }],
    ["orphanDependents=true", undefined, "orphanDependents=true", { orphanDependents: true }],
    ["body without kind", { propagationPolicy: "Orphan" }, "", { propagationPolicy: "Orphan" }],
  ];
  for (const [name, body, query, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(parseDeleteOptions(body, new URLSearchParams(query)), want);
    });
  }
  await t.step("the body is not changed", () => {
    const body = { gracePeriodSeconds: 5 };
    parseDeleteOptions(body, new URLSearchParams("gracePeriodSeconds=1"));
    assert.deepEqual(body, { gracePeriodSeconds: 5 });
  });
});

Deno.test("parseDeleteOptions() rejects malformed options with 400", async (t) => {
  const cases: [string, unknown, string, RegExp][] = [
    ["array body", [], "", /must be a DeleteOptions object/],
    ["string body", "x", "", /must be a DeleteOptions object/],
    ["null body", null, "", /must be a DeleteOptions object/],
    ["another kind", { kind: "Pod" }, "", /expected DeleteOptions, got Pod/],
    ["non-integer grace", undefined, "gracePeriodSeconds=1.5", /invalid gracePeriodSeconds/],
    ["word grace", undefined, "gracePeriodSeconds=soon", /invalid gracePeriodSeconds/],
    ["string grace in the body", { gracePeriodSeconds: "5" }, "", /must be an integer/],
    ["fractional grace in the body", { gracePeriodSeconds: 1.5 }, "", /must be an integer/],
  ];
  for (const [name, body, query, message] of cases) {
    await t.step(name, () => {
      assertThrowsStatus(
        () => parseDeleteOptions(body, new URLSearchParams(query)),
        400,
        message,
        "BadRequest",
      );
    });
  }
});
