/**
 * Label requirements: one `key operator values` term of a selector, its validation as
 * Kubernetes' `labels.NewRequirement` (with Kubernetes' messages), matching against labels,
 * and its canonical string form.
 *
 * @module
 */
import { compareStrings, goQuote } from "../api/validation/go_quote.ts";
import { isQualifiedName, isValidLabelValue } from "../api/validation/identifiers.ts";
import { SelectorError } from "./selector_error.ts";

/** Operators of a label requirement, spelled as Kubernetes' `selection.Operator`. */
export type LabelOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

/** One requirement: all requirements of a selector must hold. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** The operators taking values, as the parser lists them in messages. */
export const BINARY_OPERATORS = ["in", "notin", "=", "==", "!=", "gt", "lt"];
const VALID_OPERATORS = [...BINARY_OPERATORS, "exists", "!"];

function has(labels: Readonly<Record<string, string>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

const INT64 = /^[+-]?[0-9]+$/;

function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const v = BigInt(s);
  if (v > 9223372036854775807n || v < -9223372036854775808n) return undefined;
  return v;
}

/** Whether `labels` satisfy `r`. */
export function requirementMatches(
  r: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return has(labels, r.key) && r.values.includes(labels[r.key]);
    case "notin":
    case "!=":
      return !has(labels, r.key) || !r.values.includes(labels[r.key]);
    case "exists":
      return has(labels, r.key);
    case "!":
      return !has(labels, r.key);
    case "gt":
    case "lt": {
      if (!has(labels, r.key) || r.values.length !== 1) return false;
      const have = parseInt64(labels[r.key]);
      const want = parseInt64(r.values[0]);
      if (have === undefined || want === undefined) return false;
      return r.operator === "gt" ? have > want : have < want;
    }
  }
}

/** The canonical string form of `r` (`a=b`, `c in (d,e)`, `!f`). */
export function requirementString(r: LabelRequirement): string {
  let s = r.operator === "!" ? "!" + r.key : r.key;
  switch (r.operator) {
    case "exists":
    case "!":
      return s;
    case "=":
    case "==":
    case "!=":
      s += r.operator;
      break;
    case "in":
    case "notin":
      s += ` ${r.operator} (`;
      break;
    case "gt":
      s += ">";
      break;
    case "lt":
      s += "<";
      break;
  }
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(compareStrings).join(",");
  s += values;
  if (r.operator === "in" || r.operator === "notin") s += ")";
  return s;
}

/** A Go `field.Error` rendered as `<path>: Invalid value: <%q value>: <detail>`. */
export function invalidMessage(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${goQuote(value)}: ${detail}`;
}

function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(", ")}}`;
}

/** Aggregates messages as Kubernetes' `utilerrors.NewAggregate(...).Error()` does. */
function aggregate(msgs: string[]): string {
  const unique = [...new Set(msgs)];
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

/** Joins a path prefix and a child the way `field.Path` prints it (nil path prints as the child). */
function child(path: string | undefined, name: string): string {
  return path ? `${path}.${name}` : name;
}

/**
 * Validates and builds one requirement, as Kubernetes' `labels.NewRequirement`. Throws a
 * {@link SelectorError} with the aggregated field errors when the key, operator or values are
 * not acceptable. `path` prefixes field paths in messages (none by default).
 */
export function newRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
  path?: string,
): LabelRequirement {
  const msgs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) msgs.push(invalidMessage(child(path, "key"), key, keyErrs.join("; ")));
  const valuesPath = child(path, "values");
  switch (operator) {
    case "in":
    case "notin":
      if (values.length === 0) {
        msgs.push(
          `${valuesPath}: Invalid value: ${goStringSlice(values)}: ` +
            "for 'in', 'notin' operators, values set can't be empty",
        );
      }
      break;
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1) {
        msgs.push(
          `${valuesPath}: Invalid value: ${goStringSlice(values)}: ` +
            "exact-match compatibility requires one single value",
        );
      }
      break;
    case "exists":
    case "!":
      if (values.length !== 0) {
        msgs.push(
          `${valuesPath}: Invalid value: ${goStringSlice(values)}: ` +
            "values set must be empty for exists and does not exist",
        );
      }
      break;
    case "gt":
    case "lt":
      if (values.length !== 1) {
        msgs.push(
          `${valuesPath}: Invalid value: ${goStringSlice(values)}: ` +
            "for 'Gt', 'Lt' operators, exactly one value is required",
        );
      }
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          msgs.push(
            invalidMessage(
              `${valuesPath}[${i}]`,
              v,
              "for 'Gt', 'Lt' operators, the value must be an integer",
            ),
          );
        }
      });
      break;
    default:
      msgs.push(
        `${child(path, "operator")}: Unsupported value: ${goQuote(String(operator))}: ` +
          `supported values: ${VALID_OPERATORS.map(goQuote).join(", ")}`,
      );
  }
  values.forEach((v, i) => {
    const errs = isValidLabelValue(v);
    if (errs.length > 0) {
      msgs.push(invalidMessage(`${valuesPath}[${i}][${key}]`, v, errs.join("; ")));
    }
  });
  if (msgs.length > 0) throw new SelectorError(aggregate(msgs));
  return { key, operator, values: [...values] };
}
