/**
 * Calling one matched admission webhook, as k8s.io/apiserver's dispatchers do: the dry-run
 * check of `sideEffects`, the match conditions, the AdmissionReview round trip with the
 * webhook's `timeoutSeconds`, the answer's checks, and the outcome by `failurePolicy` (a
 * failed call is ignored with `Ignore`, and a 500 `failed calling webhook "<name>": ...`
 * otherwise; a denial is the webhook's Status, `admission webhook "<name>" denied the
 * request: <message>`), with the metrics and the warnings of the answer.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import type { CelEnvironment } from "../../cel/mod.ts";
import {
  WebhookClient,
  type WebhookClientConfig,
  WebhookError,
} from "../../webhook/webhook_client.ts";
import { admissionRequestOf } from "../admission_request.ts";
import {
  type AdmissionResponse,
  admissionReview,
  reviewVersionOf,
  UndecodablePatchError,
  verifyAdmissionResponse,
} from "./admission_review.ts";
import type { WebhookEntry } from "./webhook_configurations.ts";
import { evaluateMatchConditions, type RequestCelAuthorizer } from "./match_conditions.ts";
import type { MatchedVersion } from "./matched_webhooks.ts";
import type { WebhookMetrics, WebhookType } from "./webhook_metrics.ts";

/** What calling webhooks needs. */
export interface WebhookCallDeps {
  client: WebhookClient;
  env: CelEnvironment;
  metrics?: WebhookMetrics;
  /**
   * A new per-request authorizer for match conditions' `authorizer` (over the server's
   * chain); absent: conditions that use it fail as errors.
   */
  celAuthorizer?: () => RequestCelAuthorizer;
}

/** A failed call (unreachable, timeout, bad answer, failed match conditions). */
export class CallingWebhookError extends Error {
  constructor(readonly webhook: string, reason: string, readonly code: number) {
    super(`failed calling webhook ${JSON.stringify(webhook)}: ${reason}`);
  }
}

/** A webhook's denial of the request. */
export class WebhookRejection extends StatusError {}

/** The Status of a denial, as webhookerrors.ToStatusErr builds it. */
export function denial(
  webhook: string,
  result: Record<string, unknown> | undefined,
): WebhookRejection {
  const r = result ?? {};
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const code = typeof r.code === "number" && r.code >= 400 ? r.code : 400;
  const message = typeof r.message === "string" && r.message
    ? `${deniedBy}: ${r.message}`
    : typeof r.reason === "string" && r.reason
    ? `${deniedBy}: ${r.reason}`
    : `${deniedBy} without explanation`;
  return new WebhookRejection({
    code,
    message,
    reason: typeof r.reason === "string" && r.reason ? r.reason as never : undefined,
    details: typeof r.details === "object" && r.details !== null ? r.details as never : undefined,
  });
}

/**
 * The webhook's match conditions, evaluated before anything else about the call (as kube's
 * ShouldCallHook does): false skips the webhook; errors skip it under `failurePolicy: Ignore`
 * and refuse the request as Forbidden under Fail.
 */
export async function matchConditionsAllow(
  entry: WebhookEntry,
  attrs: AdmissionAttributes,
  version: MatchedVersion,
  deps: WebhookCallDeps,
): Promise<boolean> {
  if (entry.matchConditions.length === 0) return true;
  const request = await admissionRequestOf(attrs, {
    matched: version.def,
    includeObjects: true,
  });
  const vars = deps.env.activation({
    object: request.object ?? null,
    oldObject: request.oldObject ?? null,
    request,
  });
  const matches = await evaluateMatchConditions(entry, attrs, vars, deps.celAuthorizer);
  if (typeof matches === "boolean") return matches;
  if (entry.hook.failurePolicy === "Ignore") return false;
  const sent = attrs.requestKind ?? attrs.kind;
  throw StatusError.forbidden({ group: sent.group, resource: sent.plural }, attrs.name, matches);
}

/**
 * Calls `entry` for the request (its objects converted to `version`; match conditions
 * already passed). Throws a CallingWebhookError for a failed call, a StatusError for a
 * dry-run refusal or a denial (the caller applies the failure policy).
 */
