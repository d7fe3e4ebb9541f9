/**
 * End-to-end: every row of the spec's get and list resourceVersion tables, the 400/410/422/504
 * answers, continue tokens (constant collection version across pages, expiry) and
 * remainingItemCount, over HTTPS against the real server.
 */
import assert from "node:assert/strict";
import type { KubeList } from "../../shared/api/meta/v1/types.ts";
import { LibsqlStorage } from "../../apiserver/storage/libsql/libsql_storage.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import {
  assertOk,
  assertStatus,
  call,
  createConfigMap,
  createNamespace,
  list,
  names,
} from "./foundation_helpers.ts";
import { eventually } from "../support/eventually.ts";

const NS = "rv";
const BASE = `/api/v1/namespaces/${NS}/configmaps`;

/**
 * Creates c1..c5 with label app=rv; returns the revision after each create. The namespace's
 * kube-root-ca.crt (the root-ca-cert-publisher's, as in kube) exists before c1, so every state
 * the steps read holds it: it sorts after c1..c5 and counts in the lists.
 */
async function seed(t: TestServer): Promise<number[]> {
  await createNamespace(t, NS);
  await eventually(
    "kube-root-ca.crt",
    async () => (await call(t, "GET", `${BASE}/kube-root-ca.crt`)).status === 200,
  );
  const revs: number[] = [];
  for (let i = 1; i <= 5; i++) {
    const cm = await createConfigMap(t, NS, `c${i}`, { metadata: { labels: { app: "rv" } } });
    revs.push(Number(cm.metadata.resourceVersion));
  }
  return revs;
}

/**
 * Reads every page of a paged list. Later pages send only `limit` and `continue`, as client-go's
 * pager does (it clears resourceVersion and resourceVersionMatch).
 */
async function pages(t: TestServer, query: string, limit: number): Promise<KubeList[]> {
  const out: KubeList[] = [];
  let path = `${BASE}?limit=${limit}${query ? "&" + query : ""}`;
  for (;;) {
    const l = assertOk(await list(t, path), 200);
    out.push(l);
    if (!l.metadata.continue) return out;
    path = `${BASE}?limit=${limit}&continue=${encodeURIComponent(l.metadata.continue)}`;
  }
}

