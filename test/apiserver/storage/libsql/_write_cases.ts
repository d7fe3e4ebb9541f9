/**
 * The batch both group-commit writers (writeBatch over @libsql/client, SyncBatchWriter over
 * libsql) must apply alike: after a first batch that creates `/a` at revision 1 (time 7),
 * `ops` at time 8 gives `outcomes`, and the tables end as `kv`, `log` and `metaRevision`.
 */
import type { WriteOp } from "../../../../apiserver/storage/libsql/write_batch.ts";

export const FIRST_OP: WriteOp = { kind: "create", key: "/a", value: "a1" };

export const MIXED_BATCH = {
  ops: [
    { kind: "create", key: "/a", value: "dup" },
    { kind: "update", key: "/a", value: "a2", expected: 1 },
    { kind: "update", key: "/a", value: "stale", expected: 1 },
    { kind: "delete", key: "/missing", expected: 0 },
    { kind: "create", key: "/c", value: "c1" },
    { kind: "delete", key: "/c", expected: 3 },
    { kind: "create", key: "/c", value: "c2" },
    { kind: "create", key: "/d", value: "d1" },
    { kind: "delete", key: "/d", expected: 0 },
  ] as WriteOp[],
  outcomes: [
    { refused: "exists" },
    { revision: 2, prevRevision: 1, prevValue: "a1" },
    { refused: "conflict", currentRevision: 2 },
    { refused: "notFound" },
    { revision: 3, prevRevision: 0 },
    { revision: 4, prevRevision: 3, prevValue: "c1" },
    { revision: 5, prevRevision: 0 },
    { revision: 6, prevRevision: 0 },
    { revision: 7, prevRevision: 6, prevValue: "d1" },
  ],
  committed: 6,
  /** `SELECT key, value, revision FROM kv ORDER BY key`. */
  kv: [["/a", "a2", 2], ["/c", "c2", 5]],
  /** `SELECT revision, type, key, value, prev_revision, prev_value, time_ms FROM log ORDER BY revision`. */
  log: [
    [1, 0, "/a", "a1", 0, null, 7],
    [2, 1, "/a", "a2", 1, "a1", 8],
    [3, 0, "/c", "c1", 0, null, 8],
    [4, 2, "/c", null, 3, "c1", 8],
    [5, 0, "/c", "c2", 0, null, 8],
    [6, 0, "/d", "d1", 0, null, 8],
    [7, 2, "/d", null, 6, "d1", 8],
  ],
  metaRevision: 7,
};