export async function callWebhook(
  entry: WebhookEntry,
  attrs: AdmissionAttributes,
  version: MatchedVersion,
  mutating: boolean,
  deps: WebhookCallDeps,
): Promise<AdmissionResponse> {
  const hook = entry.hook;
  if (attrs.dryRun && hook.sideEffects !== "None" && hook.sideEffects !== "NoneOnDryRun") {
    throw StatusError.badRequest(
      `admission webhook ${JSON.stringify(entry.name)} does not support dry run`,
    );
  }
  const reviewVersion = reviewVersionOf(hook.admissionReviewVersions);
  if (!reviewVersion) {
    throw new CallingWebhookError(
      entry.name,
      "webhook does not accept known AdmissionReview versions (v1, v1beta1)",
      500,
    );
  }
  const uid = crypto.randomUUID();
  const request = await admissionRequestOf(attrs, {
    uid,
    matched: version.def,
    includeObjects: true,
  });
  const timeoutSeconds = typeof hook.timeoutSeconds === "number" ? hook.timeoutSeconds : 10;
  let answer: unknown;
  try {
    answer = await deps.client.post(
      hook.clientConfig as WebhookClientConfig,
      admissionReview(reviewVersion, request as unknown as Record<string, unknown>),
      { timeoutMs: Math.min(Math.max(timeoutSeconds, 1), 30) * 1000 },
    );
  } catch (err) {
    if (!(err instanceof WebhookError)) throw err;
    const code = err.kind === "status" ? err.httpStatus ?? 500 : 503;
    throw new CallingWebhookError(entry.name, `failed to call webhook: ${err.message}`, code);
  }
  try {
    return verifyAdmissionResponse(answer, uid, reviewVersion, mutating);
  } catch (err) {
    const what = err instanceof UndecodablePatchError
      ? "received undecodable patch in webhook response"
      : "received invalid webhook response";
    throw new CallingWebhookError(entry.name, `${what}: ${(err as Error).message}`, 503);
  }
}

/** Passes the answer's warnings on to the response (`Warning` headers). */
export function passWarnings(attrs: AdmissionAttributes, response: AdmissionResponse): void {
  for (const w of response.warnings) attrs.warn?.(w);
}

/** Records one audit annotation on the request. */
export function annotate(attrs: AdmissionAttributes, key: string, value: string): void {
  attrs.auditAnnotations ??= {};
  attrs.auditAnnotations[key] = value;
}

/** Records the answer's audit annotations under `<webhook>/<key>`. */
export function recordAuditAnnotations(
  attrs: AdmissionAttributes,
  webhook: string,
  response: AdmissionResponse,
): void {
  for (const [k, v] of Object.entries(response.auditAnnotations)) {
    annotate(attrs, `${webhook}/${k}`, v);
  }
}

/**
 * Runs `call` for one webhook with the failure policy and the metrics: answers what it
 * answered, or undefined for an ignored failure; throws the request's error otherwise.
 */
export async function withPolicy<T>(
  entry: WebhookEntry,
  attrs: AdmissionAttributes,
  type: WebhookType,
  metrics: WebhookMetrics | undefined,
  call: () => Promise<T>,
  failedOpen: () => void,
): Promise<T | undefined> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const op = attrs.operation;
  const ignore = entry.hook.failurePolicy === "Ignore";
  try {
    const out = await call();
    metrics?.observe(entry.name, type, op, seconds(), false, 200);
    return out;
  } catch (err) {
    if (err instanceof CallingWebhookError) {
      if (!ignore) metrics?.rejection(entry.name, type, op, "calling_webhook_error", err.code);
      metrics?.observe(entry.name, type, op, seconds(), !ignore, err.code);
      if (ignore) {
        metrics?.failOpen(entry.name, type);
        failedOpen();
        return undefined;
      }
      throw StatusError.internal(err.message);
    }
    const isDenial = err instanceof WebhookRejection;
    const code = err instanceof StatusError ? err.code : 0;
    metrics?.rejection(
      entry.name,
      type,
      op,
      isDenial ? "no_error" : "apiserver_internal_error",
      isDenial ? code : 0,
    );
    metrics?.observe(entry.name, type, op, seconds(), true, isDenial ? code : 0);
    throw err;
  }
}
