/** `/version`: the Kubernetes version this server reports and emulates. */
import { buildCommit } from "../../shared/build_info.ts";

/** The commit the build baked in (`shared/build_info.ts`), as kube reports its git commit. */
const COMMIT = buildCommit();

/** The version info, as kube-apiserver reports it. */
export const VERSION_INFO = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-deno.0",
  gitCommit: /^[0-9a-f]{40}/.test(COMMIT) ? COMMIT.slice(0, 40) : "0".repeat(40),
  gitTreeState: COMMIT.endsWith("-dirty") ? "dirty" : "clean",
  buildDate: "2026-11-22T00:00:00Z",
  goVersion: "deno2.9.6",
  compiler: "deno",
  platform: "linux/amd64",
};

/** Answers `/version` and `/version/`. */
export function handleVersion(): Response {
  return new Response(JSON.stringify(VERSION_INFO, null, 2), {
    status: 200,
    headers: { "Content-Type": "application/json" },
  });
}
