/**
 * `apiserver snapshot save <file> [--data-dir <dir>]` and
 * `apiserver snapshot restore <file> --data-dir <dir>`: the command line of the embedded
 * database's snapshots (see `storage/libsql/snapshot.ts`). Returns the exit status: 0, 1 when
 * the operation fails, 2 for bad arguments.
 *
 * @module
 */
import { restoreSnapshot, saveSnapshot, STATE_DB } from "./storage/libsql/snapshot.ts";

/** The usage text of the snapshot command. */
export const SNAPSHOT_USAGE = `Usage:
  apiserver snapshot save <file> [--data-dir <dir>] [--storage-url <url>]
      copy the database (online: the server may be running) into <file>, which must not exist
  apiserver snapshot restore <file> --data-dir <dir>
      check <file> and install it as <dir>/${STATE_DB}; <dir> must not hold a database yet`;

interface SnapshotArgs {
  action: string;
  file: string;
  dataDir?: string;
  storageUrl?: string;
}

/** Parses `args` (after `snapshot`): the arguments, or the problems with them. */
export function parseSnapshotArgs(args: string[]): SnapshotArgs | { errors: string[] } {
  const errors: string[] = [];
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^--(data-dir|storage-url)(?:=(.*))?$/.exec(a);
    if (m) {
      const value = m[2] ?? args[++i];
      if (value === undefined || value === "") errors.push(`--${m[1]} needs a value`);
      else flags[m[1]] = value;
    } else if (a.startsWith("-")) errors.push(`unknown flag ${a}`);
    else positional.push(a);
  }
  const [action, file, ...rest] = positional;
  if (action !== "save" && action !== "restore") errors.push("the action is save or restore");
  if (!file) errors.push("a snapshot file is needed");
  if (rest.length) errors.push(`unexpected arguments: ${rest.join(" ")}`);
  if (action === "restore" && !flags["data-dir"]) errors.push("restore needs --data-dir");
  if (action === "restore" && flags["storage-url"]) {
    errors.push("restore writes an embedded database: --storage-url is not supported");
  }
  if (errors.length) return { errors };
  return { action, file, dataDir: flags["data-dir"], storageUrl: flags["storage-url"] };
}

/** Runs the snapshot command; messages go to stderr. Returns the exit status. */
export async function runSnapshotCommand(args: string[]): Promise<number> {
  const parsed = parseSnapshotArgs(args);
  if ("errors" in parsed) {
    for (const e of parsed.errors) console.error(`error: ${e}`);
    console.error(SNAPSHOT_USAGE);
    return 2;
  }
  const dataDir = parsed.dataDir ?? "./data";
  try {
    if (parsed.action === "save") {
      const info = await saveSnapshot(parsed.storageUrl ?? `${dataDir}/${STATE_DB}`, parsed.file);
      console.error(
        `saved ${parsed.file}: revision ${info.revision}, ${info.objects} objects, ${info.bytes} bytes`,
      );
    } else {
      const info = await restoreSnapshot(parsed.file, dataDir);
      console.error(
        `restored ${parsed.file} into ${dataDir}/${STATE_DB}: revision ${info.revision}, ` +
          `${info.objects} objects`,
      );
    }
    return 0;
  } catch (e) {
    console.error(`error: snapshot ${parsed.action}: ${(e as Error).message}`);
    return 1;
  }
}
