/**
 * The converter of a custom resource's versions, from its CRD's `conversion`: `None` rewrites
 * the apiVersion and nothing else (kube's nopConverter), `Webhook` asks the CRD's conversion
 * webhook. Each object converts from the apiVersion it carries, so objects written at a version
 * that is no longer the storage version read as any served one. Both versions must be among
 * the CRD's versions (kube's crConverter checks, with its messages).
 *
 * {@link CustomResourceConverter.forVersion} gives a served version's `toStorage`,
 * `fromStorage` (and, for a webhook, the batch `fromStorageList`) for its KindDef's
 * `servedFrom`.
 *
 * @module
 */
import type { CustomResourceDefinition } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { ServedVersion } from "../../generic/kind.ts";
import {
  conversionFailure,
  type ConversionWebhookPoster,
  type ObjectsConverter,
  webhookConverter,
} from "./webhook_converter.ts";

/** What the converter of a CRD needs. */
export interface CustomResourceConverterDeps {
  /** Calls conversion webhooks (the shared webhook client); required by strategy Webhook. */
  webhooks?: ConversionWebhookPoster;
  /** Timeout of a webhook call, ms (default kube's 30 s). */
  webhookTimeoutMs?: number;
}

/** A served version's conversions to and from the storage version. */
export type VersionConversions = Pick<
  ServedVersion,
  "toStorage" | "fromStorage" | "fromStorageList"
>;

/** The conversions of one CRD. */
export interface CustomResourceConverter {
  /** Whether conversions answer Promises (a webhook). */
  readonly asynchronous: boolean;
  /**
   * Converts objects (each at its own apiVersion) to `apiVersion`, in order; `list` when they
   * are a list's items. Throws (or rejects with) a 500 StatusError with kube's message.
   */
  convert(
    objects: KubeObject[],
    apiVersion: string,
    list?: boolean,
  ): KubeObject[] | Promise<KubeObject[]>;
  /** The conversions between served `version` and the CRD's storage version. */
  forVersion(version: string): VersionConversions;
}

/** nopConverter: every object's apiVersion set to `apiVersion`, nothing else changed. */
function nopConvert(objects: KubeObject[], apiVersion: string): KubeObject[] {
  return objects.map((o) => o.apiVersion === apiVersion ? o : { ...o, apiVersion });
}

/** The checks of kube's crConverter.ConvertToVersion; throws its errors. */
function checkVersions(
  valid: ReadonlySet<string>,
  objects: KubeObject[],
  apiVersion: string,
  list: boolean,
): void {
  if (!valid.has(apiVersion)) {
    throw conversionFailure(`request to convert CR to an invalid group/version: ${apiVersion}`);
  }
  objects.forEach((o, i) => {
    const from = o.apiVersion ?? "";
    if (valid.has(from)) return;
    throw conversionFailure(
      list
        ? `request to convert CR list failed, list index ${i} has invalid group/version: ${from}`
        : `request to convert CR from an invalid group/version: ${from}`,
    );
  });
}

/** The converter of `crd`'s versions. */
export function customResourceConverter(
  crd: CustomResourceDefinition,
  deps: CustomResourceConverterDeps = {},
): CustomResourceConverter {
  const spec = crd.spec;
  const gv = (v: string) => `${spec.group}/${v}`;
  const valid = new Set(spec.versions.map((v) => gv(v.name)));
  const storageVersion = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name;
  const storage = gv(storageVersion ?? "");
  const webhook = webhookOf(crd, deps);
  const convert = (objects: KubeObject[], apiVersion: string, list = false) => {
    const items = objects.map((o) => o.apiVersion ? o : { ...o, apiVersion: storage });
    checkVersions(valid, items, apiVersion, list);
    return webhook ? webhook(items, apiVersion, list) : nopConvert(items, apiVersion);
  };
  const one = (obj: KubeObject, apiVersion: string): KubeObject | Promise<KubeObject> => {
    const out = convert([obj], apiVersion);
    return out instanceof Promise ? out.then((o) => o[0]) : out[0];
  };
  return {
    asynchronous: webhook !== undefined,
    convert,
    forVersion(version) {
      const served = gv(version);
      const conversions: VersionConversions = {
        // The served form is at the served version, whatever its body said.
        toStorage: (obj) => one({ ...obj, apiVersion: served }, storage),
        fromStorage: (obj) => one(obj, served),
      };
      if (webhook) {
        conversions.fromStorageList = async (objs) => await convert(objs, served, true);
      }
      return conversions;
    },
  };
}

/** The webhook converter of a CRD with strategy Webhook, else undefined. */
function webhookOf(
  crd: CustomResourceDefinition,
  deps: CustomResourceConverterDeps,
): ObjectsConverter | undefined {
  const conversion = crd.spec.conversion;
  if (conversion?.strategy !== "Webhook") return undefined;
  const hook = conversion.webhook;
  const poster = deps.webhooks;
  if (!hook?.clientConfig || !poster) {
    const why = !poster ? "no webhook client is configured" : "no webhook clientConfig";
    return () =>
      Promise.reject(
        conversionFailure(`conversion webhook for ${crd.metadata.name} failed: ${why}`),
      );
  }
  return webhookConverter({
    clientConfig: hook.clientConfig,
    conversionReviewVersions: hook.conversionReviewVersions ?? [],
    poster,
    timeoutMs: deps.webhookTimeoutMs,
  });
}
