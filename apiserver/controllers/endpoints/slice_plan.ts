/**
 * Which EndpointSlices of a Service to create, update and delete so that they hold the desired
 * endpoints (a simpler kube reconciler): endpoints are grouped by the port set they serve; an
 * endpoint already in a slice of its group stays there (updated); the others fill slices of
 * the group with room, then new slices of at most `max` endpoints; slices left empty, of
 * another address type or of a port set no endpoint serves are deleted, except that a Service
 * keeps one slice (an empty placeholder when it has no endpoints) unless `placeholder` is false.
 *
 * @module
 */
import type { KubeObject, OwnerReference } from "../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";

/** An endpoint of a slice. */
export interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving?: boolean; terminating?: boolean };
  targetRef?: { uid?: string; name?: string };
  nodeName?: string;
  zone?: string;
  hostname?: string;
}

/** A port of a slice. */
export interface SlicePort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

type Slice = KubeObject & {
  endpoints?: SliceEndpoint[];
  ports?: SlicePort[];
  addressType?: string;
};

/** The writes that bring the slices to the desired state. */
export interface SlicePlan {
  create: KubeObject[];
  update: KubeObject[];
  remove: KubeObject[];
}

const TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";

function portsKey(ports: readonly SlicePort[] | undefined): string {
  return JSON.stringify(
    [...(ports ?? [])].sort((a, b) => a.name.localeCompare(b.name) || a.port - b.port),
  );
}

function endpointKey(ep: SliceEndpoint): string {
  return ep.targetRef?.uid ?? ep.addresses[0];
}

/** Whose slices they are: their labels, controller reference and name prefix. */
export interface SliceOwner {
  namespace: string;
  /** The Service's name (slices are named `<name>-<random>`). */
  name: string;
  labels: Record<string, string>;
  ref: OwnerReference;
}

/** The plan for `svc`'s slices `existing` to hold `desired`. */
export function planSlices(
  svc: SliceOwner,
  existing: readonly KubeObject[],
  desired: readonly { endpoint: SliceEndpoint; ports: SlicePort[] }[],
  addressType: string,
  max: number,
  placeholder = true,
): SlicePlan {
  const plan: SlicePlan = { create: [], update: [], remove: [] };
  const groups = new Map<string, { ports: SlicePort[]; endpoints: Map<string, SliceEndpoint> }>();
  for (const d of desired) {
    const key = portsKey(d.ports);
    const g = groups.get(key) ??
      {
        ports: [...d.ports].sort((a, b) => a.name.localeCompare(b.name) || a.port - b.port),
        endpoints: new Map(),
      };
    groups.set(key, g);
    g.endpoints.set(endpointKey(d.endpoint), d.endpoint);
  }
  const sorted = [...existing as Slice[]].sort((
    a,
    b,
  ) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  const kept: Slice[] = [];
  for (const slice of sorted) {
    const g = slice.addressType === addressType ? groups.get(portsKey(slice.ports)) : undefined;
    if (!g) {
      plan.remove.push(slice);
      continue;
    }
    const endpoints: SliceEndpoint[] = [];
    for (const ep of slice.endpoints ?? []) {
      const want = g.endpoints.get(endpointKey(ep));
      if (!want || endpoints.length >= max) continue;
      endpoints.push(want);
      g.endpoints.delete(endpointKey(ep));
    }
    kept.push(withContent(svc, slice, g.ports, endpoints));
  }
  for (const [key, g] of groups) {
    const rest = [...g.endpoints.values()];
    for (const slice of kept.filter((s) => portsKey(s.ports) === key)) {
      while (rest.length > 0 && slice.endpoints!.length < max) slice.endpoints!.push(rest.shift()!);
    }
    while (rest.length > 0) {
      plan.create.push(newSlice(svc, addressType, g.ports, rest.splice(0, max)));
    }
  }
  for (const slice of kept) {
    const before = sorted.find((s) => s.metadata.uid === slice.metadata.uid)!;
    if (slice.endpoints!.length === 0) plan.remove.push(before);
    else if (!sameContent(before, slice)) plan.update.push(stamp(slice));
  }
  const remaining = kept.length -
    plan.remove.filter((r) => kept.some((k) => k.metadata.uid === r.metadata.uid)).length +
    plan.create.length;
  if (remaining === 0 && placeholder) {
    // One slice always stays: an existing one emptied, or a new placeholder.
    const placeholder = plan.remove.find((s) => (s as Slice).addressType === addressType);
    if (placeholder) {
      plan.remove = plan.remove.filter((s) => s !== placeholder);
      const empty = withContent(svc, placeholder as Slice, [], []);
      if (!sameContent(placeholder as Slice, empty)) plan.update.push(stamp(empty));
    } else {
      plan.create.push(newSlice(svc, addressType, [], []));
    }
  }
  return plan;
}

function withContent(
  svc: SliceOwner,
  slice: Slice,
  ports: SlicePort[],
  endpoints: SliceEndpoint[],
): Slice {
  const copy = structuredClone(slice);
  copy.metadata.labels = { ...copy.metadata.labels, ...svc.labels };
  copy.ports = ports;
  copy.endpoints = endpoints;
  return copy;
}

function sameContent(a: Slice, b: Slice): boolean {
  return deepEqual(a.endpoints ?? [], b.endpoints ?? []) &&
    deepEqual(a.ports ?? [], b.ports ?? []) &&
    deepEqual(a.metadata.labels ?? {}, b.metadata.labels ?? {});
}

function stamp(slice: Slice): Slice {
  slice.metadata.annotations = {
    ...slice.metadata.annotations,
    [TRIGGER_TIME]: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  };
  return slice;
}

function newSlice(
  svc: SliceOwner,
  addressType: string,
  ports: SlicePort[],
  endpoints: SliceEndpoint[],
): KubeObject {
  return stamp({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      generateName: `${svc.name}-`,
      namespace: svc.namespace,
      labels: { ...svc.labels },
      ownerReferences: [{ ...svc.ref }],
    },
    addressType,
    endpoints,
    ports,
  } as Slice);
}
