/**
 * Kubernetes' CEL URL library: `isURL`, `url` and the accessors. Parsing follows Go's
 * `url.ParseRequestURI`: an absolute URI with a scheme, or an absolute path.
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import { celError } from "../errors.ts";

const sync = { async: false };

/** A parsed URL, the CEL type `kubernetes.URL`. */
export class CelURL {
  /** Creates a URL from its parsed parts. */
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly rawPath: string,
    readonly rawQuery: string,
  ) {}

  /** The host without port and without IPv6 brackets. */
  hostname(): string {
    const h = this.host;
    if (h.startsWith("[")) return h.slice(1, h.indexOf("]"));
    const i = h.lastIndexOf(":");
    return i >= 0 ? h.slice(0, i) : h;
  }

  /** The port, or "" when none is given. */
  port(): string {
    const h = this.host;
    const close = h.startsWith("[") ? h.indexOf("]") : -1;
    const i = h.lastIndexOf(":");
    return i > close ? h.slice(i + 1) : "";
  }

  /** Reports whether two URLs have the same parts. */
  equals(o: unknown): boolean {
    return o instanceof CelURL && o.toString() === this.toString();
  }

  /** Renders the URL. */
  toString(): string {
    const auth = this.scheme ? `${this.scheme}://${this.host}` : "";
    return `${auth}${this.rawPath}${this.rawQuery ? "?" + this.rawQuery : ""}`;
  }
}

const HEX = /%(?![0-9a-fA-F]{2})/;

function unescape(s: string, plusIsSpace: boolean): string {
  if (HEX.test(s)) throw new Error(`invalid URL escape`);
  const t = plusIsSpace ? s.replace(/\+/g, " ") : s;
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < t.length; i++) {
    if (t[i] === "%") {
      bytes.push(parseInt(t.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...enc.encode(t[i]));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Parses like Go's `url.ParseRequestURI`; returns an error message when invalid. */
export function parseURL(raw: string): CelURL | string {
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return "net/url: invalid control character in URL";
  if (raw === "") return "empty url";
  let rest = raw, scheme = "";
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (!rest.startsWith("/")) return "invalid URI for request";
  let rawQuery = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = "";
  if (scheme) {
    if (!rest.startsWith("/")) return "invalid URI for request";
    if (rest.startsWith("//")) {
      rest = rest.slice(2);
      const slash = rest.indexOf("/");
      const authority = slash >= 0 ? rest.slice(0, slash) : rest;
      rest = slash >= 0 ? rest.slice(slash) : "";
      const at = authority.lastIndexOf("@");
      host = at >= 0 ? authority.slice(at + 1) : authority;
      const err = validateHost(host);
      if (err) return err;
    }
  } else if (rest.startsWith("//")) {
    return "invalid URI for request";
  }
  try {
    unescape(rest, false);
    if (rawQuery) unescape(rawQuery, true);
  } catch {
    return "invalid URL escape";
  }
  if (/\s/.test(rest)) return "invalid character in path";
  return new CelURL(scheme, host, rest, rawQuery);
}

function validateHost(host: string): string | undefined {
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close < 0) return "missing ']' in host";
    const after = host.slice(close + 1);
    if (after && !/^:\d*$/.test(after)) return `invalid port "${after}" after host`;
    return undefined;
  }
  const i = host.lastIndexOf(":");
  if (i >= 0 && !/^\d*$/.test(host.slice(i + 1))) {
    return `invalid port "${host.slice(i)}" after host`;
  }
  const name = i >= 0 ? host.slice(0, i) : host;
  if (!/^[A-Za-z0-9\-._~!$&'()*+,;=%]*$/.test(name)) return `invalid character in host name`;
  try {
    unescape(name, false);
  } catch {
    return "invalid URL escape";
  }
  return undefined;
}

function escapedPath(u: CelURL): string {
  return u.rawPath.replace(
    /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g,
    (c) =>
      Array.from(
        new TextEncoder().encode(c),
        (b) => "%" + b.toString(16).toUpperCase().padStart(2, "0"),
      )
        .join(""),
  );
}

function query(u: CelURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!u.rawQuery) return out;
  for (const part of u.rawQuery.split("&")) {
    if (part === "" || part.includes(";")) continue;
    const eq = part.indexOf("=");
    try {
      const k = unescape(eq >= 0 ? part.slice(0, eq) : part, true);
      const v = unescape(eq >= 0 ? part.slice(eq + 1) : "", true);
      const list = out.get(k);
      if (list) list.push(v);
      else out.set(k, [v]);
    } catch {
      continue;
    }
  }
  return out;
}

/** Registers the URL library on `env`. */
export function registerURLLibrary(env: Environment): void {
  env.registerType("kubernetes.URL", CelURL);
  env.registerOperator("kubernetes.URL == kubernetes.URL", (a: CelURL, b: CelURL) => a.equals(b));
  env.registerFunction("isURL(string): bool", (s: string) => typeof parseURL(s) !== "string", sync);
  env.registerFunction("url(string): kubernetes.URL", (s: string) => {
    const u = parseURL(s);
    if (typeof u === "string") {
      throw celError("invalid_argument", `URL parse error during conversion from string: ${u}`);
    }
    return u;
  }, sync);
  env.registerFunction("kubernetes.URL.getScheme(): string", (u: CelURL) => u.scheme, sync);
  env.registerFunction("kubernetes.URL.getHost(): string", (u: CelURL) => u.host, sync);
  env.registerFunction("kubernetes.URL.getHostname(): string", (u: CelURL) => u.hostname(), sync);
  env.registerFunction("kubernetes.URL.getPort(): string", (u: CelURL) => u.port(), sync);
  env.registerFunction("kubernetes.URL.getEscapedPath(): string", escapedPath, sync);
  env.registerFunction("kubernetes.URL.getQuery(): map<string, list<string>>", query, sync);
}
