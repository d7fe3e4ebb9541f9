import { LibsqlStorage } from "../../../../apiserver/storage/libsql/libsql_storage.ts";
import { storageContract } from "../storage_contract.ts";

storageContract("LibsqlStorage (file)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "libsql_storage_" });
  return {
    open: () => LibsqlStorage.open({ url: `file:${dir}/state.db` }),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
});
