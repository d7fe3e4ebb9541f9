/**
 * Atomic file writes with an explicit mode: the data goes to a temporary file in the same
 * directory, created with the final mode (0600 for secrets), which is then renamed into place.
 * A crash never leaves a half-written key, and a secret is never readable by others.
 *
 * @module
 */

/** Writes `data` to `path` atomically with the given mode (default 0600). */
export async function writePrivateFile(
  path: string,
  data: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const tmp = `${path}.tmp-${crypto.randomUUID()}`;
  try {
    const file = await Deno.open(tmp, { write: true, createNew: true, mode });
    try {
      let offset = 0;
      while (offset < bytes.length) offset += await file.write(bytes.subarray(offset));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.chmod(tmp, mode);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
}
