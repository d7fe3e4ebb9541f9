/**
 * Conversion of custom resources by a webhook, as kube's webhookConverter: the objects not
 * already at the desired version go in one ConversionReview (apiextensions.k8s.io/v1, or
 * v1beta1 when it comes first in `conversionReviewVersions`), POSTed through the shared webhook
 * client with kube's 30 s timeout; the answer must carry the request's uid, a `Success` result
 * and as many objects, each at the desired apiVersion, of the same kind, name, namespace and
 * uid, with metadata changes limited to labels and annotations. Every failure is a 500 with
 * kube's message (`conversion webhook for <group/version, Kind=...> failed: ...`).
 *
 * @module
 */
import type { WebhookClientConfig } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { convertedObjectProblem, restoreObjectMeta } from "./converted_object_checks.ts";

/**
 * Posts a JSON body to a webhook and answers its parsed JSON answer, or throws an Error whose
 * message reads as kube's REST client's (`Post "<url>?timeout=30s": context deadline
 * exceeded`). The shared webhook client (`apiserver/webhook/`) is one.
 */
export interface ConversionWebhookPoster {
  post(config: WebhookClientConfig, body: unknown, opts: { timeoutMs: number }): Promise<unknown>;
}

/** kube's timeout of a conversion webhook call (not configurable there either). */
export const DEFAULT_CONVERSION_WEBHOOK_TIMEOUT_MS = 30_000;

