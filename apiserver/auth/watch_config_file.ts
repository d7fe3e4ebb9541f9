/**
 * Watching a configuration file for the reloading controllers: its directory is watched (so an
 * atomic replace by rename is seen as well as a write) and the file is also checked every
 * `intervalMs`, as Kubernetes' file watchers do; `onChange` is called for each event that
 * may concern the file and at every tick (it compares the content itself).
 *
 * @module
 */
import { dirname, resolve } from "node:path";

/** A running watch. */
export interface ConfigFileWatch {
  close(): void;
}

/** Watches `path`; `onError` hears why watching stopped (checks go on at every tick). */
export function watchConfigFile(
  path: string,
  intervalMs: number,
  onChange: () => void,
  onError: (err: unknown) => void,
): ConfigFileWatch {
  const file = resolve(path);
  const timer = setInterval(onChange, intervalMs);
  let closed = false;
  let watcher: Deno.FsWatcher | undefined;
  (async () => {
    try {
      watcher = Deno.watchFs(dirname(file), { recursive: false });
      for await (const ev of watcher) {
        if (ev.kind === "other" || ev.paths.some((p) => resolve(p) === file)) onChange();
      }
    } catch (err) {
      if (!closed) onError(err);
    }
  })();
  return {
    close() {
      closed = true;
      clearInterval(timer);
      try {
        watcher?.close();
      } catch {
        // already closed
      }
    },
  };
}
