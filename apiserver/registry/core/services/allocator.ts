/**
 * The ClusterIP and NodePort allocators of Services, as the kind's {@link Claims}: every
 * allocated address and port is a key (`/registry/ranges/serviceips/<ip>`,
 * `/registry/ranges/servicenodeports/<port>`) created in the same transaction as the Service
 * that holds it and deleted with it, so no value is handed out twice, also by API servers
 * sharing one database. As in Kubernetes, values the server chooses come first from the upper
 * part of the range, leaving the lower part to values clients ask for.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import type { Storage } from "../../../storage/interface.ts";
import type { Claims } from "../../generic/claims.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import type { AllocationRange } from "./ip_range.ts";
import { portsOf, specOf } from "./validation.ts";

/** Key prefix of allocated ClusterIPs. */
export const CLUSTER_IP_PREFIX = "/registry/ranges/serviceips/";
/** Key prefix of allocated NodePorts. */
export const NODE_PORT_PREFIX = "/registry/ranges/servicenodeports/";

const SERVICE = { group: "", kind: "Service" };

/** What the allocator allocates from. */
export interface ServiceAllocatorOptions {
  storage: Storage;
  clusterIPRange: AllocationRange;
  nodePortRange: AllocationRange;
  /** A number in [0, 1) (tests may fix it). */
  random?: () => number;
}

/** Whether a Service of this spec gets a ClusterIP. */
function wantsClusterIP(spec: Record<string, unknown>): boolean {
  return spec.type !== "ExternalName" && spec.clusterIP !== "None";
}

/** Whether a Service of this spec gets NodePorts. */
function wantsNodePorts(spec: Record<string, unknown>): boolean {
  return spec.type === "NodePort" ||
    (spec.type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts !== false);
}

/** The allocator of one server's Service ranges. */
export class ServiceAllocator implements Claims {
  readonly #opts: ServiceAllocatorOptions;
  readonly #random: () => number;

  constructor(opts: ServiceAllocatorOptions) {
    this.#opts = opts;
    this.#random = opts.random ?? Math.random;
  }

  /** The ClusterIP range. */
  get clusterIPRange(): AllocationRange {
    return this.#opts.clusterIPRange;
  }

  /** {@inheritDoc Claims.keys} */
  keys(obj: KubeObject): Map<string, string> {
    const owner = `${obj.metadata.namespace ?? ""}/${obj.metadata.name ?? ""}`;
    const spec = specOf(obj);
    const keys = new Map<string, string>();
    if (wantsClusterIP(spec) && typeof spec.clusterIP === "string" && spec.clusterIP) {
      keys.set(CLUSTER_IP_PREFIX + spec.clusterIP, owner);
    }
    for (const p of portsOf(spec)) {
      if (p.nodePort) keys.set(NODE_PORT_PREFIX + p.nodePort, owner);
    }
    if (spec.healthCheckNodePort) keys.set(NODE_PORT_PREFIX + spec.healthCheckNodePort, owner);
    return keys;
  }

  /** {@inheritDoc Claims.taken} */
  taken(obj: KubeObject, key: string): StatusError | undefined {
    const spec = specOf(obj);
    if (key.startsWith(CLUSTER_IP_PREFIX)) {
      const ip = key.slice(CLUSTER_IP_PREFIX.length);
      if (spec.clusterIP !== ip) return undefined;
      return this.#invalid(obj, [ipTaken(ip)]);
    }
    const port = Number(key.slice(NODE_PORT_PREFIX.length));
    const i = portsOf(spec).findIndex((p) => p.nodePort === port);
    if (i < 0 && spec.healthCheckNodePort !== port) return undefined;
    const field = i < 0 ? "spec.healthCheckNodePort" : `spec.ports[${i}].nodePort`;
    return this.#invalid(obj, [invalid(field, port, "provided port is already allocated")]);
  }

