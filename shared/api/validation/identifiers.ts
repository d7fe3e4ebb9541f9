/**
 * Kubernetes' identifier rules (k8s.io/apimachinery/pkg/util/validation): DNS-1123 labels and
 * subdomains, DNS-1035 labels, qualified names and label values. Each check returns the list of
 * problems with Kubernetes' exact wording; an empty list means valid. Lengths are UTF-8 bytes.
 *
 * @module
 */
import { byteLength } from "./go_quote.ts";

const QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QNAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QNAME_MAX = 63;
const QNAME_RE = new RegExp(`^${QNAME_FMT}$`);

const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

const CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+";
const CONFIG_MAP_KEY_ERR =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const CONFIG_MAP_KEY_RE = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** Maximum length of a label value. */
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Maximum length of a DNS-1123 label. */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** Maximum length of a DNS-1123 subdomain. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Maximum length of a DNS-1035 label. */
export const DNS1035_LABEL_MAX_LENGTH = 63;

/** `must be no more than N characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `must be non-empty`. */
export function emptyError(): string {
  return "must be non-empty";
}

/** A regex failure explained with examples, worded as Kubernetes' `RegexError`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Go joins the examples with " or " after their ", ", so two spaces come before each "or".
  const shown = examples.map((e) => `'${e}', `).join(" or ");
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

/** Checks a DNS-1123 label (at most 63 characters, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) {
    errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  }
  if (!DNS1123_LABEL_RE.test(value)) {
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

/** Checks a DNS-1123 subdomain (at most 253 characters, dot-separated labels). */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  }
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
  }
  return errs;
}

/** Checks a DNS-1035 label (starts with a letter). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) {
    errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  }
  if (!DNS1035_LABEL_RE.test(value)) {
    errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  }
  return errs;
}

/**
 * Checks a qualified name: an optional DNS-1123 subdomain prefix and `/`, then a name of at
 * most 63 characters (label keys, annotation keys, finalizers).
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push("prefix part " + emptyError());
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => "prefix part " + m));
  } else {
    errs.push(
      "a qualified name " + regexError(QNAME_ERR, QNAME_FMT, "MyName", "my.name", "123-abc") +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return errs;
  }
  if (name.length === 0) errs.push("name part " + emptyError());
  else if (byteLength(name) > QNAME_MAX) errs.push("name part " + maxLenError(QNAME_MAX));
  if (!QNAME_RE.test(name)) {
    errs.push("name part " + regexError(QNAME_ERR, QNAME_FMT, "MyName", "my.name", "123-abc"));
  }
  return errs;
}

/** Checks a label value: empty, or at most 63 characters of `[-A-Za-z0-9_.]` with alphanumeric ends. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  }
  return errs;
}

/** Checks that a name can be a URL path segment (not `.` or `..`, no `/` or `%`). */
export function isValidPathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  return isValidPathSegmentPrefix(name);
}

/** Checks that a generateName prefix can start a URL path segment (no `/` or `%`). */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  if (name.includes("/")) errs.push("may not contain '/'");
  if (name.includes("%")) errs.push("may not contain '%'");
  return errs;
}

/**
 * Checks a ConfigMap or Secret key: at most 253 bytes of `[-._a-zA-Z0-9]`, and not `.`, `..`
 * or starting with `..`.
 */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  }
  if (!CONFIG_MAP_KEY_RE.test(value)) {
    errs.push(
      regexError(CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"),
    );
  }
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}
