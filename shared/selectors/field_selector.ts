/**
 * Field selectors: the `fieldSelector` query grammar of Kubernetes (`a=b`, `a==b`, `a!=b`,
 * comma-separated, with `\\`, `\,` and `\=` escapes in values), matching, the canonical string
 * form, and the per-kind check of which field labels are supported. Errors are
 * {@link SelectorError}s (400) with Kubernetes' messages.
 *
 * @module
 */
import { compareStrings, goQuote } from "../api/validation/go_quote.ts";
import { SelectorError } from "./selector_error.ts";

/** One term of a field selector. `==` parses to `=`. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: "=" | "!=";
  readonly value: string;
}

/**
 * Maps a field label (and value) to the label the kind stores, or throws a
 * {@link SelectorError} when the kind does not support it. Returning two empty strings drops
 * the term.
 */
export type FieldLabelConverter = (label: string, value: string) => [string, string];

/** A parsed field selector. Immutable. */
export class FieldSelector {
  /** The terms, all of which must hold. */
  readonly requirements: readonly FieldRequirement[];

  constructor(requirements: readonly FieldRequirement[]) {
    this.requirements = [...requirements];
  }

  static #EVERYTHING = new FieldSelector([]);

  /** The selector that matches everything. */
  static everything(): FieldSelector {
    return FieldSelector.#EVERYTHING;
  }

  /** True when the selector does not restrict anything. */
  empty(): boolean {
    return this.requirements.length === 0;
  }

  /** Whether `fields` satisfy every term; a missing field reads as the empty string. */
  matches(fields: Readonly<Record<string, string>>): boolean {
    for (const r of this.requirements) {
      const have = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] : "";
      if ((have === r.value) !== (r.operator === "=")) return false;
    }
    return true;
  }

  /** The value `field` must equal when a `=`/`==` term pins it; undefined otherwise. */
  exactMatch(field: string): string | undefined {
    for (const r of this.requirements) {
      if (r.operator === "=" && r.field === field) return r.value;
    }
    return undefined;
  }

  /**
   * Rewrites every term through `convert` (Kubernetes' `Transform`), dropping terms it maps to
   * an empty label and value. Throws what `convert` throws.
   */
  transform(convert: FieldLabelConverter): FieldSelector {
    const out: FieldRequirement[] = [];
    for (const r of this.requirements) {
      const [field, value] = convert(r.field, r.value);
      if (field.length === 0 && value.length === 0) continue;
      out.push({ field, operator: r.operator, value });
    }
    return new FieldSelector(out);
  }

  /** The canonical string form (`a=b,c!=d`, values escaped). */
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`)
      .join(",");
  }
}

/** Escapes `\`, `,` and `=` in a field selector value. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => "\\" + c);
}

/** Reverses {@link escapeFieldValue}; rejects unknown escapes and unescaped `,` or `=`. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = "";
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") out += c;
      else throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === "\\") inSlash = true;
    else if (c === "," || c === "=") {
      throw new SelectorError(
        `invalid field selector: unescaped character in value: ${c.codePointAt(0)}`,
      );
    } else out += c;
  }
  if (inSlash) throw new SelectorError("invalid field selector: invalid escape sequence: \\");
  return out;
}

function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const OPERATORS = ["!=", "==", "="] as const;

function splitTerm(term: string): [string, string, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/**
 * Parses the `fieldSelector` string grammar; the empty string selects everything. Terms are
 * sorted as Kubernetes sorts them. Throws a {@link SelectorError} on bad input.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort(compareStrings);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const split = splitTerm(part);
    if (!split) {
      throw new SelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    }
    const [field, op, rhs] = split;
    const value = unescapeFieldValue(rhs);
    reqs.push({ field, operator: op === "!=" ? "!=" : "=", value });
  }
  return reqs.length === 0 ? FieldSelector.everything() : new FieldSelector(reqs);
}

/**
 * The converter of kinds that declare their selectable fields: the listed labels (plus
 * `aliases`, old names mapped to current ones) pass, anything else fails with
 * `field label not supported: <label>`.
 */
export function supportedFieldLabels(
  supported: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
  message: (label: string) => string = (label) => `field label not supported: ${label}`,
): FieldLabelConverter {
  const set = new Set(supported);
  return (label, value) => {
    if (set.has(label)) return [label, value];
    if (Object.prototype.hasOwnProperty.call(aliases, label)) return [aliases[label], value];
    throw new SelectorError(message(label));
  };
}

/**
 * The converter Kubernetes applies to kinds without their own field labels: only
 * `metadata.name` and `metadata.namespace`, other labels failing with
 * `"<label>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
export const defaultMetaFieldLabels: FieldLabelConverter = (label, value) => {
  if (label === "metadata.name" || label === "metadata.namespace") return [label, value];
  throw new SelectorError(
    `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
  );
};

/**
 * Checks a parsed selector against the field names a kind supports (Kubernetes'
 * `field label not supported: <name>`) and returns it.
 */
export function validateFieldSelector(
  selector: FieldSelector,
  supported: readonly string[],
): FieldSelector {
  return selector.transform(supportedFieldLabels(supported));
}
