/**
 * Auditing: for each authenticated request the policy's first matching rule gives a level;
 * unless it is None, an audit.k8s.io/v1 Event goes to the backends at RequestReceived, at
 * ResponseStarted (watches, when the stream opens) and at ResponseComplete (or Panic when the
 * handler failed unexpectedly), less the stages the policy omits. At Request level the event
 * carries the request body, at RequestResponse also the response body; never a token.
 * Authorization, admission and deprecation add annotations through `ctx.auditAnnotations`.
 *
 * @module
 */
import { StatusError, toStatusError } from "../../../shared/errors/status_error.ts";
import { fixedBody } from "../../../shared/http/https_server.ts";
import { pushResponse, pushSourceOf } from "../../../shared/http/push_body.ts";
import type { Auditor } from "../../audit/auditor.ts";
import {
  type AuditEvent,
  auditUser,
  completeObjectRef,
  loggableObject,
  microTime,
  objectRefOf,
  responseStatusOf,
  sourceIPs,
} from "../../audit/event.ts";
import type { AuditDecision, AuditStage } from "../../audit/policy.ts";
import type { Filter, RequestContext } from "./filter.ts";

const BODY_VERBS = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** Records the requests `auditor`'s policy selects; a pass-through without an auditor. */
export function withAudit(auditor: Auditor | undefined): Filter {
  if (!auditor) return (next) => next;
  return (next) => async (ctx) => {
    const user = ctx.user;
    const decision = auditor.decide({ ...ctx.info, user });
    if (decision.level === "None") return await next(ctx);
    const ev = newEvent(ctx, decision);
    ctx.auditAnnotations = {};
    const emit = (stage: AuditStage) => {
      if (decision.omitStages.has(stage)) return;
      ev.stage = stage;
      ev.stageTimestamp = microTime();
      if (ctx.user && ctx.user !== user) ev.impersonatedUser = auditUser(ctx.user);
      if (ctx.auditAnnotations && Object.keys(ctx.auditAnnotations).length > 0) {
        ev.annotations = { ...ctx.auditAnnotations };
      }
      auditor.emit(ev);
    };
    const requestObject = decision.level !== "Metadata" && BODY_VERBS.has(ctx.info.verb)
      ? readRequestObject(ctx)
      : undefined;
    emit("RequestReceived");
    let res: Response;
    try {
      res = await next(ctx);
    } catch (err) {
      const status = toStatusError(err);
      ev.responseStatus = responseStatusOf(
        status.status as unknown as Record<string, unknown>,
        status.code,
      );
      await addRequestObject(ev, requestObject, decision);
      emit(err instanceof StatusError ? "ResponseComplete" : "Panic");
      throw err;
    }
    ev.responseStatus = { metadata: {}, code: res.status };
    await addRequestObject(ev, requestObject, decision);
    if (ctx.info.verb === "watch" && res.body) {
      emit("ResponseStarted");
      return onBodyEnd(res, () => emit("ResponseComplete"));
    }
    if (decision.level === "RequestResponse") {
      const obj = await readResponseObject(res);
      if (obj !== undefined) ev.responseObject = loggableObject(obj, decision.omitManagedFields);
    }
    emit("ResponseComplete");
    return res;
  };
}

function newEvent(ctx: RequestContext, decision: AuditDecision): AuditEvent {
  const { req, url, info } = ctx;
  const received = microTime(Date.now() - (performance.now() - ctx.started));
  const userAgent = req.headers.get("user-agent");
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: decision.level,
    auditID: ctx.auditID,
    stage: "RequestReceived",
    requestURI: url.pathname + url.search,
    verb: info.verb,
    user: auditUser(ctx.user ?? { username: "", groups: [] }),
    sourceIPs: sourceIPs(req.headers, ctx.conn.remoteAddr.hostname),
    ...(userAgent ? { userAgent } : {}),
    ...(info.isResourceRequest ? { objectRef: objectRefOf(info) } : {}),
    requestReceivedTimestamp: received,
    stageTimestamp: received,
  };
}

