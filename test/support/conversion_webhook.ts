/**
 * A conversion webhook for tests (an external system, so a fake): HTTPS on a free loopback
 * port with its own CA (its certificate names `opts.dnsNames`, default localhost, and
 * 127.0.0.1), converting example.com Widgets between v1 (`spec.size`) and v2
 * (`spec.dimensions.size`) as a real webhook would, or misbehaving as `mode` says. It records
 * every ConversionReview it receives.
 *
 * @module
 */
import { createCA, issueCertificate } from "../../shared/pki/issue_certificate.ts";

type Obj = Record<string, unknown>;

/** How the webhook answers. */
export type ConversionWebhookMode =
  | "convert"
  | "wrongUid"
  | "failed"
  | "tooFew"
  | "wrongVersion"
  | "renamed"
  | "relabelled"
  | "slow"
  | "http500";

/** A running conversion webhook. */
export interface ConversionWebhook {
  /** `https://<hostname>:<port>/convert` (127.0.0.1 unless `opts.hostname` says otherwise). */
  url: string;
  port: number;
  /** Its CA, base64 PEM (a CRD's `caBundle`). */
  caBundle: string;
  /** Every ConversionReview received. */
  reviews: Obj[];
  mode: ConversionWebhookMode;
  close(): Promise<void>;
}

/** The Widget `obj` at `desired` (`example.com/v1` or `example.com/v2`). */
export function convertWidget(obj: Obj, desired: string): Obj {
  const out = structuredClone(obj);
  const spec = (obj.spec ?? {}) as Obj;
  if (desired.endsWith("/v2") && !String(obj.apiVersion).endsWith("/v2")) {
    out.spec = { dimensions: { size: spec.size } };
  }
  if (desired.endsWith("/v1") && !String(obj.apiVersion).endsWith("/v1")) {
    out.spec = { size: (spec.dimensions as Obj | undefined)?.size };
  }
  out.apiVersion = desired;
  return out;
}

function answer(review: Obj, mode: ConversionWebhookMode): Obj {
  const request = review.request as Obj;
  const desired = String(request.desiredAPIVersion);
  let objects = (request.objects as Obj[]).map((o) => convertWidget(o, desired));
  let uid = request.uid;
  let result: Obj = { status: "Success" };
  if (mode === "wrongUid") uid = "not-the-request";
  if (mode === "failed") result = { status: "Failure", message: "widgets cannot convert today" };
  if (mode === "tooFew") objects = objects.slice(1);
  if (mode === "wrongVersion") {
    objects = objects.map((o) => ({ ...o, apiVersion: "example.com/v9" }));
  }
  const meta = (o: Obj) => o.metadata as Obj;
  if (mode === "renamed") {
    objects = objects.map((o) => ({ ...o, metadata: { ...meta(o), name: "x" } }));
  }
  if (mode === "relabelled") {
    objects = objects.map((o) => ({
      ...o,
      metadata: { ...meta(o), labels: { converted: "yes" }, generation: 99 },
    }));
  }
  return {
    apiVersion: review.apiVersion,
    kind: "ConversionReview",
    response: { uid, convertedObjects: objects, result },
  };
}

/** Starts the webhook. */
export async function startConversionWebhook(
  mode: ConversionWebhookMode = "convert",
  opts: { dnsNames?: string[]; hostname?: string } = {},
): Promise<ConversionWebhook> {
  const ca = await createCA("conversion-webhook-ca");
  const serving = await issueCertificate({
    ca,
    commonName: "conversion-webhook",
    dnsNames: opts.dnsNames ?? ["localhost"],
    ipAddresses: ["127.0.0.1"],
    usages: "server",
  });
  const hook: ConversionWebhook = {
    url: "",
    port: 0,
    caBundle: btoa(ca.certPem),
    reviews: [],
    mode,
    close: () => Promise.resolve(),
  };
  const hostname = opts.hostname ?? "127.0.0.1";
  const server = Deno.serve({
    hostname,
    port: 0,
    cert: serving.certPem,
    key: serving.keyPem,
    onListen() {},
  }, async (req) => {
    const review = await req.json() as Obj;
    hook.reviews.push(review);
    if (hook.mode === "http500") return new Response("boom", { status: 500 });
    if (hook.mode === "slow") await new Promise((r) => setTimeout(r, 3000));
    return Response.json(answer(review, hook.mode));
  });
  hook.port = server.addr.port;
  hook.url = `https://${hostname}:${hook.port}/convert`;
  hook.close = () => server.shutdown();
  return hook;
}

/** A non-loopback IPv4 address of this machine (an endpoint address may not be loopback). */
export function nonLoopbackIPv4(): string | undefined {
  return Deno.networkInterfaces().find((i) => i.family === "IPv4" && !i.address.startsWith("127."))
    ?.address;
}
