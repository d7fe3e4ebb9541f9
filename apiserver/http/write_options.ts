/** Query options of writes: dryRun, fieldValidation, fieldManager, and DeleteOptions. */
import type { DeleteOptions } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { isObject } from "../../shared/json/is_object.ts";
import { parseBool } from "./query.ts";

/** Parsed write options. */
export interface WriteQuery {
  dryRun: boolean;
  fieldValidation: "Ignore" | "Warn" | "Strict";
  fieldManager?: string;
}

/** Parses and validates the write options of a POST, PUT, PATCH or DELETE. */
export function parseWriteQuery(q: URLSearchParams): WriteQuery {
  const dry = q.getAll("dryRun");
  for (const v of dry) {
    if (v !== "" && v !== "All") {
      throw StatusError.badRequest(
        `Invalid dryRun value: ${JSON.stringify(v)}. Must be one of "All"`,
      );
    }
  }
  const fv = q.get("fieldValidation") ?? "";
  const fieldValidation = fv === "" ? "Warn" : fv;
  if (!["Ignore", "Warn", "Strict"].includes(fieldValidation)) {
    throw StatusError.badRequest(
      `Invalid fieldValidation value: ${
        JSON.stringify(fv)
      }. Must be one of "Ignore", "Warn", "Strict"`,
    );
  }
  const fieldManager = q.get("fieldManager") ?? undefined;
  if (fieldManager !== undefined && fieldManager.length > 128) {
    throw StatusError.badRequest("fieldManager: Too long: must have at most 128 bytes");
  }
  return {
    // `dryRun=All` is a dry run; a bare `dryRun` (no value) is accepted and allows side effects.
    dryRun: dry.includes("All"),
    fieldValidation: fieldValidation as WriteQuery["fieldValidation"],
    fieldManager,
  };
}

/** Merges DeleteOptions from a DELETE body with the query parameters (query wins). */
export function parseDeleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  if (body !== undefined && !isObject(body)) {
    throw StatusError.badRequest("the body of a delete request must be a DeleteOptions object");
  }
  const opts = { ...(body ?? {}) } as DeleteOptions;
  if (opts.kind !== undefined && opts.kind !== "DeleteOptions") {
    throw StatusError.badRequest(`expected DeleteOptions, got ${opts.kind}`);
  }
  const grace = q.get("gracePeriodSeconds");
  if (grace !== null) {
    if (!/^-?[0-9]+$/.test(grace)) {
      throw StatusError.badRequest(`invalid gracePeriodSeconds: ${JSON.stringify(grace)}`);
    }
    opts.gracePeriodSeconds = Number(grace);
  }
  const policy = q.get("propagationPolicy");
  if (policy !== null) opts.propagationPolicy = policy as DeleteOptions["propagationPolicy"];
  if (q.has("orphanDependents")) opts.orphanDependents = parseBool(q.get("orphanDependents"));
  if (opts.gracePeriodSeconds !== undefined && !Number.isSafeInteger(opts.gracePeriodSeconds)) {
    throw StatusError.badRequest("gracePeriodSeconds must be an integer");
  }
  return opts;
}
