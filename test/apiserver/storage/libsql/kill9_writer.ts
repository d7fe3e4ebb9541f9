/**
 * Child process of the kill -9 durability test: writes keys with several concurrent writers
 * forever and prints `ack <key> <revision>` after each write is acknowledged, until killed.
 *
 * @module
 */
import { LibsqlStorage } from "../../../../apiserver/storage/libsql/libsql_storage.ts";

const url = Deno.args[0];
if (!url) throw new Error("usage: kill9_writer.ts <storage url>");
const storage = await LibsqlStorage.open({ url, maintenanceIntervalMs: 0 });
let next = 0;
const writer = async () => {
  for (;;) {
    const key = `/kill/${String(next++).padStart(8, "0")}`;
    const kv = await storage.create(key, JSON.stringify({ n: next, pad: "x".repeat(200) }));
    console.log(`ack ${kv.key} ${kv.revision}`);
  }
};
await Promise.all(Array.from({ length: 8 }, writer));
