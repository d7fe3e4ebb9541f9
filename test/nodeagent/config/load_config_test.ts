import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../../nodeagent/config/load_config.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "nodeagent-config-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("loadConfig() merges drop-ins with the four merge rules", async (t) => {
  const cases: {
    name: string;
    main: string;
    dropIns: Record<string, string>;
    check: (c: Record<string, unknown>) => void;
  }[] = [
    {
      name: "rule 1: a scalar in a drop-in overrides the main file",
      main: "port: 10250\nnodeLeaseDurationSeconds: 40\n",
      dropIns: { "10-port.conf": "port: 11250\n" },
      check: (c) => {
        assert.equal(c.port, 11250);
        assert.equal(c.nodeLeaseDurationSeconds, 40);
      },
    },
    {
      name: "rule 1: later drop-ins override earlier ones in lexical order",
      main: "port: 1\n",
      dropIns: { "20-b.conf": "port: 3\n", "10-a.conf": "port: 2\n", "30-c.txt": "port: 4\n" },
      check: (c) => assert.equal(c.port, 3),
    },
    {
      name: "rule 2: nested structures are overridden field by field",
      main: "authorization:\n  mode: Webhook\n  webhook:\n    cacheAuthorizedTTL: 1m\n" +
        "    cacheUnauthorizedTTL: 10s\n",
      dropIns: {
        "10-authz.conf": "authorization:\n  mode: AlwaysAllow\n",
        "20-authz.conf": "authorization:\n  webhook:\n    cacheUnauthorizedTTL: 20s\n",
      },
      check: (c) =>
        assert.deepEqual(c.authorization, {
          mode: "AlwaysAllow",
          webhook: { cacheAuthorizedTTL: "1m", cacheUnauthorizedTTL: "20s" },
        }),
    },
    {
      name: "rule 3: lists are replaced wholesale",
      main: "clusterDNS: [10.0.0.10, 10.0.0.11]\n",
      dropIns: { "10-dns.conf": "clusterDNS: [10.96.0.10]\n" },
      check: (c) => assert.deepEqual(c.clusterDNS, ["10.96.0.10"]),
    },
    {
      name: "rule 4: maps are merged per key",
      main: "featureGates:\n  ContainerCheckpoint: true\n  KubeletFineGrainedAuthz: false\n" +
        "systemReserved:\n  cpu: 100m\n",
      dropIns: {
        "10-gates.conf":
          "featureGates:\n  ContainerCheckpoint: false\nsystemReserved:\n  memory: 1Gi\n",
      },
      check: (c) => {
        assert.deepEqual(c.featureGates, {
          ContainerCheckpoint: false,
          KubeletFineGrainedAuthz: false,
        });
        assert.deepEqual(c.systemReserved, { cpu: "100m", memory: "1Gi" });
      },
    },
    {
      name: "rule 4: a map's list value is replaced wholesale, other keys stay",
      main: "staticPodURLHeader:\n  X-A: [a1, a2]\n  X-B: [b1]\n",
      dropIns: { "10-h.conf": "staticPodURLHeader:\n  X-A: [a3]\n  X-C: [c1]\n" },
      check: (c) =>
        assert.deepEqual(c.staticPodURLHeader, { "X-A": ["a3"], "X-B": ["b1"], "X-C": ["c1"] }),
    },
    {
      name: "defaults stay for fields no file sets",
      main: "",
      dropIns: {},
      check: (c) => {
        assert.equal(c.nodeLeaseDurationSeconds, 40);
        assert.equal(c.nodeStatusReportFrequency, "5m0s");
        assert.equal(c.rootDir, "/var/lib/nodeagent");
        assert.equal((c.evictionHard as Record<string, string>)["memory.available"], "100Mi");
      },
    },
  ];
  for (const tc of cases) {
    await t.step(tc.name, () =>
      withDir(async (dir) => {
        await Deno.writeTextFile(`${dir}/config.yaml`, HEAD + tc.main);
        await Deno.mkdir(`${dir}/conf.d`);
        for (const [name, body] of Object.entries(tc.dropIns)) {
          await Deno.writeTextFile(`${dir}/conf.d/${name}`, HEAD + body);
        }
        const { config } = await loadConfig({
          configFile: `${dir}/config.yaml`,
          configDir: `${dir}/conf.d`,
        });
        tc.check(config as unknown as Record<string, unknown>);
      }));
  }
});

Deno.test("loadConfig() reports every problem at once with file and field", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/config.yaml`,
      HEAD + "port: 70000\nnodeLeaseDurationSeconds: abc\nbogus: 1\nclusterDNS: [not-an-ip]\n",
    );
    await Deno.mkdir(`${dir}/conf.d`);
    await Deno.writeTextFile(
      `${dir}/conf.d/10-a.conf`,
      HEAD + "featureGates:\n  NoSuchGate: true\nauthorization:\n  mode: Sometimes\n",
    );
    await Deno.writeTextFile(
      `${dir}/conf.d/20-b.conf`,
      "evictionHard:\n  memory.available: 150%\n",
    );
    const err = await loadConfig({ configFile: `${dir}/config.yaml`, configDir: `${dir}/conf.d` })
      .then(() => undefined, (e) => e);
    assert.ok(err instanceof ConfigError, String(err));
    const got = err.problems.map((p) => `${p.file.slice(dir.length + 1)} ${p.field}`).sort();
    assert.deepEqual(got, [
      "conf.d/10-a.conf authorization.mode",
      "conf.d/10-a.conf featureGates[NoSuchGate]",
      "conf.d/20-b.conf apiVersion",
      "conf.d/20-b.conf evictionHard[memory.available]",
      "conf.d/20-b.conf kind",
      "config.yaml bogus",
      "config.yaml clusterDNS[0]",
      "config.yaml nodeLeaseDurationSeconds",
      "config.yaml port",
    ]);
    assert.match(err.message, /unrecognized feature gate: NoSuchGate/);
  });
});

Deno.test("loadConfig() reports unparsable YAML and a missing file", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/config.yaml`, HEAD + "port: [\n");
    const err = await loadConfig({ configFile: `${dir}/config.yaml`, configDir: `${dir}/none` })
      .then(() => undefined, (e) => e);
    assert.ok(err instanceof ConfigError);
    assert.deepEqual(err.problems.map((p) => p.field), ["<dir>", "<file>"]);
  });
});

Deno.test("loadConfig() applies flag overrides last and blames the flag", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/config.yaml`, HEAD + "rootDir: /srv/a\n");
    const { config, origins } = await loadConfig({
      configFile: `${dir}/config.yaml`,
      overrides: [{ source: "--root-dir", doc: { rootDir: "/srv/b" } }],
    });
    assert.equal(config.rootDir, "/srv/b");
    assert.equal(origins.get("rootDir"), "--root-dir");
    const err = await loadConfig({ overrides: [{ source: "--root-dir", doc: { rootDir: "rel" } }] })
      .then(() => undefined, (e) => e);
    assert.ok(err instanceof ConfigError);
    assert.deepEqual(err.problems.map((p) => `${p.file} ${p.field}`), ["--root-dir rootDir"]);
  });
});
