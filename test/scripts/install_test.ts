/**
 * `install.sh` and `uninstall.sh` in their dry-run mode (`--root DIR`): the files they lay out
 * under DIR and the system commands they print instead of running; and shellcheck on the
 * scripts and the bundle's launchers where shellcheck exists.
 */
import assert from "node:assert/strict";
import { launcher } from "../../scripts/bundle.ts";
import { PROJECT_NAME as NAME, PROJECT_VERSION as VERSION } from "../../shared/build_info.ts";

const SCRIPTS = new URL("../../scripts/", import.meta.url).pathname;
const INSTALL_FILES = ["install.sh", "install_units.sh", "uninstall.sh"];

/** A small stand-in for an unpacked bundle: the real scripts beside placeholder contents. */
async function fakeBundle(dir: string): Promise<void> {
  for (const d of ["app", "bin", "deno"]) await Deno.mkdir(`${dir}/${d}`, { recursive: true });
  await Deno.writeTextFile(`${dir}/BUILD`, `name=${NAME}\nversion=${VERSION}\ncommit=unknown\n`);
  await Deno.writeTextFile(`${dir}/README.md`, "readme\n");
  await Deno.writeTextFile(`${dir}/app/deno.json`, "{}\n");
  await Deno.writeTextFile(`${dir}/deno/deno`, "#!/bin/sh\n", { mode: 0o755 });
  for (const t of ["apiserver", "nodeagent"]) {
    await Deno.writeTextFile(`${dir}/bin/${t}`, launcher(`cmd/${t}.ts`, "unknown"), {
      mode: 0o755,
    });
  }
  for (const f of INSTALL_FILES) await Deno.copyFile(`${SCRIPTS}${f}`, `${dir}/${f}`);
}