  /** {@inheritDoc Claims.assign} */
  async assign(obj: KubeObject, old: KubeObject | undefined): Promise<void> {
    const spec = specOf(obj);
    const held = old ? this.keys(old) : new Map<string, string>();
    const errs: FieldError[] = [];
    if (!wantsClusterIP(spec)) {
      if (spec.type === "ExternalName") {
        delete spec.clusterIP;
        delete spec.clusterIPs;
      } else spec.clusterIPs = ["None"];
    } else if (typeof spec.clusterIP === "string" && spec.clusterIP !== "") {
      errs.push(...await this.#checkIP(spec.clusterIP, held));
      spec.clusterIPs = [spec.clusterIP];
    } else {
      spec.clusterIP = await this.#pick(CLUSTER_IP_PREFIX, this.#opts.clusterIPRange, new Set());
      spec.clusterIPs = [spec.clusterIP];
    }
    if (wantsNodePorts(spec)) {
      const used = new Set<string>();
      for (const [i, p] of portsOf(spec).entries()) {
        if (p.nodePort) {
          errs.push(...await this.#checkPort(`spec.ports[${i}].nodePort`, p.nodePort, held, used));
        } else {
          p.nodePort = Number(await this.#pick(NODE_PORT_PREFIX, this.#opts.nodePortRange, used));
        }
        used.add(String(p.nodePort));
      }
    } else if (spec.type !== "ClusterIP") {
      for (const p of portsOf(spec)) delete p.nodePort;
    }
    if (errs.length > 0) throw this.#invalid(obj, errs);
  }

  async #checkIP(ip: string, held: Map<string, string>): Promise<FieldError[]> {
    const range = this.#opts.clusterIPRange;
    if (range.offsetOf(ip) === undefined) {
      return [
        invalid(
          "spec.clusterIPs",
          [ip],
          `failed to allocate IP ${ip}: provided IP (${ip}) is not in the valid range. The range of valid IPs is ${range.text}`,
        ),
      ];
    }
    const key = CLUSTER_IP_PREFIX + ip;
    if (held.has(key) || !await this.#opts.storage.get(key)) return [];
    return [ipTaken(ip)];
  }

  async #checkPort(
    field: string,
    port: unknown,
    held: Map<string, string>,
    used: Set<string>,
  ): Promise<FieldError[]> {
    const range = this.#opts.nodePortRange;
    if (range.offsetOf(String(port)) === undefined) {
      return [
        invalid(
          field,
          port,
          `provided port is not in the valid range. The range of valid ports is ${range.text}`,
        ),
      ];
    }
    const key = NODE_PORT_PREFIX + port;
    if (used.has(String(port)) || held.has(key) || !await this.#opts.storage.get(key)) return [];
    return [invalid(field, port, "provided port is already allocated")];
  }

  /** A free value of `range`, not in `skip`: random probes, then a scan of what is taken. */
  async #pick(prefix: string, range: AllocationRange, skip: Set<string>): Promise<string> {
    const storage = this.#opts.storage;
    const reserved = Math.min(Math.max(16, Math.floor(range.size / 16)), 256);
    const dynamic = range.size > reserved * 2 ? reserved : 0;
    for (let i = 0; i < 8; i++) {
      const offset = dynamic + Math.floor(this.#random() * (range.size - dynamic));
      const value = range.at(offset);
      if (!skip.has(value) && !await storage.get(prefix + value)) return value;
    }
    const taken = new Set(skip);
    for (const kv of (await storage.list(prefix)).items) taken.add(kv.key.slice(prefix.length));
    for (const part of [[dynamic, range.size], [0, dynamic]]) {
      for (let o = part[0]; o < part[1]; o++) if (!taken.has(range.at(o))) return range.at(o);
    }
    const what = prefix === CLUSTER_IP_PREFIX ? "IP" : "port";
    throw new StatusError({
      code: 500,
      reason: "InternalError",
      message: `Internal error occurred: failed to allocate a ${what}: range is full`,
    });
  }

  #invalid(obj: KubeObject, errs: FieldError[]): StatusError {
    return StatusError.invalid(SERVICE, obj.metadata.name ?? "", errs);
  }
}

function ipTaken(ip: string): FieldError {
  return invalid(
    "spec.clusterIPs",
    [ip],
    `failed to allocate IP ${ip}: provided IP is already allocated`,
  );
}