/** What a webhook converter needs. */
export interface WebhookConverterOptions {
  clientConfig: WebhookClientConfig;
  /** The CRD's `conversion.webhook.conversionReviewVersions`, in order of preference. */
  conversionReviewVersions: readonly string[];
  poster: ConversionWebhookPoster;
  /** Default {@link DEFAULT_CONVERSION_WEBHOOK_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/**
 * Converts `objects` to `apiVersion`, in order; `list` says whether they are a list's items
 * (kube words the errors of lists and single objects differently).
 */
export type ObjectsConverter = (
  objects: KubeObject[],
  apiVersion: string,
  list: boolean,
) => Promise<KubeObject[]>;

type Obj = Record<string, unknown>;

/** A conversion failure as kube answers it: 500, no reason, the message as is. */
export function conversionFailure(message: string): StatusError {
  return new StatusError({ code: 500, message });
}

/** Go's GroupVersionKind.String() of an object's apiVersion and kind. */
export function gvkText(apiVersion: string | undefined, kind: string | undefined): string {
  const av = apiVersion ?? "";
  const gv = av.includes("/") ? av : `/${av}`;
  return `${gv}, Kind=${kind ?? ""}`;
}

/** The converter of a CRD whose conversion strategy is Webhook. */
export function webhookConverter(opts: WebhookConverterOptions): ObjectsConverter {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CONVERSION_WEBHOOK_TIMEOUT_MS;
  return async (objects, apiVersion, list) => {
    const pending = objects.filter((o) => o.apiVersion !== apiVersion);
    if (pending.length === 0) return objects;
    const reviewVersion = opts.conversionReviewVersions.find((v) => v === "v1" || v === "v1beta1");
    if (!reviewVersion) throw conversionFailure("no supported conversion review versions");
    const first = pending[0];
    // Named by the (first) object sent, lists too: kube converts the items of a list read from
    // storage one by one, so its messages name the item's kind.
    const gvk = gvkText(first.apiVersion, first.kind);
    const uid = crypto.randomUUID();
    let answer: unknown;
    try {
      answer = await opts.poster.post(
        opts.clientConfig,
        conversionReview(reviewVersion, uid, apiVersion, pending),
        { timeoutMs },
      );
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw conversionFailure(`conversion webhook for ${gvk} failed: ${why}`);
    }
    const converted = convertedObjects(reviewVersion, uid, answer);
    if (typeof converted === "string") {
      throw conversionFailure(`conversion webhook for ${gvk} failed: ${converted}`);
    }
    if (converted.length !== pending.length) {
      throw conversionFailure(
        `conversion webhook for ${gvk} returned ${converted.length} objects, expected ${pending.length}`,
      );
    }
    const check = list ? checkListItem : checkSingle;
    let next = 0;
    return objects.map((o) => {
      if (o.apiVersion === apiVersion) return o;
      const at = next++;
      return check(o, converted[at], apiVersion, at, gvk);
    });
  };
}

/** The ConversionReview sent (kube sends an empty response with the request). */
function conversionReview(version: string, uid: string, desired: string, objects: KubeObject[]) {
  return {
    kind: "ConversionReview",
    apiVersion: `apiextensions.k8s.io/${version}`,
    request: { uid, desiredAPIVersion: desired, objects },
    response: { uid: "", convertedObjects: null, result: { metadata: {} } },
  };
}

/** The answer's converted objects, or what is wrong with it (getConvertedObjectsFromResponse). */
function convertedObjects(version: string, uid: string, answer: unknown): unknown[] | string {
  const review: Obj = isObject(answer) ? answer : {};
  if (version === "v1") {
    const got = gvkText(review.apiVersion as string, review.kind as string);
    const want = gvkText("apiextensions.k8s.io/v1", "ConversionReview");
    if (got !== want) return `expected webhook response of ${want}, got ${got}`;
  }
  const response = review.response;
  if (!isObject(response)) return "no response provided";
  if (version === "v1" && (response.uid ?? "") !== uid) {
    return `expected response.uid=${JSON.stringify(uid)}, got ${
      JSON.stringify(response.uid ?? "")
    }`;
  }
  const result: Obj = isObject(response.result) ? response.result : {};
  if (result.status !== "Success") {
    if (typeof result.message === "string" && result.message) return result.message;
    return `response.result.status was '${result.status ?? ""}', not 'Success'`;
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

function groupVersionOf(apiVersion: unknown): string {
  return typeof apiVersion === "string" ? apiVersion : "";
}

/** One converted item of a list, checked and with its metadata restored. */
function checkListItem(
  original: KubeObject,
  answer: unknown,
  apiVersion: string,
  index: number,
  gvk: string,
): KubeObject {
  const prefix = `conversion webhook for ${gvk} returned invalid converted object at index`;
  if (!isObject(answer)) {
    throw conversionFailure(`${prefix} ${index}: Object 'Kind' is missing in '${answer}'`);
  }
  // kube counts from one past the item in these messages.
  const shown = index + 1;
  const got = groupVersionOf(answer.apiVersion);
  if (got !== apiVersion) {
    throw conversionFailure(
      `${prefix} ${shown}: invalid groupVersion (expected ${apiVersion}, received ${got})`,
    );
  }
  if (answer.kind !== original.kind) {
    throw conversionFailure(
      `${prefix} ${shown}: invalid kind (expected ${original.kind}, received ${answer.kind ?? ""})`,
    );
  }
  const problem = convertedObjectProblem(original, answer);
  if (problem) throw conversionFailure(`${prefix} ${shown}: ${problem}`);
  const restored = restoreObjectMeta(original, answer);
  if ("problem" in restored) {
    throw conversionFailure(
      `conversion webhook for ${gvk} returned invalid metadata in object at index ${shown}: ${restored.problem}`,
    );
  }
  return restored.object;
}

/** The converted object of a single object's conversion, checked and restored. */
function checkSingle(
  original: KubeObject,
  answer: unknown,
  apiVersion: string,
  _index: number,
  gvk: string,
): KubeObject {
  const obj: Obj = isObject(answer) ? answer : {};
  const got = groupVersionOf(obj.apiVersion);
  const prefix = `conversion webhook for ${gvk} returned invalid object`;
  if (got !== apiVersion) {
    throw conversionFailure(
      `${prefix} at index 0: invalid groupVersion (expected ${apiVersion}, received ${got})`,
    );
  }
  if (obj.kind !== original.kind) {
    throw conversionFailure(
      `${prefix} at index 0: invalid kind (expected ${original.kind}, received ${obj.kind ?? ""})`,
    );
  }
  const problem = convertedObjectProblem(original, obj);
  if (problem) throw conversionFailure(`${prefix}: ${problem}`);
  const restored = restoreObjectMeta(original, obj);
  if ("problem" in restored) {
    throw conversionFailure(
      `conversion webhook for ${gvk} returned invalid metadata: ${restored.problem}`,
    );
  }
  return restored.object;
}
