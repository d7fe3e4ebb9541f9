/** IPv4 service ranges (`--service-cluster-ip-range`) and port ranges (`--service-node-port-range`). */

/** Whether `s` is a dotted-quad IPv4 address in canonical form. */
export function isIPv4(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 &&
    parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

function toInt(ip: string): number {
  return ip.split(".").reduce((n, p) => n * 256 + Number(p), 0);
}

function toIP(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

/** A range of values the allocator hands out: `size` values, by offset. */
export interface AllocationRange {
  /** What the range is, as the flag gave it (for messages). */
  readonly text: string;
  readonly size: number;
  /** The value at `offset` (0 ≤ offset < size). */
  at(offset: number): string;
  /** The offset of `value`, or undefined if it is not in the range. */
  offsetOf(value: string): number | undefined;
}

/**
 * An IPv4 CIDR as a range of assignable addresses: without the network and broadcast
 * addresses, as Kubernetes' allocator (so the first one is the `kubernetes` Service's).
 */
export function parseCIDR(text: string): AllocationRange {
  const m = /^([0-9.]+)\/([0-9]{1,2})$/.exec(text);
  const bits = m ? Number(m[2]) : -1;
  if (!m || !isIPv4(m[1]) || bits > 30 || bits < 8) {
    throw new Error(`invalid IPv4 CIDR ${JSON.stringify(text)} (prefix lengths 8 to 30)`);
  }
  const span = 2 ** (32 - bits);
  const base = toInt(m[1]) - (toInt(m[1]) % span);
  const size = span - 2;
  return {
    text: `${toIP(base)}/${bits}`,
    size,
    at: (offset) => toIP(base + 1 + offset),
    offsetOf(value) {
      if (!isIPv4(value)) return undefined;
      const o = toInt(value) - base - 1;
      return o >= 0 && o < size ? o : undefined;
    },
  };
}

/** A port range `first-last` (or a single port). */
export function parsePortRange(text: string): AllocationRange {
  const m = /^([0-9]{1,5})(?:-([0-9]{1,5}))?$/.exec(text.trim());
  const first = m ? Number(m[1]) : 0, last = m ? Number(m[2] ?? m[1]) : 0;
  if (!m || first < 1 || last > 65535 || last < first) {
    throw new Error(`invalid port range ${JSON.stringify(text)} (e.g. 30000-32767)`);
  }
  return {
    text: `${first}-${last}`,
    size: last - first + 1,
    at: (offset) => String(first + offset),
    offsetOf(value) {
      const n = Number(value);
      return Number.isInteger(n) && n >= first && n <= last ? n - first : undefined;
    },
  };
}
