/**
 * A webhook's match conditions (matchconditions.Matcher): every condition true calls the
 * webhook, any false skips it, and errors without a false skip it under `failurePolicy:
 * Ignore` and refuse the request under Fail (403, before any call). The `authorizer` variable is served by a per-request authorizer over the
 * server's asynchronous chain: checks not decided yet are fetched and the conditions evaluated
 * again (evaluation is deterministic, so the last run sees every decision it asks for).
 *
 * @module
 */
import { AuthorizerValue, type CelAuthorizer } from "../../cel/mod.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import type { WebhookEntry } from "./webhook_configurations.ts";

/** A CEL authorizer for one request that fetches the decisions it was asked for. */
export interface RequestCelAuthorizer extends CelAuthorizer {
  /** Whether a check asked for a decision not fetched yet. */
  readonly hasPending: boolean;
  /** Fetches every pending decision. */
  fetchPending(): Promise<void>;
}

/** How many times undecided authorizer checks are fetched before the answer stands. */
const MAX_FETCH_ROUNDS = 8;

type Outcome = { pass: boolean } | { errors: string[] };

function evaluateOnce(entry: WebhookEntry, vars: Record<string, unknown>): Outcome {
  const errors: string[] = [];
  for (const c of entry.matchConditions) {
    if (!c.program) {
      errors.push(`compilation failed for expression '${c.expression}': ${c.error}`);
      continue;
    }
    const r = c.program.evaluate(vars);
    if (!r.ok) errors.push(`expression '${c.expression}' resulted in error: ${r.error.detail}`);
    else if (r.value === false) return { pass: false };
    else if (r.value !== true) {
      errors.push(`expression '${c.expression}' resulted in non-boolean value`);
    }
  }
  return errors.length ? { errors } : { pass: true };
}

/**
 * Whether the webhook is called: true, false, or the evaluation errors (aggregated as Go's
 * utilerrors do). `vars` are the CEL activation (object, oldObject, request).
 */
export async function evaluateMatchConditions(
  entry: WebhookEntry,
  attrs: AdmissionAttributes,
  vars: Record<string, unknown>,
  newAuthorizer?: () => RequestCelAuthorizer,
): Promise<boolean | string> {
  if (entry.matchConditions.length === 0) return true;
  const authz = newAuthorizer && attrs.user ? newAuthorizer() : undefined;
  if (authz && attrs.user) {
    const u = attrs.user;
    vars = {
      ...vars,
      authorizer: new AuthorizerValue(authz, {
        name: u.username,
        uid: u.uid,
        groups: u.groups ?? [],
        extra: u.extra,
      }),
    };
  }
  let outcome = evaluateOnce(entry, vars);
  for (let round = 0; authz?.hasPending && round < MAX_FETCH_ROUNDS; round++) {
    await authz.fetchPending();
    outcome = evaluateOnce(entry, vars);
  }
  if ("pass" in outcome) return outcome.pass;
  const e = outcome.errors;
  return e.length === 1 ? e[0] : `[${e.join(", ")}]`;
}
