/**
 * Query parameters of reads, parsed as Kubernetes parses them (the meta/v1 ListOptions and
 * GetOptions conversions): booleans, integers, selectors, then the ListOptions validation.
 * Bad values throw StatusError with Kubernetes' code and message.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import { goQuote } from "../../shared/api/validation/go_quote.ts";
import {
  type FieldLabelConverter,
  FieldSelector,
  parseFieldSelector,
} from "../../shared/selectors/field_selector.ts";
import { LabelSelector, parseLabelSelector } from "../../shared/selectors/label_selector.ts";

import { assertValidListOptions, type GetOptions, type ListOptions } from "./list_plan.ts";

export {
  assertValidListOptions,
  type GetOptions,
  type GetPlan,
  type ListOptions,
  type ListPlan,
  pageLimit,
  planGet,
  planList,
  validateListOptions,
} from "./list_plan.ts";

/**
 * A boolean query value as Kubernetes reads it: absent (null) is false; `0` and any casing of
 * `false` are false; anything else, including the empty value of a bare `?watch`, is true.
 */
export function parseBool(value: string | null): boolean {
  if (value === null) return false;
  return !(value === "0" || value.toLowerCase() === "false");
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * An integer query value as Go's `strconv.ParseInt(s, 10, 64)`; throws 400 with Go's message
 * (`strconv.ParseInt: parsing "x": invalid syntax` or `value out of range`).
 */
export function parseInt64(value: string): number {
  if (!/^[+-]?[0-9]+$/.test(value)) {
    throw StatusError.badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  }
  const v = BigInt(value);
  if (v > INT64_MAX || v < INT64_MIN) {
    throw StatusError.badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  }
  return Number(v);
}

/** Options of {@link parseListOptions}. */
export interface ParseListOptionsConfig {
  /** Whether the WatchList feature gate is on (default off, as the spec says). */
  watchListEnabled?: boolean;
  /** The kind's field label converter; without one, field labels are not checked. */
  fieldLabels?: FieldLabelConverter;
  /** Whether a watch is forced by the path (legacy `/watch/` paths). */
  forceWatch?: boolean;
}

/**
 * Parses the query of a list or watch in Kubernetes' order: integers (`timeoutSeconds`,
 * `limit`) and selectors (400 on bad syntax), WatchList defaults, validation (422), then the
 * kind's field labels (400). Repeated parameters use their first value.
 */
export function parseListOptions(
  q: URLSearchParams,
  config: ParseListOptionsConfig = {},
): ListOptions {
  const timeout = q.get("timeoutSeconds");
  const limit = q.get("limit");
  const labelSelector = q.get("labelSelector") ?? "";
  const fieldSelector = q.get("fieldSelector") ?? "";
  const sendInitial = q.get("sendInitialEvents");
  const opts: ListOptions = {
    labelSelector,
    fieldSelector,
    labels: LabelSelector.everything(),
    fields: FieldSelector.everything(),
    resourceVersion: q.get("resourceVersion") ?? "",
    resourceVersionMatch: q.get("resourceVersionMatch") ?? "",
    limit: 0,
    continue: q.get("continue") ?? "",
    watch: parseBool(q.get("watch")) || !!config.forceWatch,
    allowWatchBookmarks: parseBool(q.get("allowWatchBookmarks")),
  };
  if (sendInitial !== null) opts.sendInitialEvents = parseBool(sendInitial);
  if (timeout !== null) opts.timeoutSeconds = parseInt64(timeout);
  if (limit !== null) opts.limit = parseInt64(limit);
  opts.labels = parseLabelSelector(labelSelector);
  opts.fields = parseFieldSelector(fieldSelector);
  const watchList = !!config.watchListEnabled;
  if (
    watchList && opts.watch && opts.sendInitialEvents === undefined &&
    opts.resourceVersionMatch === "" &&
    (opts.resourceVersion === "" || opts.resourceVersion === "0")
  ) {
    opts.sendInitialEvents = true;
    opts.resourceVersionMatch = "NotOlderThan";
  }
  assertValidListOptions(opts, watchList);
  if (config.fieldLabels) opts.fields = opts.fields.transform(config.fieldLabels);
  return opts;
}

/** Parses the query of a get: only `resourceVersion` matters. */
export function parseGetOptions(q: URLSearchParams): GetOptions {
  return { resourceVersion: q.get("resourceVersion") ?? "" };
}
