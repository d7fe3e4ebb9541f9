/**
 * The string formats custom resource validation checks (apiextensions' supported formats,
 * go-openapi strfmt semantics): names are normalized as strfmt does (`date-time` is
 * `datetime`), and unknown formats are not checked.
 *
 * @module
 */
import { isIP, parseCidr } from "../../../../shared/api/validation/network_addresses.ts";
import { parseGoDuration } from "../../../cel/mod.ts";

const re = (r: RegExp) => (s: string) => r.test(s);

function validDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

function validDateTime(s: string): boolean {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/
    .exec(s);
  return !!m && validDate(m[1]) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 61;
}

const DURATION_WORDS =
  /^(?:\d+\s*(?:ns|us|µs|μs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)\s*)+$/i;

function validDuration(s: string): boolean {
  return parseGoDuration(s) !== undefined || DURATION_WORDS.test(s);
}

function validUri(s: string): boolean {
  if (s.startsWith("/")) return !/\s/.test(s);
  try {
    return new URL(s).protocol !== "" && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s);
  } catch {
    return false;
  }
}

function validIsbn10(s: string): boolean {
  const d = s.replace(/[\s-]/g, "");
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (d[i] === "X" ? 10 : Number(d[i])) * (10 - i);
  return sum % 11 === 0;
}

function validIsbn13(s: string): boolean {
  const d = s.replace(/[\s-]/g, "");
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;

const CHECKS: Record<string, (s: string) => boolean> = {
  bsonobjectid: re(/^[0-9a-fA-F]{24}$/),
  uri: validUri,
  email: re(/^(?:[^<>@\s]+\s*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/),
  hostname: (s) => s.length <= 255 && HOSTNAME.test(s),
  ipv4: (s) => s.includes(".") && !s.includes(":") && isIP(s),
  ipv6: (s) => s.includes(":") && isIP(s),
  cidr: (s) => parseCidr(s) !== null,
  mac: re(
    /^(?:[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){5}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){7}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){19}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){2}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){3}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){9})$/,
  ),
  uuid: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i),
  uuid3: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i),
  uuid4: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i),
  uuid5: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i),
  isbn: (s) => validIsbn10(s) || validIsbn13(s),
  isbn10: validIsbn10,
  isbn13: validIsbn13,
  creditcard: (s) =>
    /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/
      .test(s.replace(/\D/g, "")),
  ssn: re(/^\d{3}[- ]?\d{2}[- ]?\d{4}$/),
  hexcolor: re(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/),
  rgbcolor: re(
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/,
  ),
  byte: re(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/),
  password: () => true,
  date: validDate,
  duration: validDuration,
  datetime: validDateTime,
};

/** strfmt's name normalization: `date-time`, `DateTime` and `datetime` are one format. */
export function normalizeFormat(format: string): string {
  return format.replace(/[-_ ]/g, "").toLowerCase();
}

/** False when `value` is not of `format`; true for formats Kubernetes does not check. */
export function matchesFormat(format: string, value: string): boolean {
  const check = CHECKS[normalizeFormat(format)];
  return check ? check(value) : true;
}
