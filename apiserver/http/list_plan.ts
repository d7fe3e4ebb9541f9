/**
 * The resourceVersion tables of get and list, resolved: from parsed options to the state a
 * read must see. Every row of the spec's tables (Kubernetes 1.32 behaviour) lands here,
 * including the 400 and 422 answers for combinations Kubernetes rejects.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import { forbidden, notSupported } from "../../shared/api/validation/field_errors.ts";
import { decodeContinue } from "../registry/generic/continue_token.ts";
import { parseResourceVersion } from "../registry/generic/resource_version.ts";
import type { FieldError } from "../../shared/errors/status_error.ts";
import type { FieldSelector } from "../../shared/selectors/field_selector.ts";
import type { LabelSelector } from "../../shared/selectors/label_selector.ts";

/** Parsed options of a list or watch. */
export interface ListOptions {
  /** The raw `labelSelector` ("" when absent). */
  labelSelector: string;
  /** The raw `fieldSelector` ("" when absent). */
  fieldSelector: string;
  /** The parsed label selector. */
  labels: LabelSelector;
  /** The parsed field selector (after field label conversion, when a converter was given). */
  fields: FieldSelector;
  /** "" when absent. */
  resourceVersion: string;
  /** "", `Exact`, `NotOlderThan` (anything else fails validation). */
  resourceVersionMatch: string;
  /** 0 when absent (no paging). */
  limit: number;
  /** "" when absent. */
  continue: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  /** Undefined when absent. */
  sendInitialEvents?: boolean;
  /** Undefined when absent. */
  timeoutSeconds?: number;
}

/** Parsed options of a get. */
export interface GetOptions {
  /** "" when absent. */
  resourceVersion: string;
}

/** The ListOptions validation of Kubernetes (list and watch rules); returns the field errors. */
export function validateListOptions(opts: ListOptions, watchListEnabled = false): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (opts.watch) {
    if (opts.sendInitialEvents !== undefined) {
      if (match !== "NotOlderThan") {
        errs.push(forbidden(
          "resourceVersionMatch",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
      }
      if (!watchListEnabled) {
        errs.push(forbidden(
          "sendInitialEvents",
          "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
        ));
      }
    }
    if (match.length > 0) {
      if (opts.sendInitialEvents === undefined) {
        errs.push(forbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
      }
      if (match !== "NotOlderThan") {
        errs.push(notSupported("resourceVersionMatch", match, ["NotOlderThan"]));
      }
      if (opts.continue.length > 0) {
        errs.push(
          forbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden when continue is provided",
          ),
        );
      }
    }
    return errs;
  }
  if (match.length > 0) {
    if (opts.resourceVersion.length === 0) {
      errs.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden unless resourceVersion is provided",
      ));
    }
    if (opts.continue.length > 0) {
      errs.push(
        forbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden when continue is provided",
        ),
      );
    }
    if (match !== "Exact" && match !== "NotOlderThan") {
      errs.push(notSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]));
    }
    if (match === "Exact" && opts.resourceVersion === "0") {
      errs.push(forbidden(
        "resourceVersionMatch",
        'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      ));
    }
  }
  if (opts.sendInitialEvents !== undefined) {
    errs.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  return errs;
}

/**
 * Throws the 422 `ListOptions.meta.k8s.io "" is invalid: ...` when {@link validateListOptions}
 * finds errors.
 */
export function assertValidListOptions(opts: ListOptions, watchListEnabled = false): void {
  const errs = validateListOptions(opts, watchListEnabled);
  if (errs.length > 0) {
    throw StatusError.invalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", errs);
  }
}

/** How a list chooses the state it reads. */
export type ListPlan =
  | { mode: "latest" }
  | { mode: "any" }
  | { mode: "notOlderThan"; revision: number }
  | { mode: "exact"; revision: number }
  | {
    mode: "continue";
    /** The token's revision, or -1 for "latest" (token handed out after compaction). */
    revision: number;
    /** The key to start at, relative to the resource prefix. */
    startKeySuffix: string;
  };

/** How a get chooses the state it reads. */
export type GetPlan =
  | { mode: "latest" }
  | { mode: "any" }
  | { mode: "notOlderThan"; revision: number };

/** The get table: unset is Most Recent, `0` is Any, anything else Not older than. */
export function planGet(opts: GetOptions): GetPlan {
  if (opts.resourceVersion === "") return { mode: "latest" };
  const rv = parseResourceVersion(opts.resourceVersion);
  return rv === 0 ? { mode: "any" } : { mode: "notOlderThan", revision: rv };
}

/**
 * The list table. Throws 422 (ListOptions invalid) for resourceVersionMatch without a
 * resourceVersion, with `continue`, with an unknown value, or Exact with `0`; 400 for a bad
 * continue token, for a resourceVersion other than "" or "0" with `continue`, and for an
 * unparsable resourceVersion.
 */
export function planList(opts: ListOptions): ListPlan {
  if (!opts.watch) assertValidListOptions(opts);
  const rvString = opts.resourceVersion;
  if (opts.continue !== "") {
    const token = decodeContinue(opts.continue);
    if (rvString !== "" && rvString !== "0") {
      throw StatusError.badRequest(
        "specifying resource version is not allowed when using continue",
      );
    }
    return {
      mode: "continue",
      revision: token.rv > 0 ? token.rv : -1,
      startKeySuffix: token.startKeySuffix,
    };
  }
  if (rvString === "") return { mode: "latest" };
  const match = opts.resourceVersionMatch;
  const paged = opts.limit > 0;
  // Reads Kubernetes serves from the store (Exact, legacy paged) report parse errors with the
  // store's prefix; the others as the watch cache does.
  const fromStore = match === "Exact" || (match === "" && paged && rvString !== "0");
  const rv = parseResourceVersion(rvString, fromStore ? "invalid resource version: " : "");
  if (match === "NotOlderThan") {
    return rv === 0 ? { mode: "any" } : { mode: "notOlderThan", revision: rv };
  }
  if (match === "Exact") {
    // "Exact" with a zero that is not the string "0" (e.g. "00") reads the latest state.
    return rv === 0 ? { mode: "latest" } : { mode: "exact", revision: rv };
  }
  if (paged) {
    if (rv > 0) return { mode: "exact", revision: rv };
    return rvString === "0" ? { mode: "any" } : { mode: "latest" };
  }
  return rv === 0 ? { mode: "any" } : { mode: "notOlderThan", revision: rv };
}

/**
 * The page size a list should use: Kubernetes serves `resourceVersion=0` from its watch cache,
 * which ignores `limit`, so such a list answers in one page. Undefined means no limit.
 */
export function pageLimit(opts: ListOptions): number | undefined {
  if (opts.limit <= 0) return undefined;
  if (opts.continue === "" && opts.resourceVersion === "0") return undefined;
  return opts.limit;
}