Deno.test("get and list honour every row of the resourceVersion tables", async (t) => {
  const s = await startTestServer();
  try {
    const revs = await seed(s);
    const [r1, , r3, , r5] = revs;

    await t.step("get: unset reads the most recent state", async () => {
      const cm = assertOk(await call(s, "GET", `${BASE}/c1`), 200);
      assert.equal(cm.metadata.resourceVersion, String(r1));
      assert.equal(cm.kind, "ConfigMap");
      assert.equal(cm.apiVersion, "v1");
    });
    await t.step("get: 0 reads any state", async () => {
      const cm = assertOk(await call(s, "GET", `${BASE}/c2?resourceVersion=0`), 200);
      assert.equal(cm.metadata.name, "c2");
    });
    await t.step("get: another value reads a state not older than it", async () => {
      const cm = assertOk(await call(s, "GET", `${BASE}/c1?resourceVersion=${r1}`), 200);
      assert.equal(cm.metadata.resourceVersion, String(r1));
      const later = assertOk(await call(s, "GET", `${BASE}/c1?resourceVersion=${r5}`), 200);
      assert.equal(later.metadata.resourceVersion, String(r1), "item rv is its last change");
    });
    await t.step("get: a malformed version is 400", async () => {
      assertStatus(await call(s, "GET", `${BASE}/c1?resourceVersion=abc`), 400, "BadRequest");
      // Above the uint64 range (2^64): 400, as strconv.ParseUint says, not a wait for it.
      const big = "18446744073709551616";
      const st = assertStatus(
        await call(s, "GET", `${BASE}/c1?resourceVersion=${big}`),
        400,
        "BadRequest",
      );
      assert.equal(
        st.message,
        `resourceVersion: Invalid value: "${big}": strconv.ParseUint: parsing "${big}": value out of range`,
      );
    });

    await t.step("list, no match, no limit: unset is most recent", async () => {
      const l = assertOk(await list(s, BASE), 200);
      assert.deepEqual(names(l), ["c1", "c2", "c3", "c4", "c5"]);
      assert.equal(l.kind, "ConfigMapList");
      assert.equal(l.apiVersion, "v1");
      assert.ok(Number(l.metadata.resourceVersion) >= r5);
      assert.equal(l.metadata.continue, undefined);
      assert.equal(l.metadata.remainingItemCount, undefined);
    });
    await t.step("list, no match, no limit: 0 is any", async () => {
      assert.deepEqual(names(assertOk(await list(s, `${BASE}?resourceVersion=0`))), [
        "c1",
        "c2",
        "c3",
        "c4",
        "c5",
      ]);
    });
    await t.step("list, no match, no limit: a value is not older than", async () => {
      const l = assertOk(await list(s, `${BASE}?resourceVersion=${r3}`), 200);
      assert.equal(l.items.length, 6, "not older than r3 includes later objects");
      assert.ok(Number(l.metadata.resourceVersion) >= r5);
    });
    await t.step("list, no match, limit: unset is most recent, paged", async () => {
      const l = assertOk(await list(s, `${BASE}?limit=2`), 200);
      assert.deepEqual(names(l), ["c1", "c2"]);
      assert.ok(l.metadata.continue);
      assert.equal(l.metadata.remainingItemCount, 4);
    });
    await t.step("list, no match, limit: 0 is any (served whole)", async () => {
      const l = assertOk(await list(s, `${BASE}?limit=2&resourceVersion=0`), 200);
      assert.ok(l.items.length >= 2);
    });
    await t.step("list, no match, limit: a value is Exact", async () => {
      const l = assertOk(await list(s, `${BASE}?limit=2&resourceVersion=${r3}`), 200);
      assert.equal(l.metadata.resourceVersion, String(r3));
      assert.deepEqual(names(l), ["c1", "c2"]);
      const rest = await pages(s, `resourceVersion=${r3}`, 2);
      assert.deepEqual(rest.flatMap(names), ["c1", "c2", "c3"]);
      for (const p of rest) assert.equal(p.metadata.resourceVersion, String(r3));
    });
    await t.step("list, no match, continue: unset is the token's Exact state", async () => {
      const first = assertOk(await list(s, `${BASE}?limit=2`), 200);
      const token = encodeURIComponent(first.metadata.continue!);
      const next = assertOk(await list(s, `${BASE}?limit=2&continue=${token}`), 200);
      assert.deepEqual(names(next), ["c3", "c4"]);
      assert.equal(next.metadata.resourceVersion, first.metadata.resourceVersion);
      {
        // 0 is treated as the token.
        const zero = assertOk(
          await list(s, `${BASE}?limit=2&resourceVersion=0&continue=${token}`),
          200,
        );
        assert.deepEqual(names(zero), ["c3", "c4"]);
        assert.equal(zero.metadata.resourceVersion, first.metadata.resourceVersion);
      }
      {
        // Another value is 400.
        const st = assertStatus(
          await list(s, `${BASE}?limit=2&resourceVersion=${r3}&continue=${token}`),
          400,
          "BadRequest",
        );
        assert.match(st.message!, /specifying resource version is not allowed when using continue/);
      }
    });
    await t.step("list, Exact, no limit: unset and 0 are invalid (422)", async () => {
      for (const rv of ["", "&resourceVersion=0"]) {
        const st = assertStatus(
          await list(s, `${BASE}?resourceVersionMatch=Exact${rv}`),
          422,
          "Invalid",
        );
        assert.equal(st.details?.kind, "ListOptions");
        assert.equal(st.details?.group, "meta.k8s.io");
        assert.equal(st.details?.causes?.[0].field, "resourceVersionMatch");
      }
    });
    await t.step("list, Exact, no limit: a value is that exact state", async () => {
      const l = assertOk(await list(s, `${BASE}?resourceVersionMatch=Exact&resourceVersion=${r3}`));
      assert.deepEqual(names(l), ["c1", "c2", "c3"]);
      assert.equal(l.metadata.resourceVersion, String(r3));
    });
    await t.step("list, Exact, limit: unset and 0 invalid, a value pages that state", async () => {
      assertStatus(await list(s, `${BASE}?resourceVersionMatch=Exact&limit=1`), 422, "Invalid");
      assertStatus(
        await list(s, `${BASE}?resourceVersionMatch=Exact&limit=1&resourceVersion=0`),
        422,
        "Invalid",
      );
      const all = await pages(s, `resourceVersionMatch=Exact&resourceVersion=${r3}`, 1);
      assert.deepEqual(all.flatMap(names), ["c1", "c2", "c3"]);
      for (const p of all) assert.equal(p.metadata.resourceVersion, String(r3));
      assert.deepEqual(all.map((p) => p.metadata.remainingItemCount), [3, 2, 1, undefined]);
    });
    await t.step("list, NotOlderThan: unset invalid, 0 any, a value not older", async () => {
      for (const limit of ["", "&limit=2"]) {
        assertStatus(await list(s, `${BASE}?resourceVersionMatch=NotOlderThan${limit}`), 422);
        const any = assertOk(
          await list(s, `${BASE}?resourceVersionMatch=NotOlderThan&resourceVersion=0${limit}`),
          200,
        );
        assert.ok(any.items.length >= 2);
        const l = assertOk(
          await list(s, `${BASE}?resourceVersionMatch=NotOlderThan&resourceVersion=${r1}${limit}`),
          200,
        );
        assert.ok(Number(l.metadata.resourceVersion) >= r5);
        assert.equal(l.items.length, limit ? 2 : 6);
      }
    });
    await t.step("list: an unknown resourceVersionMatch is 422", async () => {
      const st = assertStatus(
        await list(s, `${BASE}?resourceVersionMatch=Newest&resourceVersion=1`),
        422,
        "Invalid",
      );
      assert.match(st.message!, /Unsupported value: "Newest"/);
    });
    await t.step("list: resourceVersionMatch with continue is 422", async () => {
      const first = assertOk(await list(s, `${BASE}?limit=2`), 200);
      const token = encodeURIComponent(first.metadata.continue!);
      assertStatus(
        await list(s, `${BASE}?limit=2&resourceVersionMatch=Exact&continue=${token}`),
        422,
        "Invalid",
      );
    });
    await t.step("list: a malformed version is 400", async () => {
      for (const q of ["resourceVersion=x", "limit=1&resourceVersion=x"]) {
        const st = assertStatus(await list(s, `${BASE}?${q}`), 400, "BadRequest");
        assert.match(st.message!, /strconv.ParseUint: parsing "x": invalid syntax/);
      }
    });
    await t.step("list: a malformed continue token is 400", async () => {
      const st = assertStatus(await list(s, `${BASE}?limit=1&continue=notatoken`), 400);
      assert.match(st.message!, /^invalid continue token/);
    });
    await t.step("list: Exact at a future version is 504 with Retry-After", async () => {
      const future = r5 + 1000;
      for (
        const q of [
          `resourceVersionMatch=Exact&resourceVersion=${future}`,
          `limit=2&resourceVersion=${future}`,
        ]
      ) {
        const r = await list(s, `${BASE}?${q}`);
        const st = assertStatus(r, 504, "Timeout");
        assert.match(st.message!, /Too large resource version/);
        assert.equal(r.headers.get("retry-after"), "1");
        assert.equal(st.details?.retryAfterSeconds, 1);
        assert.equal(st.details?.causes?.[0].reason, "ResourceVersionTooLarge");
      }
    });
    await t.step(
      "get and not-older-than lists wait, then answer 504 for a future version",
      async () => {
        const future = r5 + 1000;
        const replies = await Promise.all([
          call(s, "GET", `${BASE}/c1?resourceVersion=${future}`),
          list(s, `${BASE}?resourceVersion=${future}`),
          list(s, `${BASE}?resourceVersionMatch=NotOlderThan&resourceVersion=${future}`),
        ]);
        for (const r of replies) {
          const st = assertStatus(r, 504, "Timeout");
          assert.match(st.message!, /Too large resource version/);
          assert.equal(r.headers.get("retry-after"), "1");
        }
      },
    );
    await t.step("continue keeps the collection version constant across pages", async () => {
      const first = assertOk(await list(s, `${BASE}?limit=2`), 200);
      const c4 = assertOk(await call(s, "GET", `${BASE}/c4`), 200);
      // Writes between pages do not show up in later pages.
      await createConfigMap(s, NS, "c6", { metadata: { labels: { app: "rv" } } });
      assertOk(await call(s, "PUT", `${BASE}/c4`, { ...c4, data: { changed: "yes" } }), 200);
      const items = [...first.items];
      let token = first.metadata.continue;
      const remaining: (number | undefined)[] = [first.metadata.remainingItemCount];
      while (token) {
        const p = assertOk(
          await list(s, `${BASE}?limit=2&continue=${encodeURIComponent(token)}`),
          200,
        );
        assert.equal(p.metadata.resourceVersion, first.metadata.resourceVersion);
        remaining.push(p.metadata.remainingItemCount);
        items.push(...p.items);
        token = p.metadata.continue;
      }
      assert.deepEqual(items.map((i) => i.metadata.name), [
        "c1",
        "c2",
        "c3",
        "c4",
        "c5",
        "kube-root-ca.crt",
      ]);
      const old4 = items.find((i) => i.metadata.name === "c4")!;
      assert.equal(old4.metadata.resourceVersion, c4.metadata.resourceVersion);
      assert.equal(old4.data, undefined);
      assert.deepEqual(remaining, [4, 2, undefined]);
    });
    await t.step("remainingItemCount is omitted with a selector", async () => {
      for (const sel of ["labelSelector=app%3Drv", "fieldSelector=metadata.namespace%3Drv"]) {
        const l = assertOk(await list(s, `${BASE}?limit=2&${sel}`), 200);
        assert.equal(l.items.length, 2);
        assert.ok(l.metadata.continue);
        assert.equal(l.metadata.remainingItemCount, undefined);
      }
    });

    // Compaction last: it makes older versions unreadable for the rest of this server's life.
    await t.step("Exact at a compacted version is 410 Expired", async () => {
      const current = Number(assertOk(await list(s, BASE)).metadata.resourceVersion);
      await s.server.storage.compact(current);
      for (
        const q of [
          `resourceVersionMatch=Exact&resourceVersion=${r3}`,
          `limit=1&resourceVersion=${r3}`,
        ]
      ) {
        const st = assertStatus(await list(s, `${BASE}?${q}`), 410, "Expired");
        assert.match(st.message!, /too old/);
      }
      // Not older than an old version is still fine.
      assertOk(await list(s, `${BASE}?resourceVersion=${r3}`), 200);
    });
    await t.step("an expired continue token is 410 with a fresh token", async () => {
      const first = assertOk(await list(s, `${BASE}?limit=2`), 200);
      await createConfigMap(s, NS, "c7");
      const current = Number(assertOk(await list(s, BASE)).metadata.resourceVersion);
      await s.server.storage.compact(current);
      const r = await list(
        s,
        `${BASE}?limit=2&continue=${encodeURIComponent(first.metadata.continue!)}`,
      );
      const st = assertStatus(r, 410, "Expired");
      assert.match(st.message!, /continue parameter is too old/);
      const fresh = st.metadata.continue;
      assert.ok(fresh, "a 410 for a continue token carries a new token");
      // The new token continues from the same key at the latest state.
      const rest = await pages(s, "", 2);
      const restNames = rest.flatMap(names);
      const next = assertOk(
        await list(s, `${BASE}?limit=10&continue=${encodeURIComponent(fresh)}`),
        200,
      );
      assert.deepEqual(names(next), restNames.slice(2));
      assert.ok(Number(next.metadata.resourceVersion) >= current);
    });
  } finally {
    await s.close();
  }
});

