/**
 * Conversions of the messages whose JSON form is not an object of their fields: Time and
 * MicroTime (RFC 3339 strings), Duration (a Go duration string, nanoseconds on the wire), Quantity (a string), IntOrString (a number or a string), and the
 * base64 text of `bytes` fields.
 *
 * @module
 */
import { ProtobufError } from "./protobuf_error.ts";

/**
 * apiextensions/v1 messages whose JSON is not their fields: JSON (any value, as raw JSON bytes)
 * and the JSONSchemaPropsOr{Array,Bool,StringArray} wrappers (see json_schema_wrappers.ts).
 */
export const JSON_SCHEMA_WRAPPERS: readonly string[] = [
  "apiextensions.v1.JSON",
  "apiextensions.v1.JSONSchemaPropsOrArray",
  "apiextensions.v1.JSONSchemaPropsOrBool",
  "apiextensions.v1.JSONSchemaPropsOrStringArray",
];

/** Messages converted by the codec itself rather than field by field. */
export const SPECIAL_MESSAGES: ReadonlySet<string> = new Set([
  "meta.v1.Time",
  "meta.v1.MicroTime",
  "meta.v1.Duration",
  "resource.Quantity",
  "intstr.IntOrString",
  "meta.v1.FieldsV1",
  "runtime.RawExtension",
  "authentication.v1.ExtraValue",
  "authorization.v1.ExtraValue",
  "certificates.v1.ExtraValue",
  "meta.v1.Verbs",
  ...JSON_SCHEMA_WRAPPERS,
]);

/** Seconds of Go's zero `time.Time` (0001-01-01T00:00:00Z), which Go encodes as an empty Time. */
export const GO_ZERO_TIME_SECONDS = -62135596800;

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 timestamp into Unix seconds and nanoseconds; undefined when invalid. */
export function parseRfc3339(text: string): { seconds: number; nanos: number } | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCMonth() !== month - 1) return undefined;
  d.setUTCHours(hour, minute, second, 0);
  let seconds = d.getTime() / 1000;
  if (!m[8]) {
    const offset = Number(m[10]) * 3600 + Number(m[11]) * 60;
    seconds -= m[9] === "+" ? offset : -offset;
  }
  const nanos = m[7] ? Number(m[7].padEnd(9, "0")) : 0;
  return { seconds, nanos };
}

/**
 * Formats Unix seconds (and nanoseconds, when `fractionDigits` is 6) as RFC 3339 in UTC the way
 * Go's metav1.Time (`…:05Z`) and metav1.MicroTime (`…:05.000000Z`) do.
 */
export function formatRfc3339(seconds: number, nanos: number, fractionDigits: 0 | 6): string {
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  if (Number.isNaN(d.getTime()) || year < 0 || year > 9999) {
    throw new ProtobufError("Malformed", `timestamp out of range: ${seconds}s`);
  }
  const iso = d.toISOString().slice(0, 19);
  if (fractionDigits === 0) return `${iso}Z`;
  const micros = Math.floor(Math.max(0, nanos) / 1000);
  return `${iso}.${String(micros).padStart(6, "0")}Z`;
}

/** Encodes bytes as standard base64 with padding, as Go's encoding/json does for `[]byte`. */
export function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/** Decodes standard base64; undefined when the text is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  let s: string;
  try {
    s = atob(text);
  } catch {
    return undefined;
  }
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