async function sh(script: string, args: string[]): Promise<{ code: number; out: string }> {
  const o = await new Deno.Command("sh", {
    args: [script, ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout) + dec.decode(o.stderr) };
}

const read = (p: string) => Deno.readTextFile(p);
const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

Deno.test("install.sh --root lays out /opt, /etc, /var/lib and the systemd units; uninstall.sh removes them", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "install-test-" });
  const root = `${tmp}/root`;
  try {
    await fakeBundle(`${tmp}/bundle`);
    await Deno.writeTextFile(`${tmp}/node.kubeconfig`, "apiVersion: v1\nkind: Config\n");
    const r = await sh(`${tmp}/bundle/install.sh`, [
      "--root",
      root,
      "--kubeconfig",
      `${tmp}/node.kubeconfig`,
    ]);
    assert.equal(r.code, 0, r.out);
    await t.step("the files", async () => {
      assert.equal(await Deno.readLink(`${root}/opt/${NAME}/current`), VERSION);
      assert.ok(await exists(`${root}/opt/${NAME}/current/bin/apiserver`));
      assert.ok(await exists(`${root}/opt/${NAME}/current/uninstall.sh`));
      assert.match(
        await read(`${root}/etc/${NAME}/apiserver.env`),
        /^APISERVER_ARGS=".*--data-dir=\/var\/lib\//m,
      );
      assert.match(
        await read(`${root}/etc/${NAME}/nodeagent.env`),
        /^NODEAGENT_ARGS=".*--kubeconfig=/m,
      );
      assert.equal((await Deno.stat(`${root}/etc/${NAME}/node.kubeconfig`)).mode! & 0o777, 0o600);
      assert.equal((await Deno.stat(`${root}/var/lib/${NAME}/apiserver`)).mode! & 0o777, 0o700);
    });
    await t.step("the units", async () => {
      const api = await read(`${root}/etc/systemd/system/${NAME}-apiserver.service`);
      for (
        const line of [
          `User=${NAME}`,
          "Restart=always",
          "LimitNOFILE=1048576",
          "After=network-online.target",
          `ExecStart=/opt/${NAME}/current/bin/apiserver $APISERVER_ARGS`,
        ]
      ) {
        assert.ok(api.split("\n").includes(line), `${line} in\n${api}`);
      }
      const agent = await read(`${root}/etc/systemd/system/${NAME}-nodeagent.service`);
      for (
        const line of [
          "Restart=always",
          "LimitNOFILE=1048576",
          "KillMode=mixed",
          `After=network-online.target ${NAME}-apiserver.service`,
        ]
      ) {
        assert.ok(agent.split("\n").includes(line), `${line} in\n${agent}`);
      }
    });
    await t.step("the commands printed instead of run", () => {
      for (
        const cmd of [
          `useradd --system`,
          "systemctl daemon-reload",
          `systemctl enable --now ${NAME}-apiserver.service`,
          `systemctl enable --now ${NAME}-nodeagent.service`,
        ]
      ) {
        assert.ok(r.out.includes(`would run: ${cmd}`), `${cmd} in\n${r.out}`);
      }
    });
    await t.step("a second install keeps edited configuration", async () => {
      await Deno.writeTextFile(
        `${root}/etc/${NAME}/apiserver.env`,
        'APISERVER_ARGS="--secure-port=7443"\n',
      );
      assert.equal((await sh(`${tmp}/bundle/install.sh`, ["--root", root, "--no-start"])).code, 0);
      assert.match(await read(`${root}/etc/${NAME}/apiserver.env`), /7443/);
    });
    await t.step("uninstall keeps configuration and data; --purge removes them", async () => {
      const u = await sh(`${root}/opt/${NAME}/current/uninstall.sh`, ["--root", root]);
      assert.equal(u.code, 0, u.out);
      assert.match(
        u.out,
        new RegExp(`would run: systemctl disable --now ${NAME}-apiserver.service`),
      );
      assert.ok(!await exists(`${root}/opt/${NAME}`));
      assert.ok(!await exists(`${root}/etc/systemd/system/${NAME}-apiserver.service`));
      assert.ok(await exists(`${root}/etc/${NAME}/apiserver.env`));
      assert.equal((await sh(`${tmp}/bundle/install.sh`, ["--root", root])).code, 0);
      const p = await sh(`${tmp}/bundle/uninstall.sh`, ["--root", root, "--purge"]);
      assert.equal(p.code, 0, p.out);
      assert.match(p.out, new RegExp(`would run: userdel ${NAME}`));
      for (const d of [`opt/${NAME}`, `etc/${NAME}`, `var/lib/${NAME}`]) {
        assert.ok(!await exists(`${root}/${d}`), d);
      }
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("install.sh --components=nodeagent installs only the node agent; bad arguments exit 2", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "install-test-" });
  try {
    await fakeBundle(`${tmp}/bundle`);
    const r = await sh(`${tmp}/bundle/install.sh`, [
      "--root",
      `${tmp}/root`,
      "--components=nodeagent",
    ]);
    assert.equal(r.code, 0, r.out);
    assert.ok(await exists(`${tmp}/root/etc/systemd/system/${NAME}-nodeagent.service`));
    assert.ok(!await exists(`${tmp}/root/etc/systemd/system/${NAME}-apiserver.service`));
    assert.ok(!r.out.includes("useradd"), r.out);
    assert.equal(
      (await sh(`${tmp}/bundle/install.sh`, ["--root", `${tmp}/r2`, "--components=etcd"])).code,
      2,
    );
    assert.equal((await sh(`${tmp}/bundle/install.sh`, ["--bogus"])).code, 2);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("the install scripts and the bundle's launchers are shellcheck-clean", async () => {
  const probe = await new Deno.Command("shellcheck", { args: ["--version"], stdout: "null" })
    .output()
    .catch(() => undefined);
  if (!probe?.success) {
    console.error("install_test: shellcheck is not installed: skipping the shellcheck test");
    return;
  }
  const tmp = await Deno.makeTempDir({ prefix: "install-test-" });
  try {
    await fakeBundle(tmp);
    const files = [
      ...INSTALL_FILES.map((f) => `${tmp}/${f}`),
      `${tmp}/bin/apiserver`,
      `${tmp}/bin/nodeagent`,
    ];
    const out = await new Deno.Command("shellcheck", { args: ["-x", ...files], stdout: "piped" })
      .output();
    assert.ok(out.success, new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
