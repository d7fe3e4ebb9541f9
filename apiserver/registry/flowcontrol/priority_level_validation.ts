/**
 * Validation of PriorityLevelConfigurations as Kubernetes 1.32's flowcontrol validation does
 * it: type Exempt exactly for `exempt`, the limited or exempt section matching the type, shares
 * and percentages in range, a queuing configuration whose shuffle sharding is possible, the
 * mandatory levels' fixed specs (the `exempt` level's `spec.exempt` may change), and conditions
 * with unique, non-empty types.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../shared/errors/status_error.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../shared/api/validation/field_errors.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { mandatoryPriorityLevels } from "./bootstrap_configuration.ts";
import { mandatorySpecProblem, objOf, validateConditions } from "./flowcontrol_fields.ts";

const MAX_QUEUES = 10_000_000;
/** Bits of hash shuffle sharding may use (Kubernetes' shufflesharding.MaxHashBits). */
const MAX_HASH_BITS = 60;

function int(v: unknown): number {
  return typeof v === "number" ? v : 0;
}

function validatePercent(path: string, v: unknown): FieldError[] {
  return typeof v === "number" && !(v >= 0 && v <= 100)
    ? [invalid(path, v, "must be between 0 and 100, inclusive")]
    : [];
}

function validateQueuing(path: string, q: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const [queues, handSize, limit] = [int(q.queues), int(q.handSize), int(q.queueLengthLimit)];
  if (limit <= 0) errs.push(invalid(`${path}.queueLengthLimit`, limit, "must be positive"));
  if (queues <= 0) errs.push(invalid(`${path}.queues`, queues, "must be positive"));
  else if (queues > MAX_QUEUES) {
    errs.push(invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  }
  if (handSize <= 0) errs.push(invalid(`${path}.handSize`, handSize, "must be positive"));
  else if (handSize > queues) {
    errs.push(
      invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`),
    );
  } else if (Math.ceil(handSize * Math.log2(queues)) > MAX_HASH_BITS) {
    errs.push(
      invalid(
        `${path}.handSize`,
        handSize,
        `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be ` +
          `greater than ${MAX_HASH_BITS}`,
      ),
    );
  }
  return errs;
}

function validateLimitResponse(path: string, lr: Record<string, unknown>): FieldError[] {
  switch (lr.type) {
    case "Reject":
      return lr.queuing !== undefined && lr.queuing !== null
        ? [
          forbidden(
            `${path}.queuing`,
            "must be nil if limited.limitResponse.type is not Limited",
          ),
        ]
        : [];
    case "Queue":
      return isObject(lr.queuing) ? validateQueuing(`${path}.queuing`, lr.queuing) : [
        required(
          `${path}.queuing`,
          "must not be empty if limited.limitResponse.type is Limited",
        ),
      ];
    default:
      return [notSupported(`${path}.type`, lr.type ?? "", ["Queue", "Reject"])];
  }
}

function validateLimited(path: string, l: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const shares = int(l.nominalConcurrencyShares);
  if (shares < 0) {
    errs.push(
      invalid(`${path}.nominalConcurrencyShares`, shares, "must be a non-negative integer"),
    );
  }
  errs.push(...validateLimitResponse(`${path}.limitResponse`, objOf(l.limitResponse)));
  errs.push(...validatePercent(`${path}.lendablePercent`, l.lendablePercent));
  const borrowing = l.borrowingLimitPercent;
  if (typeof borrowing === "number" && borrowing < 0) {
    errs.push(
      invalid(
        `${path}.borrowingLimitPercent`,
        borrowing,
        "if specified, must be a non-negative integer",
      ),
    );
  }
  return errs;
}

function validateExempt(path: string, e: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const shares = e.nominalConcurrencyShares;
  if (typeof shares === "number" && shares < 0) {
    errs.push(
      invalid(`${path}.nominalConcurrencyShares`, shares, "must be a non-negative integer"),
    );
  }
  errs.push(...validatePercent(`${path}.lendablePercent`, e.lendablePercent));
  return errs;
}

function validateSpec(name: string, spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const type = spec.type ?? "";
  if ((name === "exempt") !== (type === "Exempt")) {
    errs.push(invalid("spec.type", type, "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  const has = (f: string) => spec[f] !== undefined && spec[f] !== null;
  if (type === "Exempt") {
    if (has("limited")) {
      errs.push(forbidden("spec.limited", "must be nil if the type is not Limited"));
    }
    if (has("exempt")) errs.push(...validateExempt("spec.exempt", objOf(spec.exempt)));
  } else if (type === "Limited") {
    if (has("exempt")) errs.push(forbidden("spec.exempt", "must be nil if the type is Limited"));
    if (!isObject(spec.limited)) {
      errs.push(required("spec.limited", "must not be empty when type is Limited"));
    } else errs.push(...validateLimited("spec.limited", spec.limited));
  } else {
    errs.push(notSupported("spec.type", type, ["Exempt", "Limited"]));
  }
  return errs;
}

/** Validates a PriorityLevelConfiguration (create and update alike). */
export function validatePriorityLevel(obj: KubeObject): FieldError[] {
  const name = obj.metadata.name ?? "";
  const spec = objOf(obj.spec);
  const errs = validateSpec(name, spec);
  const mandatory = mandatoryPriorityLevels().find((m) => m.metadata.name === name);
  if (mandatory) {
    errs.push(...mandatorySpecProblem(name, spec, objOf(mandatory.spec), name === "exempt"));
  }
  errs.push(...validateConditions(obj));
  return errs;
}
