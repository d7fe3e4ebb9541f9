import assert from "node:assert/strict";
import { RevisionConflictError } from "../../../../apiserver/storage/interface.ts";
import { LibsqlStorage } from "../../../../apiserver/storage/libsql/libsql_storage.ts";
import { locateSqld, startSqld } from "../sqld_server.ts";
import { storageContract } from "../storage_contract.ts";

const located = await locateSqld();
const bin = typeof located === "string" ? located : "";
const skip = typeof located === "string" ? false : located.skip;

storageContract("LibsqlStorage (sqld)", async () => {
  const server = await startSqld(bin);
  return {
    open: () => LibsqlStorage.open({ url: server.url }),
    cleanup: () => server.stop(),
  };
}, { ignore: skip });

Deno.test({
  name: "LibsqlStorage.update() loses no update with two instances on one sqld",
  ignore: skip !== false,
  fn: async () => {
    const server = await startSqld(bin);
    const a = await LibsqlStorage.open({ url: server.url });
    const b = await LibsqlStorage.open({ url: server.url });
    try {
      await a.create("/shared/counter", "0");
      const perWriter = 5;
      const loop = async (s: LibsqlStorage) => {
        for (let done = 0; done < perWriter;) {
          const cur = await s.get("/shared/counter");
          assert.ok(cur);
          try {
            await s.update("/shared/counter", String(Number(cur.value) + 1), cur.revision);
            done++;
          } catch (e) {
            if (!(e instanceof RevisionConflictError)) throw e;
          }
        }
      };
      const writers = [a, b, a, b, a, b].map(loop);
      // Creates from both instances interleave with the counter updates.
      const creates = Array.from(
        { length: 10 },
        (_, i) => (i % 2 ? a : b).create(`/shared/k${i}`, "x"),
      );
      await Promise.all([...writers, ...creates]);
      const final = await b.get("/shared/counter");
      assert.equal(final?.value, String(6 * perWriter));
      const current = await a.currentRevision();
      assert.equal(current, 1 + 6 * perWriter + 10);
      // Every revision appears exactly once in the shared log.
      const log = await b.changesSince(0, 1000);
      assert.deepEqual(
        log.map((e) => e.revision),
        Array.from({ length: current }, (_, i) => i + 1),
      );
    } finally {
      await a.close();
      await b.close();
      await server.stop();
    }
  },
});