/** The request body as JSON, read beside the handler (undefined when not JSON). */
async function readRequestObject(ctx: RequestContext): Promise<unknown> {
  const type = ctx.req.headers.get("content-type") ?? "";
  if (!type.includes("json")) return undefined;
  try {
    const bytes = ctx.conn.body ?? (ctx.req.body ? await ctx.req.clone().bytes() : undefined);
    return bytes && bytes.length > 0 ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
  } catch {
    return undefined;
  }
}

async function addRequestObject(
  ev: AuditEvent,
  pending: Promise<unknown> | undefined,
  decision: AuditDecision,
): Promise<void> {
  const obj = await pending;
  if (obj === undefined) return;
  completeObjectRef(ev.objectRef, obj);
  ev.requestObject = loggableObject(obj, decision.omitManagedFields);
}

/** The response body as JSON, read from a copy (undefined when not JSON). */
async function readResponseObject(res: Response): Promise<unknown> {
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("json") || !res.body) return undefined;
  try {
    const fixed = fixedBody(res);
    if (typeof fixed === "string") return JSON.parse(fixed);
    if (fixed) return JSON.parse(new TextDecoder().decode(fixed));
    const body = res.clone().body!;
    const plain = res.headers.get("content-encoding") === "gzip"
      ? body.pipeThrough(new DecompressionStream("gzip") as TransformStream<Uint8Array, Uint8Array>)
      : body;
    return JSON.parse(await new Response(plain).text());
  } catch {
    return undefined;
  }
}

/** `res` with `onEnd` called once when its body ends, fails or is cancelled. */
function onBodyEnd(res: Response, onEnd: () => void): Response {
  let called = false;
  const end = () => {
    if (!called) (called = true, onEnd());
  };
  const source = pushSourceOf(res);
  const inner = res.body!;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= inner.getReader();
      try {
        const { done, value } = await reader.read();
        if (done) (controller.close(), end());
        else controller.enqueue(value);
      } catch (err) {
        end();
        controller.error(err);
      }
    },
    cancel(reason) {
      end();
      return reader ? reader.cancel(reason) : inner.cancel(reason);
    },
  }, { highWaterMark: 0 });
  const init = { status: res.status, statusText: res.statusText, headers: res.headers };
  if (!source) return new Response(stream, init);
  return pushResponse(stream, {
    attach: (sink) =>
      source.attach({
        write: (chunk) => sink.write(chunk),
        end: () => (sink.end(), end()),
      }),
    drain: () => source.drain(),
    cancel: () => (source.cancel(), end()),
  }, init);
}

/**
 * Audits requests that fail authentication (401), as kube's failed-authentication audit does:
 * the policy decides with no user; one event at ResponseStarted names the attempted methods.
 * Goes in front of authentication.
 */
export function withFailedAuthenticationAudit(auditor: Auditor | undefined): Filter {
  if (!auditor) return (next) => next;
  return (next) => async (ctx) => {
    try {
      return await next(ctx);
    } catch (err) {
      if (ctx.user || !(err instanceof StatusError) || err.code !== 401) throw err;
      const decision = auditor.decide({ ...ctx.info, user: undefined });
      if (decision.level === "None" || decision.omitStages.has("ResponseStarted")) throw err;
      const ev = newEvent(ctx, decision);
      ev.stage = "ResponseStarted";
      ev.responseStatus = { metadata: {}, message: attemptedMethods(ctx), code: 401 };
      auditor.emit(ev);
      throw err;
    }
  };
}

/** kube's message naming the credentials a failed request carried. */
function attemptedMethods(ctx: RequestContext): string {
  const methods: string[] = [];
  const auth = (ctx.req.headers.get("authorization") ?? "").trim();
  const scheme = auth.split(/\s+/)[0].toLowerCase();
  if (scheme === "basic") methods.push("basic");
  if (scheme === "bearer") methods.push("bearer");
  if (ctx.url.searchParams.has("access_token")) methods.push("access_token");
  if (ctx.conn.peerCertificates.length > 0) methods.push("x509");
  return methods.length > 0
    ? `Authentication failed, attempted: ${methods.join(", ")}`
    : "Authentication failed, no credentials provided";
}
