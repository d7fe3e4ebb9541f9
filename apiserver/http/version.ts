/** `/version`: the Kubernetes version this server reports and emulates. */

/** The version info, as kube-apiserver reports it. */
export const VERSION_INFO = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-deno.0",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
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
