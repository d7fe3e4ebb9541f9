/**
 * The checks kube-aggregator's remote availability controller makes of one APIService with a
 * Service, in its order and words: the Service exists (`ServiceNotFound`); a ClusterIP Service
 * has the port (`ServicePortError`), EndpointSlices (`EndpointsNotFound`) and a ready endpoint
 * with the port's name (`MissingEndpoints`); then a discovery GET of `/apis/<group>/<version>`
 * as `system:kube-aggregator` in `system:masters` without verifying the certificate, five
 * attempts at once, any success passing (`FailedDiscoveryCheck` otherwise; `Passed`).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { ServiceEndpointSource } from "../webhook/service_resolver.ts";
import type { ApiServiceInfo, ServiceRef } from "./api_service_cache.ts";
import type { Availability } from "./available_condition.ts";
import type { ProxyTransport } from "./proxy_transport.ts";

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** What the checks read and call. */
export interface AvailabilityDeps {
  endpoints: ServiceEndpointSource;
  transport: ProxyTransport;
  /** The discovery GET's deadline, ms (kube: 5 s). */
  timeoutMs?: number;
}

function unavailable(reason: string, message: string): Availability {
  return { status: "False", reason, message };
}

/** The service checks; undefined when they pass. */
async function serviceChecks(
  deps: AvailabilityDeps,
  ref: ServiceRef,
): Promise<Availability | undefined> {
  const where = `service/${ref.name} in "${ref.namespace}"`;
  let svc: KubeObject | undefined;
  try {
    svc = await deps.endpoints.getService(ref.namespace, ref.name);
  } catch (err) {
    return {
      status: "Unknown",
      reason: "ServiceAccessError",
      message: `${where} cannot be checked due to: ${(err as Error).message}`,
    };
  }
  if (!svc) return unavailable("ServiceNotFound", `${where} is not present`);
  const spec = isObject(svc.spec) ? svc.spec : {};
  if ((spec.type ?? "ClusterIP") !== "ClusterIP") return undefined;
  const port = list(spec.ports).find((p) => p.port === ref.port);
  if (!port) {
    return unavailable("ServicePortError", `${where} is not listening on port ${ref.port}`);
  }
  const portName = typeof port.name === "string" ? port.name : "";
  const slices = await deps.endpoints.listEndpointSlices(ref.namespace, ref.name);
  if (slices.length === 0) {
    return unavailable("EndpointsNotFound", `cannot find endpointslices for ${where}`);
  }
  const ready = slices.some((s) => {
    const o = s as unknown as Obj;
    const hasReady = list(o.endpoints).some((e) =>
      !isObject(e.conditions) || e.conditions.ready !== false
    );
    return hasReady &&
      list(o.ports).some((p) => (p.name ?? "") === portName && p.port !== undefined);
  });
  if (!ready) {
    return unavailable(
      "MissingEndpoints",
      `endpointslices for ${where} have no addresses with port name "${portName}"`,
    );
  }
  return undefined;
}

/** One discovery GET; an error message, or undefined on a 2xx/3xx answer. */
async function discoveryAttempt(
  deps: AvailabilityDeps,
  api: ApiServiceInfo,
): Promise<string | undefined> {
  const path = api.name === "v1." ? `/api/${api.version}` : `/apis/${api.group}/${api.version}`;
  let ep: { host: string; port: number };
  try {
    ep = await deps.transport.resolve(api.service!);
  } catch (err) {
    return (err as Error).message;
  }
  const host = ep.host.includes(":") ? `[${ep.host}]` : ep.host;
  const url = `https://${host}:${ep.port}${path}`;
  try {
    const res = await deps.transport.send({
      ...api,
      insecureSkipTLSVerify: true,
      caBundle: undefined,
    }, {
      method: "GET",
      path,
      endpoint: ep,
      headers: { "x-remote-user": "system:kube-aggregator", "x-remote-group": "system:masters" },
      timeoutMs: deps.timeoutMs ?? 5_000,
    });
    await res.body?.cancel();
    if (res.status < 200 || res.status >= 300) {
      return `failing or missing response from ${url}: bad status from ${url}: ${res.status}`;
    }
    return undefined;
  } catch (err) {
    return `failing or missing response from ${url}: Get "${url}": ${(err as Error).message}`;
  }
}

/** Runs the checks of a remote APIService and answers its availability. */
export async function checkAvailability(
  deps: AvailabilityDeps,
  api: ApiServiceInfo,
): Promise<Availability> {
  const failed = await serviceChecks(deps, api.service!);
  if (failed) return failed;
  const results = await Promise.all([1, 2, 3, 4, 5].map(() => discoveryAttempt(deps, api)));
  if (results.some((r) => r === undefined)) {
    return { status: "True", reason: "Passed", message: "all checks passed" };
  }
  return unavailable("FailedDiscoveryCheck", results.at(-1)!);
}
