/**
 * Redaction of secrets in log fields: values under secret-bearing names are replaced, wherever
 * they appear, and credential-shaped text inside other strings is masked.
 *
 * @module
 */

/** What a redacted value is replaced with. */
export const REDACTED = "[redacted]";

const SECRET_NAME_PARTS = [
  "authorization",
  "token",
  "password",
  "passwd",
  "passphrase",
  "secret",
  "cookie",
  "credential",
  "bearer",
  "apikey",
  "privatekey",
  "keydata",
  "signature",
];

const MAX_DEPTH = 12;

/**
 * Whether a field name is secret-bearing: case, `-`, `_`, `.` and spaces are ignored; names
 * containing authorization, token, password, passwd, passphrase, secret, cookie, credential,
 * bearer, apikey, privatekey, keydata or signature, and names that are or end in `key`, are.
 */
export function isSecretFieldName(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_.\s]/g, "");
  if (n.endsWith("key")) return true;
  return SECRET_NAME_PARTS.some((part) => n.includes(part));
}

const TEXT_PATTERNS: [RegExp, string][] = [
  // Authorization header values: `Bearer abc`, `Basic abc=`.
  [/\b(bearer|basic)(\s+)[A-Za-z0-9\-._~+/]+=*/gi, `$1$2${REDACTED}`],
  // Credentials in query strings: `?access_token=...`, `&token=...`.
  [/([?&](?:access_token|token|password|secret)=)[^&\s"']*/gi, `$1${REDACTED}`],
  // JSON Web Tokens anywhere.
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_.-]+/g, REDACTED],
  // PEM private keys.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  // user:password@ in URLs.
  [/(\/\/[^/\s:@]+:)[^/\s@]+@/g, `$1${REDACTED}@`],
];

/** Masks credential-shaped text (bearer and basic values, JWTs, private keys, URL passwords). */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [re, replacement] of TEXT_PATTERNS) out = out.replace(re, replacement);
  return out;
}

/**
 * Returns a JSON-safe copy of a value with every secret-bearing field replaced by
 * {@link REDACTED}, at any depth (objects, arrays, Maps, Headers), and credential-shaped text
 * masked. The `data` and `stringData` of an object with `kind: "Secret"` are redacted too.
 * Errors become their message; cycles become `"[circular]"`; bigints become strings.
 */
export function redactValue(value: unknown): unknown {
  return redact(value, new WeakSet(), 0);
}

function redact(value: unknown, seen: WeakSet<object>, depth: number): unknown {
  switch (typeof value) {
    case "string":
      return scrubSecrets(value);
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "boolean":
      return value;
    case "bigint":
      return value.toString();
    case "undefined":
      return undefined;
    case "symbol":
      return value.toString();
    case "function":
      return `[function ${value.name || "anonymous"}]`;
  }
  if (value === null) return null;
  const obj = value as object;
  if (seen.has(obj)) return "[circular]";
  if (depth >= MAX_DEPTH) return "[too deep]";
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? "Invalid Date" : obj.toISOString();
  if (obj instanceof Error) return scrubSecrets(obj.message);
  if (obj instanceof Uint8Array || obj instanceof ArrayBuffer) return `[${obj.byteLength} bytes]`;
  if (obj instanceof URL) return scrubSecrets(obj.href);
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return obj.map((v) => redact(v, seen, depth + 1) ?? null);
    if (obj instanceof Headers || obj instanceof Map) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of (obj as Map<unknown, unknown>).entries()) {
        const key = String(k);
        out[key] = isSecretFieldName(key) ? REDACTED : redact(v, seen, depth + 1);
      }
      return out;
    }
    if (obj instanceof Set) return [...obj].map((v) => redact(v, seen, depth + 1) ?? null);
    const record = obj as Record<string, unknown>;
    const isSecretObject = record.kind === "Secret";
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) {
      if (isSecretFieldName(k) || (isSecretObject && (k === "data" || k === "stringData"))) {
        out[k] = REDACTED;
      } else {
        const r = redact(v, seen, depth + 1);
        if (r !== undefined) out[k] = r;
      }
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}
