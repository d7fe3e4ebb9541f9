import assert from "node:assert/strict";
import { parseServerOptions } from "../../apiserver/options.ts";

const noEnv = () => undefined;

Deno.test("parseServerOptions() applies defaults", () => {
  const r = parseServerOptions([], noEnv);
  assert.ok(r.ok);
  assert.equal(r.options.securePort, 6443);
  assert.equal(r.options.bindAddress, "0.0.0.0");
  assert.equal(r.options.dataDir, "./data");
  assert.equal(r.options.historyWindowMs, 5 * 60_000);
  assert.equal(r.options.verbosity, 0);
  assert.equal(r.options.http2MaxStreamsPerConnection, 1000);
});

Deno.test("parseServerOptions() reads every flag", () => {
  const r = parseServerOptions([
    "--data-dir=/tmp/x",
    "--secure-port=0",
    "--bind-address=127.0.0.1",
    "--history-window=1s",
    "--tls-san=a.example,b.example",
    "--tls-san=10.0.0.1",
    "-v=2",
    "--storage-url=ws://127.0.0.1:8080",
    "--http2-max-streams-per-connection=0",
  ], (k) => k === "LIBSQL_AUTH_TOKEN" ? "tok" : undefined);
  assert.ok(r.ok);
  assert.equal(r.options.dataDir, "/tmp/x");
  assert.equal(r.options.securePort, 0);
  assert.equal(r.options.historyWindowMs, 1000);
  assert.deepEqual(r.options.tlsSans, ["a.example", "b.example", "10.0.0.1"]);
  assert.equal(r.options.verbosity, 2);
  assert.equal(r.options.storageUrl, "ws://127.0.0.1:8080");
  assert.equal(r.options.storageAuthToken, "tok");
  assert.equal(r.options.http2MaxStreamsPerConnection, 0);
});

Deno.test("parseServerOptions() reports every problem at once", async (t) => {
  const r = parseServerOptions([
    "--secure-port=70000",
    "--history-window=0s",
    "--storage-url=ftp://x",
    "--tls-cert-file=/c.pem",
    "--feature-gates=Bogus=true",
    "-v=loud",
    "--http2-max-streams-per-connection=-1",
  ], noEnv);
  assert.ok(!r.ok);
  for (
    const flag of [
      "--secure-port",
      "--history-window",
      "--storage-url",
      "--tls-cert-file",
      "--feature-gates",
      "-v",
      "--http2-max-streams-per-connection",
    ]
  ) {
    await t.step(flag, () => {
      assert.ok(r.errors.some((e) => e.startsWith(flag)), `${flag} in ${r.errors.join("; ")}`);
    });
  }
});

Deno.test("parseServerOptions() rejects unknown flags and positionals", () => {
  for (const args of [["--nope"], ["extra"]]) {
    const r = parseServerOptions(args, noEnv);
    assert.ok(!r.ok, args.join(" "));
    assert.equal(r.errors.length, 1);
  }
});

Deno.test("parseServerOptions() reads durations as Go's time.ParseDuration does", async (t) => {
  for (
    const [text, ms] of [["+5s", 5000], ["1.s", 1000], [".5s", 500], ["1m30s", 90_000]] as const
  ) {
    await t.step(`accepts ${text}`, () => {
      const r = parseServerOptions([`--history-window=${text}`], noEnv);
      assert.ok(r.ok);
      assert.equal(r.options.historyWindowMs, ms);
    });
  }
  for (const text of ["5", " 5s", "1d", ".s"]) {
    await t.step(`rejects ${JSON.stringify(text)}`, () => {
      const r = parseServerOptions([`--history-window=${text}`], noEnv);
      assert.ok(!r.ok);
      assert.ok(r.errors[0].startsWith("--history-window"));
    });
  }
});

Deno.test("parseServerOptions() reads --disable-scheduler with or without a value", () => {
  const read = (args: string[]) => {
    const p = parseServerOptions(args);
    return p.ok ? p.options.disableScheduler : p.errors;
  };
  assert.equal(read([]), false);
  assert.equal(read(["--disable-scheduler"]), true);
  assert.equal(read(["--disable-scheduler=true"]), true);
  assert.equal(read(["--disable-scheduler=false"]), false);
  assert.deepEqual(read(["--disable-scheduler=yes"]), [
    '--disable-scheduler: invalid value "yes" (true or false)',
  ]);
});

