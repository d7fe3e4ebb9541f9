/**
 * `deno task bundle`: builds the bundle, checks its checksum and contents, then unpacks it
 * inside a user and network namespace with no network (`unshare -rn`) and, there, starts its
 * API server (until `/readyz` answers through the kubeconfig it wrote) and its node agent
 * (until its Node is registered). Where `unshare` is not permitted the offline part is
 * skipped with a message.
 */
import assert from "node:assert/strict";
import { BUNDLE_BASE } from "../../scripts/bundle.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DRIVER = new URL("./_bundle_offline_driver.ts", import.meta.url).pathname;

/** Why the offline run cannot happen here, or undefined when it can. */
function offlineUnavailable(): string | undefined {
  try {
    const probe = new Deno.Command("unshare", {
      args: ["-rn", "sh", "-c", "ip link set lo up"],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    if (probe.success) return undefined;
    return new TextDecoder().decode(probe.stderr).trim() || "unshare -rn failed";
  } catch (e) {
    return (e as Error).message;
  }
}

async function text(cmd: string, args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const err = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `${cmd} ${args.join(" ")}: ${err}`);
  return new TextDecoder().decode(out.stdout);
}

Deno.test("deno task bundle: offline, the API server gets ready and a node agent registers", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "bundle-test-" });
  try {
    // A subprocess in the repository's root (deno test --parallel shares the working directory).
    await text(Deno.execPath(), ["run", "-A", "scripts/bundle.ts", `--out-dir=${tmp}/dist`], ROOT);
    const tarball = `${tmp}/dist/${BUNDLE_BASE}.tar.gz`;
    await t.step("the checksum and the contents", async () => {
      assert.match(
        await text("sha256sum", ["-c", `${BUNDLE_BASE}.tar.gz.sha256`], `${tmp}/dist`),
        /OK/,
      );
      const list = (await text("tar", ["-tzf", tarball])).split("\n");
      for (
        const f of [
          "deno/deno",
          "bin/apiserver",
          "bin/nodeagent",
          "install.sh",
          "uninstall.sh",
          "app/deno.lock",
        ]
      ) {
        assert.ok(list.includes(`${BUNDLE_BASE}/${f}`), f);
      }
      assert.ok(list.some((f) => /@libsql\/linux-x64-gnu\/index\.node$/.test(f)), "libsql's addon");
      assert.ok(!list.some((f) => f.includes("client-node")), "test-only packages are left out");
    });
    const why = offlineUnavailable();
    if (why) {
      console.error(`bundle_test: skipping the offline run: unshare -rn is not permitted (${why})`);
      return;
    }
    await t.step("unpacked and run with no network", async () => {
      await Deno.mkdir(`${tmp}/run`);
      const out = await new Deno.Command("unshare", {
        args: [
          "-rn",
          "sh",
          "-c",
          'ip link set lo up && exec "$0" run -A --cached-only "$1" "$2" "$3"',
          Deno.execPath(),
          DRIVER,
          tarball,
          `${tmp}/run`,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.ok(out.success, stderr);
      const result = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
      assert.equal(result.node, "bundle-node");
      const size = (await Deno.stat(tarball)).size;
      console.error(
        `bundle_test: ${BUNDLE_BASE}.tar.gz is ${(size / 1048576).toFixed(1)} MiB; ` +
          `unpack to /readyz took ${(result.readyMs / 1000).toFixed(1)} s`,
      );
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
