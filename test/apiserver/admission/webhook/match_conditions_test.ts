import assert from "node:assert/strict";
import type { CelAuthorizationAttributes } from "../../../../apiserver/cel/mod.ts";
import type { AdmissionAttributes } from "../../../../apiserver/registry/generic/admission.ts";
import type { KindDef } from "../../../../apiserver/registry/generic/kind.ts";
import {
  evaluateMatchConditions,
  type RequestCelAuthorizer,
} from "../../../../apiserver/admission/webhook/match_conditions.ts";
import {
  matchConditionEnvironment,
  type WebhookEntry,
} from "../../../../apiserver/admission/webhook/webhook_configurations.ts";
import { ResourceMatcher } from "../../../../apiserver/admission/matching/resource_matcher.ts";

const env = matchConditionEnvironment();

function entry(...expressions: string[]): WebhookEntry {
  return {
    index: 0,
    uid: "c/h/0",
    configName: "c",
    name: "h.example.com",
    hook: {},
    matcher: ResourceMatcher.compile({}, { emptyRulesMatchAll: false }),
    matchConditions: expressions.map((expression, i) => {
      const c = env.compile(expression);
      return c.ok
        ? { name: `c${i}`, expression, program: c.program }
        : { name: `c${i}`, expression, error: c.errors[0].detail };
    }),
  };
}

const attrs = {
  operation: "CREATE",
  kind: { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap" } as KindDef,
  namespace: "ns",
  name: "cm",
  subresource: "",
  dryRun: false,
  user: { username: "alice", groups: ["devs"] },
} as AdmissionAttributes;

const vars = (name: string) =>
  env.activation({ object: { metadata: { name } }, oldObject: null, request: {} });

Deno.test("evaluateMatchConditions() calls on all true, skips on any false, errs otherwise", async () => {
  const e = entry("object.metadata.name != 'skip'", "true");
  assert.equal(await evaluateMatchConditions(e, attrs, vars("cm")), true);
  assert.equal(await evaluateMatchConditions(e, attrs, vars("skip")), false);
  const failing = entry("object.metadata.missing == 'x'", "true");
  const got = await evaluateMatchConditions(failing, attrs, vars("cm"));
  assert.equal(typeof got, "string");
  assert.match(got as string, /^expression 'object.metadata.missing == 'x'' resulted in error/);
  const falseWins = entry("object.metadata.missing == 'x'", "false");
  assert.equal(await evaluateMatchConditions(falseWins, attrs, vars("cm")), false);
});

/** An authorizer that knows its answers only after fetching them. */
class FetchingAuthorizer implements RequestCelAuthorizer {
  #fetched = false;
  #pending = false;
  asked: CelAuthorizationAttributes[] = [];
  authorize(a: CelAuthorizationAttributes) {
    this.asked.push(a);
    if (!this.#fetched) {
      this.#pending = true;
      return { decision: "noOpinion" as const, reason: "" };
    }
    return { decision: a.verb === "create" ? "allow" as const : "deny" as const, reason: "" };
  }
  get hasPending() {
    return this.#pending;
  }
  fetchPending() {
    this.#fetched = true;
    this.#pending = false;
    return Promise.resolve();
  }
}

Deno.test("evaluateMatchConditions() fetches the authorizer's decisions and evaluates again", async () => {
  const e = entry(
    "authorizer.group('').resource('pods').namespace('ns').check('create').allowed()",
  );
  const authz = new FetchingAuthorizer();
  assert.equal(await evaluateMatchConditions(e, attrs, vars("cm"), () => authz), true);
  assert.equal(authz.asked.at(-1)?.user.name, "alice");
  const denied = entry("authorizer.group('').resource('pods').check('delete').allowed()");
  assert.equal(
    await evaluateMatchConditions(denied, attrs, vars("cm"), () => new FetchingAuthorizer()),
    false,
  );
});
