/**
 * What `--version` prints: the project's name and version, the Kubernetes version it emulates,
 * the Deno version and the commit. The commit is baked in at build time through the
 * environment (`deno compile --env-file`, or the bundle's launchers); "unknown" in development.
 *
 * @module
 */

/** The project's name: the bundle's file name and the directories the installer creates. */
export const PROJECT_NAME = "kubedeno";

/** The project's own version (the bundle's file name carries it). */
export const PROJECT_VERSION = "0.1.0";

/** The Kubernetes version the API server reports and emulates (`/version`'s gitVersion). */
export const KUBERNETES_VERSION = "v1.32.0";

/** The environment variable the build sets to the commit it was built from. */
export const BUILD_COMMIT_ENV = "KUBEDENO_BUILD_COMMIT";

/** The commit this executable was built from, or "unknown" when run from a source tree. */
export function buildCommit(): string {
  try {
    const commit = Deno.env.get(BUILD_COMMIT_ENV)?.trim();
    return commit && /^[0-9a-f]{7,40}(-dirty)?$/.test(commit) ? commit : "unknown";
  } catch {
    return "unknown"; // no permission to read the environment
  }
}

/** The `--version` text of `program`: one `key: value` line per fact. */
export function versionText(program: string): string {
  return [
    `${program} ${PROJECT_NAME} ${PROJECT_VERSION}`,
    `kubernetes: ${KUBERNETES_VERSION}`,
    `deno: ${Deno.version.deno} (v8 ${Deno.version.v8}, typescript ${Deno.version.typescript})`,
    `commit: ${buildCommit()}`,
  ].join("\n");
}