Deno.test("--history-window compaction makes old versions 410 Gone", async () => {
  const s = await startTestServer(["--history-window=1s"]);
  try {
    await createNamespace(s, NS);
    const a = await createConfigMap(s, NS, "a");
    await createConfigMap(s, NS, "b");
    const first = assertOk(await list(s, `${BASE}?limit=1`), 200);
    const b = await createConfigMap(s, NS, "c");
    const storage = s.server.storage;
    assert.ok(storage instanceof LibsqlStorage);
    // Past the first page's revision (b's), so the token's snapshot is gone too.
    const target = Number(b.metadata.resourceVersion);
    // The window is one second: maintenance compacts what is older than that.
    await eventually("compaction past the window", async () => {
      await storage.maintain();
      return (await storage.compactedRevision()) >= target;
    });
    const st = assertStatus(
      await list(
        s,
        `${BASE}?resourceVersionMatch=Exact&resourceVersion=${a.metadata.resourceVersion}`,
      ),
      410,
      "Expired",
    );
    assert.match(st.message!, /too old/);
    const expired = await list(
      s,
      `${BASE}?limit=1&continue=${encodeURIComponent(first.metadata.continue!)}`,
    );
    assert.ok(assertStatus(expired, 410, "Expired").metadata.continue);
  } finally {
    await s.close();
  }
});
