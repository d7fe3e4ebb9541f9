import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { MAX_UPDATE_ATTEMPTS, Store } from "../../../../apiserver/registry/generic/store.ts";
import type { ListPlan } from "../../../../apiserver/registry/generic/list_query.ts";
import { applyMergePatch } from "../../../../shared/patch/merge_patch.ts";
import { decodeContinue } from "../../../../apiserver/registry/generic/continue_token.ts";
import { configMapKind } from "../../../../apiserver/registry/core/configmaps/strategy.ts";
import { podKind } from "../../../../apiserver/registry/core/pods/strategy.ts";
import { eventKind } from "../../../../apiserver/registry/core/events/strategy.ts";
import { namespaceKind } from "../../../../apiserver/registry/core/namespaces/strategy.ts";
import type { LibsqlStorage } from "../../../../apiserver/storage/libsql/libsql_storage.ts";
import { withTempStorage } from "../../../support/registry_harness.ts";
import { assertRejectsStatus } from "../../../support/assert_throws_status.ts";

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

class ManualClock {
  t = T0;
  now(): number {
    return this.t;
  }
}

interface Env {
  storage: LibsqlStorage;
  clock: ManualClock;
  configMaps: Store;
  pods: Store;
  events: Store;
  namespaces: Store;
}

/** Runs `fn` against stores over a fresh storage file, closed and removed afterwards. */
async function withStores(fn: (env: Env) => Promise<void>): Promise<void> {
  await withTempStorage("store_test_", async ({ storage }) => {
    const clock = new ManualClock();
    const opts = { storage, clock, resourceVersionWaitMs: 0 };
    await fn({
      storage,
      clock,
      configMaps: new Store(configMapKind, opts),
      pods: new Store(podKind, opts),
      events: new Store(eventKind, opts),
      namespaces: new Store(namespaceKind, opts),
    });
  });
}

function cm(name: string, data: Record<string, string> = {}, labels?: Record<string, string>) {
  return { metadata: { name, ...(labels ? { labels } : {}) }, data } as KubeObject;
}

function pod(name: string, nodeName?: string): KubeObject {
  return {
    metadata: { name },
    spec: { containers: [{ name: "c", image: "busybox:1" }], ...(nodeName ? { nodeName } : {}) },
  };
}

const names = (items: KubeObject[]) => items.map((i) => i.metadata.name);

Deno.test("Store.create() stores a new object with the server's metadata", async (t) => {
  await withStores(async ({ configMaps, namespaces, storage }) => {
    await t.step("system metadata is set and client values ignored", async () => {
      const body = {
        metadata: {
          name: "a",
          uid: "client-uid",
          resourceVersion: "99",
          creationTimestamp: "2000-01-01T00:00:00Z",
          deletionTimestamp: "2000-01-01T00:00:00Z",
          generation: 7,
        },
        data: { k: "v" },
      } as KubeObject;
      const before = structuredClone(body);
      const obj = await configMaps.create("default", body);
      assert.deepEqual(body, before, "the body is not changed");
      assert.equal(obj.apiVersion, "v1");
      assert.equal(obj.kind, "ConfigMap");
      assert.equal(obj.metadata.namespace, "default");
      assert.notEqual(obj.metadata.uid, "client-uid");
      assert.match(obj.metadata.uid!, /^[0-9a-f-]{36}$/);
      assert.equal(obj.metadata.creationTimestamp, "2026-01-02T03:04:05Z");
      assert.equal(obj.metadata.deletionTimestamp, undefined);
      assert.equal(obj.metadata.generation, 1);
      assert.equal(obj.metadata.resourceVersion, String(await storage.currentRevision()));
      assert.deepEqual(await configMaps.get("default", "a"), obj);
    });
    await t.step("the stored value carries no resourceVersion", async () => {
      const kv = await storage.get(configMaps.key("default", "a"));
      assert.equal(JSON.parse(kv!.value).metadata.resourceVersion, undefined);
    });
    await t.step("cluster-scoped kinds drop a namespace", async () => {
      const ns = await namespaces.create("", { metadata: { name: "n1", namespace: "x" } });
      assert.equal(ns.metadata.namespace, undefined);
    });
    await t.step("a second object of the same name is 409 AlreadyExists", async () => {
      const err = await assertRejectsStatus(
        configMaps.create("default", cm("a")),
        409,
        "AlreadyExists",
      );
      assert.equal(err.message, 'configmaps "a" already exists');
    });
    await t.step("the same name in another namespace is fine", async () => {
      await configMaps.create("other", cm("a"));
    });
    await t.step("a body namespace other than the request's is 400", async () => {
      await assertRejectsStatus(
        configMaps.create("default", { metadata: { name: "b", namespace: "x" } }),
        400,
        "BadRequest",
      );
    });
    await t.step("no name and no generateName is 422", async () => {
      const err = await assertRejectsStatus(
        configMaps.create("default", { metadata: {} }),
        422,
        "Invalid",
      );
      assert.match(err.message, /metadata\.name: Required value/);
    });
    await t.step("strategy errors are 422 with one cause each", async () => {
      const err = await assertRejectsStatus(
        configMaps.create("default", cm("bad", { "a b": "x", "c/d": "y" })),
        422,
        "Invalid",
      );
      assert.equal(err.status.details?.causes?.length, 2);
    });
    await t.step("dryRun writes nothing", async () => {
      const rev = await storage.currentRevision();
      const obj = await configMaps.create("default", cm("dry"), { dryRun: true });
      assert.equal(obj.metadata.name, "dry");
      assert.ok(obj.metadata.uid);
      assert.equal(await storage.currentRevision(), rev);
      await assertRejectsStatus(configMaps.get("default", "dry"), 404);
    });
  });
});

