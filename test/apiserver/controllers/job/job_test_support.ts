/** Shared setup of the workload controller tests: a registry harness, a manual clock, helpers. */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { Store } from "../../../../apiserver/registry/generic/store.ts";
import { ChangeFeed } from "../../../../apiserver/watch/change_feed.ts";
import { openRegistryHarness, type RegistryHarness } from "../../../support/registry_harness.ts";

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
  const h = await openRegistryHarness(prefix);
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
