/**
 * The API server's verb handlers: one per verb of a resource request, watch served from the
 * watch caches.
 *
 * @module
 */
import type { WatchCaches } from "../watch/watch_caches.ts";
import { handleCreate } from "./handlers/create.ts";
import { handleDelete } from "./handlers/delete.ts";
import { handleDeleteCollection } from "./handlers/delete_collection.ts";
import { handleGet } from "./handlers/get.ts";
import { handleList } from "./handlers/list.ts";
import { handlePatch } from "./handlers/patch.ts";
import { handleUpdate } from "./handlers/update.ts";
import { handleWatch } from "./handlers/watch.ts";
import type { VerbHandlers } from "./resource_handler.ts";

/** Every verb's handler; watches are served from `watchCaches`. */
export function verbHandlers(watchCaches: WatchCaches): VerbHandlers {
  return {
    get: handleGet,
    list: handleList,
    create: handleCreate,
    update: handleUpdate,
    delete: handleDelete,
    deletecollection: handleDeleteCollection,
    patch: handlePatch,
    watch: (ctx) => handleWatch(ctx, watchCaches),
  };
}