Deno.test("Store.create() generates names and retries collisions", async (t) => {
  await withStores(async ({ configMaps }) => {
    const real = crypto.getRandomValues;
    // Zero bytes make the suffix "bbbbb"; `zeros` says how many more calls get them.
    let zeros = 0;
    const patched = <T extends ArrayBufferView | null>(array: T): T => {
      if (zeros > 0 && array instanceof Uint8Array) {
        zeros--;
        array.fill(0);
        return array;
      }
      return real.call(crypto, array as Uint8Array) as unknown as T;
    };
    crypto.getRandomValues = patched as typeof crypto.getRandomValues;
    try {
      await t.step("a generated name is the prefix and five characters", async () => {
        const obj = await configMaps.create("default", { metadata: { generateName: "gen-" } });
        assert.match(obj.metadata.name!, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
        assert.equal(obj.metadata.generateName, "gen-");
      });
      await t.step("a collision is retried with another name", async () => {
        zeros = 1;
        const first = await configMaps.create("default", { metadata: { generateName: "x-" } });
        assert.equal(first.metadata.name, "x-bbbbb");
        zeros = 1;
        const second = await configMaps.create("default", { metadata: { generateName: "x-" } });
        assert.notEqual(second.metadata.name, "x-bbbbb");
        assert.match(second.metadata.name!, /^x-/);
      });
      await t.step("endless collisions end in 409 AlreadyExists", async () => {
        zeros = 1000;
        await assertRejectsStatus(
          configMaps.create("default", { metadata: { generateName: "x-" } }),
          409,
          "AlreadyExists",
        );
        zeros = 0;
      });
      await t.step("a name wins over generateName", async () => {
        const obj = await configMaps.create("default", {
          metadata: { name: "fixed", generateName: "x-" },
        });
        assert.equal(obj.metadata.name, "fixed");
      });
    } finally {
      crypto.getRandomValues = real;
    }
  });
});

Deno.test("Store.get() reads one object", async (t) => {
  await withStores(async ({ configMaps, storage }) => {
    await configMaps.create("default", cm("a"));
    const rev = await storage.currentRevision();
    const cases: [string, string | undefined][] = [
      ["latest", undefined],
      ['resourceVersion "0"', "0"],
      ["a reached resourceVersion", String(rev)],
    ];
    for (const [name, rv] of cases) {
      await t.step(name, async () => {
        assert.equal((await configMaps.get("default", "a", rv)).metadata.name, "a");
      });
    }
    await t.step("a missing object is 404 NotFound", async () => {
      const err = await assertRejectsStatus(configMaps.get("default", "nope"), 404, "NotFound");
      assert.equal(err.message, 'configmaps "nope" not found');
    });
    await t.step("another namespace is 404", async () => {
      await assertRejectsStatus(configMaps.get("other", "a"), 404);
    });
    await t.step("a future resourceVersion is 504 once the wait ends", async () => {
      const err = await assertRejectsStatus(configMaps.get("default", "a", String(rev + 100)), 504);
      assert.match(err.message, /Too large resource version/);
    });
    await t.step("a malformed resourceVersion is 400", async () => {
      await assertRejectsStatus(configMaps.get("default", "a", "abc"), 400);
    });
  });
});

Deno.test("Store.list() lists with filters, pages and resourceVersion plans", async (t) => {
  await withStores(async ({ configMaps, storage }) => {
    for (const n of ["a", "b", "c", "d"]) {
      await configMaps.create("default", cm(n, {}, { tier: n < "c" ? "front" : "back" }));
    }
    await configMaps.create("other", cm("e"));
    const latest = { mode: "latest" } as const;

    await t.step("one namespace", async () => {
      const list = await configMaps.list("default", { plan: latest });
      assert.equal(list.kind, "ConfigMapList");
      assert.equal(list.apiVersion, "v1");
      assert.deepEqual(names(list.items), ["a", "b", "c", "d"]);
      assert.equal(list.metadata.resourceVersion, String(await storage.currentRevision()));
      assert.equal(list.metadata.continue, undefined);
      for (const i of list.items) {
        assert.equal(i.kind, "ConfigMap");
        assert.equal(i.apiVersion, "v1");
      }
    });
    await t.step("all namespaces", async () => {
      const list = await configMaps.list("", { plan: { mode: "any" } });
      assert.deepEqual(names(list.items), ["a", "b", "c", "d", "e"]);
    });
    await t.step("label filter", async () => {
      const list = await configMaps.list("default", {
        plan: latest,
        labels: (l) => l.tier === "back",
      });
      assert.deepEqual(names(list.items), ["c", "d"]);
    });
    await t.step("field filter", async () => {
      const list = await configMaps.list("", {
        plan: latest,
        fields: (f) => f["metadata.namespace"] === "other",
      });
      assert.deepEqual(names(list.items), ["e"]);
    });
    await t.step("pages with continue and remainingItemCount", async () => {
      const first = await configMaps.list("default", { plan: latest, limit: 3 });
      assert.deepEqual(names(first.items), ["a", "b", "c"]);
      assert.equal(first.metadata.remainingItemCount, 1);
      const token = decodeContinue(first.metadata.continue!);
      assert.equal(token.rv, Number(first.metadata.resourceVersion));
      await configMaps.create("default", cm("ca"));
      const second = await configMaps.list("default", {
        plan: { mode: "continue", revision: token.rv, startKeySuffix: token.startKeySuffix },
        limit: 3,
      });
      assert.deepEqual(names(second.items), ["d"], "read at the first page's revision");
      assert.equal(second.metadata.resourceVersion, first.metadata.resourceVersion);
      assert.equal(second.metadata.continue, undefined);
      await configMaps.delete("default", "ca");
    });
    await t.step("a filtered page has no remainingItemCount", async () => {
      const page = await configMaps.list("default", {
        plan: latest,
        limit: 1,
        labels: (l) => l.tier === "front",
      });
      assert.deepEqual(names(page.items), ["a"]);
      assert.ok(page.metadata.continue);
      assert.equal(page.metadata.remainingItemCount, undefined);
    });

    const before = await storage.currentRevision();
    await configMaps.update("default", "a", { ...cm("a", { changed: "yes" }) });
    await t.step("exact reads the state at a past revision", async () => {
      const list = await configMaps.list("default", { plan: { mode: "exact", revision: before } });
      assert.deepEqual(list.items[0].data, {});
      assert.equal(list.metadata.resourceVersion, String(before));
      const now = await configMaps.list("default", { plan: latest });
      assert.deepEqual(now.items[0].data, { changed: "yes" });
    });
    await t.step("exact in the future is 504", async () => {
      await assertRejectsStatus(
        configMaps.list("default", { plan: { mode: "exact", revision: before + 1000 } }),
        504,
      );
    });
    await t.step("notOlderThan in the future is 504 once the wait ends", async () => {
      await assertRejectsStatus(
        configMaps.list("default", { plan: { mode: "notOlderThan", revision: before + 1000 } }),
        504,
      );
    });
    await t.step("notOlderThan a reached revision reads the latest state", async () => {
      const list = await configMaps.list("default", {
        plan: { mode: "notOlderThan", revision: before },
      });
      assert.deepEqual(list.items[0].data, { changed: "yes" });
    });

    const page = await configMaps.list("default", { plan: latest, limit: 1 });
    const token = decodeContinue(page.metadata.continue!);
    await configMaps.update("default", "b", { ...cm("b", { changed: "yes" }) });
    await storage.compact(await storage.currentRevision());
    await t.step("exact at a compacted revision is 410 Expired", async () => {
      const err = await assertRejectsStatus(
        configMaps.list("default", { plan: { mode: "exact", revision: before } }),
        410,
        "Expired",
      );
      assert.equal(err.message, "The resourceVersion for the provided list is too old.");
    });
    await t.step("continue at a compacted revision is 410 with a token for the rest", async () => {
      const plan: ListPlan = {
        mode: "continue",
        revision: token.rv,
        startKeySuffix: token.startKeySuffix,
      };
      const err = await assertRejectsStatus(
        configMaps.list("default", { plan, limit: 2 }),
        410,
        "Expired",
      );
      assert.match(err.message, /continue parameter is too old/);
      const next = decodeContinue(err.status.metadata.continue!);
      assert.equal(next.rv, -1);
      assert.equal(next.startKeySuffix, token.startKeySuffix);
      // The inconsistent continuation reads the latest state from the same key.
      const rest = await configMaps.list("default", {
        plan: { mode: "continue", revision: next.rv, startKeySuffix: next.startKeySuffix },
        limit: 2,
      });
      assert.deepEqual(names(rest.items), ["b", "c"]);
      assert.deepEqual(rest.items[0].data, { changed: "yes" });
    });
  });
});

Deno.test("Store.update() replaces an object", async (t) => {
  await withStores(async ({ configMaps, pods, events, storage }) => {
    const created = await configMaps.create("default", cm("a", { k: "1" }));

    await t.step("a change is written with a new resourceVersion", async () => {
      const { object, created: made } = await configMaps.update(
        "default",
        "a",
        cm("a", { k: "2" }),
      );
      assert.equal(made, false);
      assert.deepEqual(object.data, { k: "2" });
      assert.equal(object.metadata.uid, created.metadata.uid);
      assert.equal(object.metadata.creationTimestamp, created.metadata.creationTimestamp);
      assert.equal(object.metadata.resourceVersion, String(await storage.currentRevision()));
      assert.ok(Number(object.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
    });
    await t.step("a no-op update is not written", async () => {
      const current = await configMaps.get("default", "a");
      const rev = await storage.currentRevision();
      const { object } = await configMaps.update("default", "a", structuredClone(current));
      assert.equal(await storage.currentRevision(), rev);
      assert.equal(object.metadata.resourceVersion, current.metadata.resourceVersion);
      // Nor is one without a resourceVersion and with the keys in another order.
      const { metadata: { resourceVersion: _rv, ...meta }, ...rest } = current;
      const reordered = { data: rest.data, metadata: meta } as KubeObject;
      await configMaps.update("default", "a", reordered);
      assert.equal(await storage.currentRevision(), rev);
    });
    await t.step("a stale resourceVersion is 409 Conflict", async () => {
      const err = await assertRejectsStatus(
        configMaps.update("default", "a", {
          metadata: { name: "a", resourceVersion: created.metadata.resourceVersion },
          data: { k: "3" },
        }),
        409,
        "Conflict",
      );
      assert.match(err.message, /the object has been modified/);
    });
    await t.step("another UID is 409 Conflict", async () => {
      await assertRejectsStatus(
        configMaps.update("default", "a", { metadata: { name: "a", uid: "other" }, data: {} }),
        409,
        "Conflict",
      );
    });
    await t.step("a name other than the URL's is 400", async () => {
      await assertRejectsStatus(configMaps.update("default", "a", cm("b")), 400, "BadRequest");
    });
    await t.step("a missing object is 404", async () => {
      await assertRejectsStatus(configMaps.update("default", "nope", cm("nope")), 404, "NotFound");
    });
    await t.step("a malformed resourceVersion is 400", async () => {
      await assertRejectsStatus(
        configMaps.update("default", "a", { metadata: { name: "a", resourceVersion: "x" } }),
        400,
      );
    });
    await t.step("dryRun writes nothing", async () => {
      const rev = await storage.currentRevision();
      const { object } = await configMaps.update("default", "a", cm("a", { k: "dry" }), {
        dryRun: true,
      });
      assert.deepEqual(object.data, { k: "dry" });
      assert.equal(await storage.currentRevision(), rev);
      assert.deepEqual((await configMaps.get("default", "a")).data, { k: "2" });
    });
    await t.step("a kind allowing create on update creates a missing object", async () => {
      const { object, created: made } = await events.update("default", "ev", {
        metadata: { name: "ev" },
        reason: "R",
      });
      assert.equal(made, true);
      assert.equal(object.metadata.generation, 1);
    });
    await t.step("validation failures are 422", async () => {
      await assertRejectsStatus(configMaps.update("default", "a", cm("a", { "a b": "x" })), 422);
    });

    const p = await pods.create("default", pod("p"));
    await t.step("a spec change bumps generation", async () => {
      const cur = await pods.get("default", "p");
      const spec = cur.spec as { containers: { image: string }[] };
      spec.containers[0].image = "busybox:2";
      const { object } = await pods.update("default", "p", cur);
      assert.equal(object.metadata.generation, 2);
    });
    await t.step("a metadata change keeps generation", async () => {
      const cur = await pods.get("default", "p");
      cur.metadata.labels = { a: "b" };
      const { object } = await pods.update("default", "p", cur);
      assert.equal(object.metadata.generation, 2);
      assert.deepEqual(object.metadata.labels, { a: "b" });
    });
    await t.step("status is ignored on the main resource", async () => {
      const cur = await pods.get("default", "p");
      cur.status = { phase: "Running" };
      const rev = await storage.currentRevision();
      const { object } = await pods.update("default", "p", cur);
      assert.deepEqual(object.status, p.status);
      assert.equal(await storage.currentRevision(), rev, "nothing else changed: no write");
    });
    await t.step("the status subresource changes status only, generation kept", async () => {
      const cur = await pods.get("default", "p");
      cur.status = { phase: "Running" };
      (cur.spec as { containers: { image: string }[] }).containers[0].image = "ignored:1";
      const { object } = await pods.update("default", "p", cur, { subresource: "status" });
      assert.deepEqual(object.status, { phase: "Running" });
      assert.equal(
        (object.spec as { containers: { image: string }[] }).containers[0].image,
        "busybox:2",
      );
      assert.equal(object.metadata.generation, 2);
    });
    await t.step("a top-level field added, then removed, bumps generation each time", async () => {
      const cur = await pods.get("default", "p") as KubeObject & Record<string, unknown>;
      const before = cur.metadata.generation ?? 0;
      cur.extra = { a: 1 };
      const added = (await pods.update("default", "p", cur)).object;
      assert.equal(added.metadata.generation, before + 1);
      const again = await pods.get("default", "p") as KubeObject & Record<string, unknown>;
      delete again.extra;
      const removed = (await pods.update("default", "p", again)).object;
      assert.equal(removed.metadata.generation, before + 2);
    });
  });
});

Deno.test("Store.guaranteedUpdate() retries a write that loses to a concurrent one, boundedly", async (t) => {
  await withStores(async ({ configMaps, storage }) => {
    await configMaps.create("default", cm("a", { k: "1" }));
    /** A merge patch as a tryUpdate: applied to the object as stored, each attempt afresh. */
    const patch = (p: Record<string, unknown>) => (current: KubeObject | undefined) =>
      applyMergePatch(current, p) as KubeObject;

    await t.step("a patch that loses to a concurrent write is applied again over it", async () => {
      const seen: (string | undefined)[] = [];
      const { object } = await configMaps.guaranteedUpdate("default", "a", async (current) => {
        seen.push(current?.metadata.resourceVersion);
        if (seen.length === 1) {
          // Another writer commits between this attempt's read and its write.
          await configMaps.update("default", "a", cm("a", { k: "1", other: "x" }));
        }
        return patch({ data: { mine: "y" } })(current);
      });
      assert.equal(seen.length, 2, "tried twice");
      assert.notEqual(seen[0], seen[1], "the second attempt reads the concurrent write");
      assert.deepEqual(object.data, { k: "1", other: "x", mine: "y" });
      assert.equal(object.metadata.resourceVersion, String(await storage.currentRevision()));
      assert.deepEqual((await configMaps.get("default", "a")).data, object.data);
    });
    await t.step(`after ${MAX_UPDATE_ATTEMPTS} lost writes it is 409 Conflict`, async () => {
      let calls = 0;
      const err = await assertRejectsStatus(
        configMaps.guaranteedUpdate("default", "a", async (current) => {
          calls++;
          await configMaps.update("default", "a", cm("a", { k: String(calls) }));
          return patch({ data: { lost: "z" } })(current);
        }),
        409,
        "Conflict",
      );
      assert.equal(calls, MAX_UPDATE_ATTEMPTS);
      assert.match(err.message, /the object has been modified/);
      const stored = await configMaps.get("default", "a");
      assert.deepEqual(stored.data, { k: String(MAX_UPDATE_ATTEMPTS) });
    });
    await t.step("a failed precondition is 409 at once, tryUpdate never called", async () => {
      let calls = 0;
      await assertRejectsStatus(
        configMaps.guaranteedUpdate("default", "a", () => {
          calls++;
          return undefined;
        }, { resourceVersion: "1" }),
        409,
        "Conflict",
      );
      await assertRejectsStatus(
        configMaps.guaranteedUpdate("default", "a", () => undefined, { uid: "other" }),
        409,
        "Conflict",
      );
      assert.equal(calls, 0);
    });
    await t.step("a new object with another resourceVersion is 409, not retried", async () => {
      let calls = 0;
      await assertRejectsStatus(
        configMaps.guaranteedUpdate("default", "a", (current) => {
          calls++;
          return patch({ metadata: { resourceVersion: "1" } })(current);
        }),
        409,
        "Conflict",
      );
      assert.equal(calls, 1);
    });
    await t.step("undefined from tryUpdate writes nothing", async () => {
      const rev = await storage.currentRevision();
      const { object } = await configMaps.guaranteedUpdate("default", "a", () => undefined);
      assert.equal(object.metadata.resourceVersion, String(rev));
      assert.equal(await storage.currentRevision(), rev);
    });
    await t.step("a missing object is 404, or created with allowCreate", async () => {
      await assertRejectsStatus(
        configMaps.guaranteedUpdate("default", "b", patch({ data: { k: "1" } })),
        404,
      );
      const { object, created } = await configMaps.guaranteedUpdate(
        "default",
        "b",
        patch({ metadata: { name: "b" }, data: { k: "1" } }),
        {},
        { allowCreate: true },
      );
      assert.equal(created, true);
      assert.deepEqual(object.data, { k: "1" });
    });
  });
});

Deno.test("Store.delete() removes objects, or marks them while finalizers remain", async (t) => {
  await withStores(async ({ configMaps, pods, namespaces, storage, clock }) => {
    await t.step("an object without finalizers is removed at once", async () => {
      const obj = await configMaps.create("default", cm("plain"));
      const res = await configMaps.delete("default", "plain");
      assert.equal(res.deleted, true);
      assert.equal(res.object.metadata.uid, obj.metadata.uid);
      await assertRejectsStatus(configMaps.get("default", "plain"), 404);
    });
    await t.step("a missing object is 404", async () => {
      await assertRejectsStatus(configMaps.delete("default", "plain"), 404, "NotFound");
    });
    await t.step("finalizers keep the object with a deletionTimestamp", async () => {
      await configMaps.create("default", {
        metadata: { name: "fin", finalizers: ["example.com/f"] },
      });
      clock.t = T0 + 60_000;
      const res = await configMaps.delete("default", "fin");
      assert.equal(res.deleted, false);
      assert.equal(res.object.metadata.deletionTimestamp, "2026-01-02T03:05:05Z");
      assert.equal(res.object.metadata.deletionGracePeriodSeconds, 0);
      const stored = await configMaps.get("default", "fin");
      assert.equal(stored.metadata.deletionTimestamp, "2026-01-02T03:05:05Z");
    });
    await t.step("deleting again changes nothing", async () => {
      const rev = await storage.currentRevision();
      clock.t = T0 + 120_000;
      const res = await configMaps.delete("default", "fin");
      assert.equal(res.deleted, false);
      assert.equal(res.object.metadata.deletionTimestamp, "2026-01-02T03:05:05Z");
      assert.equal(await storage.currentRevision(), rev);
    });
    await t.step("a deletionTimestamp cannot be cleared by an update", async () => {
      const cur = await configMaps.get("default", "fin");
      delete cur.metadata.deletionTimestamp;
      cur.metadata.labels = { x: "y" };
      const { object } = await configMaps.update("default", "fin", cur);
      assert.equal(object.metadata.deletionTimestamp, "2026-01-02T03:05:05Z");
    });
    await t.step("new finalizers cannot be added while deleting", async () => {
      const cur = await configMaps.get("default", "fin");
      cur.metadata.finalizers = ["example.com/f", "example.com/g"];
      await assertRejectsStatus(configMaps.update("default", "fin", cur), 422);
    });
    await t.step("removing the last finalizer removes the object", async () => {
      const cur = await configMaps.get("default", "fin");
      cur.metadata.finalizers = [];
      await configMaps.update("default", "fin", cur);
      await assertRejectsStatus(configMaps.get("default", "fin"), 404);
    });
    await t.step("propagationPolicy Orphan and Foreground add their finalizers", async () => {
      for (
        const [policy, finalizer] of [["Orphan", "orphan"], ["Foreground", "foregroundDeletion"]]
      ) {
        await configMaps.create("default", cm(`p-${policy.toLowerCase()}`));
        const res = await configMaps.delete("default", `p-${policy.toLowerCase()}`, {
          propagationPolicy: policy as "Orphan" | "Foreground",
        });
        assert.equal(res.deleted, false);
        assert.deepEqual(res.object.metadata.finalizers, [finalizer]);
      }
      await configMaps.create("default", cm("p-od"));
      const res = await configMaps.delete("default", "p-od", { orphanDependents: true });
      assert.deepEqual(res.object.metadata.finalizers, ["orphan"]);
    });
    await t.step("bad DeleteOptions are 422", async () => {
      await configMaps.create("default", cm("opts"));
      const err = await assertRejectsStatus(
        configMaps.delete("default", "opts", {
          propagationPolicy: "Sometimes" as "Orphan",
        }),
        422,
        "Invalid",
      );
      assert.match(err.message, /Unsupported value: "Sometimes"/);
      await assertRejectsStatus(
        configMaps.delete("default", "opts", {
          propagationPolicy: "Orphan",
          orphanDependents: true,
        }),
        422,
      );
    });
    await t.step("preconditions that do not match are 409", async () => {
      const cur = await configMaps.get("default", "opts");
      const uid = await assertRejectsStatus(
        configMaps.delete("default", "opts", { preconditions: { uid: "other" } }),
        409,
        "Conflict",
      );
      assert.match(uid.message, /the UID in the precondition \(other\)/);
      await assertRejectsStatus(
        configMaps.delete("default", "opts", { preconditions: { resourceVersion: "1" } }),
        409,
        "Conflict",
      );
      const res = await configMaps.delete("default", "opts", {
        preconditions: { uid: cur.metadata.uid, resourceVersion: cur.metadata.resourceVersion },
      });
      assert.equal(res.deleted, true);
    });
    await t.step("dryRun writes nothing", async () => {
      await configMaps.create("default", cm("dry"));
      await configMaps.create("default", { metadata: { name: "dryfin", finalizers: ["a/b"] } });
      const rev = await storage.currentRevision();
      assert.equal((await configMaps.delete("default", "dry", {}, { dryRun: true })).deleted, true);
      const fin = await configMaps.delete("default", "dryfin", {}, { dryRun: true });
      assert.equal(fin.deleted, false);
      assert.ok(fin.object.metadata.deletionTimestamp);
      assert.equal(await storage.currentRevision(), rev);
      assert.equal(
        (await configMaps.get("default", "dryfin")).metadata.deletionTimestamp,
        undefined,
      );
    });

    await t.step("graceful deletion of a pod bound to a node waits its grace period", async () => {
      clock.t = T0;
      await pods.create("default", pod("bound", "node-1"));
      const res = await pods.delete("default", "bound");
      assert.equal(res.deleted, false);
      assert.equal(res.object.metadata.deletionGracePeriodSeconds, 30);
      assert.equal(res.object.metadata.deletionTimestamp, "2026-01-02T03:04:35Z");
    });
    await t.step("a shorter grace period is not lengthened again", async () => {
      const res = await pods.delete("default", "bound", { gracePeriodSeconds: 60 });
      assert.equal(res.object.metadata.deletionGracePeriodSeconds, 30);
    });
    await t.step("grace period 0 removes a gracefully deleting pod", async () => {
      const res = await pods.delete("default", "bound", { gracePeriodSeconds: 0 });
      assert.equal(res.deleted, true);
      await assertRejectsStatus(pods.get("default", "bound"), 404);
    });
    await t.step("an unbound pod is removed at once", async () => {
      await pods.create("default", pod("unbound"));
      assert.equal((await pods.delete("default", "unbound")).deleted, true);
    });
    await t.step("a negative grace period means 1 second", async () => {
      await pods.create("default", pod("neg", "node-1"));
      const res = await pods.delete("default", "neg", { gracePeriodSeconds: -5 });
      assert.equal(res.object.metadata.deletionGracePeriodSeconds, 1);
    });

    await t.step("a namespace with spec finalizers becomes Terminating", async () => {
      await namespaces.create("", { metadata: { name: "ns1" } });
      const res = await namespaces.delete("", "ns1");
      assert.equal(res.deleted, false);
      assert.equal((res.object.status as { phase: string }).phase, "Terminating");
      assert.ok(res.object.metadata.deletionTimestamp);
    });
  });
});

Deno.test("Store.deleteCollection() deletes every matching object", async (t) => {
  await withStores(async ({ configMaps }) => {
    for (const n of ["a", "b", "c"]) {
      await configMaps.create("default", cm(n, {}, { keep: n === "c" ? "yes" : "no" }));
    }
    await configMaps.create("other", cm("d"));
    await configMaps.create("default", {
      metadata: { name: "f", finalizers: ["x/y"], labels: { keep: "no" } },
    });

    await t.step("a label-filtered collection in one namespace", async () => {
      const deleted = await configMaps.deleteCollection("default", {
        plan: { mode: "latest" },
        labels: (l) => l.keep === "no",
        limit: 1,
      });
      assert.deepEqual(names(deleted.items), ["a", "b", "f"], "limit does not apply");
      assert.equal(deleted.kind, "ConfigMapList");
      const left = await configMaps.list("", { plan: { mode: "latest" } });
      assert.deepEqual(names(left.items), ["c", "f", "d"]);
      assert.ok(left.items[1].metadata.deletionTimestamp, "finalizers keep f");
    });
    await t.step("dryRun deletes nothing", async () => {
      const deleted = await configMaps.deleteCollection(
        "",
        { plan: { mode: "latest" } },
        {},
        { dryRun: true },
      );
      assert.equal(deleted.items.length, 3);
      assert.equal((await configMaps.list("", { plan: { mode: "latest" } })).items.length, 3);
    });
    await t.step("bad DeleteOptions are 422 before anything is deleted", async () => {
      await assertRejectsStatus(
        configMaps.deleteCollection("", { plan: { mode: "latest" } }, {
          propagationPolicy: "No" as "Orphan",
        }),
        422,
      );
      assert.equal((await configMaps.list("", { plan: { mode: "latest" } })).items.length, 3);
    });
  });
});

Deno.test("Store methods translate storage errors into StatusError", async (t) => {
  await withStores(async ({ configMaps }) => {
    await configMaps.create("default", cm("a"));
    const cases: [string, () => Promise<unknown>, number][] = [
      ["create of an existing key", () => configMaps.create("default", cm("a")), 409],
      ["get of a missing key", () => configMaps.get("default", "b"), 404],
      ["update of a missing key", () => configMaps.update("default", "b", cm("b")), 404],
      ["delete of a missing key", () => configMaps.delete("default", "b"), 404],
      ["get of a name storage cannot hold", () => configMaps.get("default", "a\0b"), 404],
      ["delete of a name storage cannot hold", () => configMaps.delete("default", "a\0b"), 404],
      [
        "update of a name storage cannot hold",
        () => configMaps.update("default", "a\0b", { metadata: {} }),
        404,
      ],
      [
        "list past the newest revision",
        () => configMaps.list("default", { plan: { mode: "exact", revision: 1e9 } }),
        504,
      ],
    ];
    for (const [name, fn, code] of cases) {
      await t.step(name, async () => {
        await assertRejectsStatus(fn(), code);
      });
    }
  });
});
