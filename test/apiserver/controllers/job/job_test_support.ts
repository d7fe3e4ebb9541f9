/** Shared setup of the workload controller tests: a registry harness, a manual clock, helpers. */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { Store } from "../../../../apiserver/registry/generic/store.ts";
import { ChangeFeed } from "../../../../apiserver/watch/change_feed.ts";
import { builtinKinds } from "../../../../apiserver/registry/builtin_kinds.ts";
import { ResourceRegistry } from "../../../../apiserver/registry/resource_registry.ts";
import { openTempStorage, type RegistryHarness } from "../../../support/registry_harness.ts";

/** A clock the test moves. */
export class ManualClock {
  t = Date.UTC(2026, 0, 1, 12, 0, 0);
  now(): number {
    return this.t;
  }
}

/** A harness with the stores the workload tests use. */
export interface WorkloadEnv {
  h: RegistryHarness;
  clock: ManualClock;
  feed: ChangeFeed;
  pods: Store;
  events: Store;
  close(): Promise<void>;
}

/** Opens a harness with namespace `ns` (the feed is not started: tests call sync()). */
export async function openWorkloadEnv(prefix: string, ns = "default"): Promise<WorkloadEnv> {
  const temp = await openTempStorage(prefix);
  const registry = new ResourceRegistry({ storage: temp.storage });
  const pods = () => registry.lookup("", "v1", "pods")!;
  const budgets = () => registry.lookup("policy", "v1", "poddisruptionbudgets")!;
  for (const k of builtinKinds({ pods, budgets })) registry.add(k);
  const h: RegistryHarness = {
    ...temp,
    registry,
    store: (group, version, resource) => registry.lookup(group, version, resource)!,
  };
  await h.store("", "v1", "namespaces").create("", { metadata: { name: ns } });
  const feed = new ChangeFeed({ storage: h.storage, remote: false, historyWindowMs: 60_000 });
  return {
    h,
    clock: new ManualClock(),
    feed,
    pods: h.store("", "v1", "pods"),
    events: h.store("", "v1", "events"),
    close: () => h.close(),
  };
}

/** The pods of `ns`, sorted by name. */
export async function podsIn(pods: Store, ns = "default"): Promise<KubeObject[]> {
  const list = await pods.list(ns, { plan: { mode: "latest" } });
  return list.items.sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
}

/** Sets a pod's phase (and container exit code for Failed) through its status. */
export async function setPhase(
  pods: Store,
  pod: KubeObject,
  phase: string,
  exitCode = 1,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await pods.guaranteedUpdate(
    pod.metadata.namespace!,
    pod.metadata.name!,
    (cur) => {
      if (!cur) return undefined;
      const containers = (cur.spec as { containers: { name: string }[] }).containers;
      const terminated = phase === "Failed" || phase === "Succeeded";
      return {
        ...cur,
        status: {
          ...(cur.status as object),
          phase,
          ...extra,
          ...(terminated
            ? {
              containerStatuses: containers.map((c) => ({
                name: c.name,
                image: "x",
                imageID: "",
                ready: false,
                restartCount: 0,
                state: { terminated: { exitCode: phase === "Succeeded" ? 0 : exitCode } },
              })),
            }
            : {}),
        },
      };
    },
    {},
    { subresource: "status" },
  );
}

/** The reasons of the events about `name`. */
export async function eventReasons(events: Store, name: string, ns = "default"): Promise<string[]> {
  const list = await events.list(ns, { plan: { mode: "latest" } });
  return list.items
    .filter((e) => (e.involvedObject as { name: string }).name === name)
    .map((e) => String(e.reason));
}

/** A pod template running `image`. */
export function template(labels: Record<string, string> = {}, restartPolicy = "Never") {
  return {
    metadata: { labels },
    spec: { restartPolicy, containers: [{ name: "main", image: "busybox" }] },
  };
}

/** Binds the pod to `node` and marks it Running and Ready (what scheduler and kubelet do). */
export async function runOn(pods: Store, pod: KubeObject, node: string, at: string): Promise<void> {
  const name = pod.metadata.name!, ns = pod.metadata.namespace!;
  const binding = pods.def.subresources?.find((s) => s.name === "binding");
  await binding!.create!({
    namespace: ns,
    name,
    body: {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name, namespace: ns },
      target: { apiVersion: "v1", kind: "Node", name: node },
    },
    dryRun: false,
    query: new URLSearchParams(),
  });
  await pods.guaranteedUpdate(
    ns,
    name,
    (cur) =>
      cur
        ? {
          ...cur,
          status: {
            phase: "Running",
            conditions: [{ type: "Ready", status: "True", lastTransitionTime: at }],
          },
        }
        : undefined,
    {},
    { subresource: "status" },
  );
}

/** Finishes the deletion of terminating pods, as a node agent does. */
export async function reap(pods: Store, ns = "default"): Promise<void> {
  for (const p of await podsIn(pods, ns)) {
    if (!p.metadata.deletionTimestamp) continue;
    await pods.delete(ns, p.metadata.name!, { gracePeriodSeconds: 0 }).catch(() => {});
  }
}

/** A Ready node named `name` with `labels` and `taints`. */
export function readyNode(
  name: string,
  labels: Record<string, string> = {},
  taints: Record<string, unknown>[] = [],
): KubeObject {
  return {
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...labels } },
    spec: taints.length ? { taints } : {},
    status: {
      conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ready" }],
      allocatable: { cpu: "4", memory: "8Gi", pods: "110" },
      capacity: { cpu: "4", memory: "8Gi", pods: "110" },
    },
  };
}