Deno.test("parseServerOptions() reads the proxy client certificate flags, given together", () => {
  const r = parseServerOptions(
    ["--proxy-client-cert-file=/p.crt", "--proxy-client-key-file=/p.key"],
    noEnv,
  );
  assert.ok(r.ok);
  assert.equal(r.options.proxyClientCertFile, "/p.crt");
  assert.equal(r.options.proxyClientKeyFile, "/p.key");
  const one = parseServerOptions(["--proxy-client-cert-file=/p.crt"], noEnv);
  assert.ok(!one.ok);
  assert.deepEqual(one.errors, [
    "--proxy-client-cert-file and --proxy-client-key-file must be given together",
  ]);
});

Deno.test("parseServerOptions() reads the lifecycle and audit flags", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/policy.yaml`,
      "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n",
    );
    const r = parseServerOptions([
      "--shutdown-delay-duration=5s",
      "--shutdown-watch-termination-grace-period=2s",
      "--livez-grace-period=1m",
      `--audit-policy-file=${dir}/policy.yaml`,
      "--audit-log-path=-",
      "--audit-log-format=legacy",
      "--audit-log-maxage=3",
      "--audit-log-maxbackup=4",
      "--audit-log-maxsize=5",
    ], noEnv);
    assert.ok(r.ok, r.ok ? "" : r.errors.join("; "));
    assert.equal(r.options.shutdownDelayMs, 5000);
    assert.equal(r.options.shutdownWatchTerminationGracePeriodMs, 2000);
    assert.equal(r.options.livezGracePeriodMs, 60_000);
    assert.equal(r.options.audit?.policy.rules[0].level, "Metadata");
    assert.deepEqual(r.options.audit?.log, {
      path: "-",
      format: "legacy",
      maxAgeDays: 3,
      maxBackups: 4,
      maxSizeMB: 5,
    });
    const none = parseServerOptions([], noEnv);
    assert.ok(none.ok);
    assert.equal(none.options.audit, undefined);
    assert.equal(none.options.shutdownDelayMs, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseServerOptions() reports every lifecycle and audit problem at once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/bad.yaml`,
      "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- {}\n",
    );
    const r = parseServerOptions([
      "--shutdown-delay-duration=soon",
      "--livez-grace-period=-1s",
      `--audit-policy-file=${dir}/bad.yaml`,
      "--audit-log-format=xml",
      "--audit-log-maxsize=-1",
    ], noEnv);
    assert.ok(!r.ok);
    const text = r.errors.join("\n");
    for (
      const part of [
        "--shutdown-delay-duration: must be a non-negative duration",
        "--livez-grace-period: must be a non-negative duration",
        "rules[0].level: Required value",
        '--audit-log-format: invalid audit log format "xml"',
        "--audit-log-maxsize: must be a non-negative integer",
      ]
    ) assert.ok(text.includes(part), `${part} in ${text}`);
    const missing = parseServerOptions([`--audit-policy-file=${dir}/none.yaml`], noEnv);
    assert.ok(!missing.ok && missing.errors[0].startsWith("--audit-policy-file:"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseServerOptions() reads the metric flags and reports their problems with the others", async (t) => {
  await t.step("valid", () => {
    const r = parseServerOptions([
      "--show-hidden-metrics-for-version=1.31",
      "--disabled-metrics=a_total,b_total",
      "--disabled-metrics=c",
    ], noEnv);
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.options.metrics, {
      showHiddenMetricsForVersion: "1.31",
      disabledMetrics: ["a_total", "b_total", "c"],
    });
  });
  await t.step("every problem at once", () => {
    const r = parseServerOptions([
      "--show-hidden-metrics-for-version=1.30",
      "--disabled-metrics=not-a-name",
      "--feature-gates=Bogus=true,APISelfSubjectReview=false",
    ], noEnv);
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, [
      "--feature-gates: unrecognized feature gate: Bogus",
      "--feature-gates: cannot set feature gate APISelfSubjectReview to false, feature is locked to true",
      "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
      '--disabled-metrics must be fully qualified metric names matching "^[a-zA-Z_:][a-zA-Z0-9_:]*$", got "not-a-name"',
    ]);
  });
});

Deno.test("parseServerOptions() reads the --kubelet-* flags and wants the client pair together", () => {
  const r = parseServerOptions([
    "--kubelet-client-certificate=/k.crt",
    "--kubelet-client-key=/k.key",
    "--kubelet-preferred-address-types=Hostname, InternalIP",
  ], noEnv);
  assert.ok(r.ok, r.ok ? "" : r.errors.join("; "));
  assert.deepEqual(r.options.kubeletClient, {
    clientCertFile: "/k.crt",
    clientKeyFile: "/k.key",
    preferredAddressTypes: ["Hostname", "InternalIP"],
  });
  const half = parseServerOptions(["--kubelet-client-certificate=/k.crt"], noEnv);
  assert.ok(!half.ok);
  assert.ok(
    half.errors.includes(
      "--kubelet-client-certificate and --kubelet-client-key must be given together",
    ),
  );
});
