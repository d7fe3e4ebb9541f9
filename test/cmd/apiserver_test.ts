/**
 * The apiserver executable as a subprocess: flag validation (every problem at once, exit code
 * 2) and, at -v=2, one JSON log line per request on stderr with no credential in it.
 */
import assert from "node:assert/strict";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";

const ENTRY = new URL("../../cmd/apiserver.ts", import.meta.url).pathname;

function run(args: string[]): Promise<Deno.CommandOutput> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ENTRY, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("apiserver reports every bad flag at once and exits 2", async (t) => {
  await t.step("bad values", async () => {
    const out = await run([
      "--secure-port=99999",
      "--history-window=soon",
      "--storage-url=ftp://example.com",
      "--feature-gates=NoSuchGate=true",
      "--tls-cert-file=/nonexistent.pem",
    ]);
    assert.equal(out.code, 2);
    const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
    for (
      const flag of [
        "--secure-port",
        "--history-window",
        "--storage-url",
        "--feature-gates",
        "--tls-cert-file",
      ]
    ) {
      assert.ok(
        lines.some((l) => l.startsWith("error: ") && l.includes(flag)),
        `${flag}: ${lines}`,
      );
    }
  });
  await t.step("every problem of an authentication configuration file", async () => {
    const dir = await Deno.makeTempDir({ prefix: "apiserver-cmd-authn-" });
    const file = `${dir}/authn.yaml`;
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        apiVersion: "apiserver.config.k8s.io/v1beta1",
        kind: "AuthenticationConfiguration",
        jwt: [{
          issuer: { url: "http://issuer.example", audiences: [] },
          claimMappings: { username: { claim: "sub" } },
          userValidationRules: [{ expression: "user.(" }],
        }],
      }),
    );
    const out = await run([`--authentication-config=${file}`, "--oidc-client-id=x", "--v=x"]);
    await Deno.remove(dir, { recursive: true });
    assert.equal(out.code, 2);
    const stderr = new TextDecoder().decode(out.stderr);
    for (
      const want of [
        "error: authentication-config file and oidc-* flags are mutually exclusive",
        'jwt[0].issuer.url: Invalid value: "http://issuer.example": URL scheme must be https',
        "jwt[0].issuer.audiences: Required value",
        "jwt[0].claimMappings.username.prefix: Required value",
        "jwt[0].userValidationRules[0].expression: Invalid value",
        "error: -v:",
      ]
    ) assert.ok(stderr.includes(want), `${want}\n${stderr}`);
  });
  await t.step("every problem of an authorization configuration file", async () => {
    const dir = await Deno.makeTempDir({ prefix: "apiserver-cmd-authz-" });
    const file = `${dir}/authz.yaml`;
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        apiVersion: "apiserver.config.k8s.io/v1",
        kind: "AuthorizationConfiguration",
        authorizers: [{ type: "RBAC", name: "rbac" }, { type: "RBAC", name: "again" }, {
          type: "Webhook",
          name: "hook",
          webhook: { timeout: "45s", failurePolicy: "Allow", connectionInfo: { type: "X" } },
        }],
      }),
    );
    const out = await run([`--authorization-config=${file}`, "--authorization-mode=RBAC"]);
    await Deno.remove(dir, { recursive: true });
    assert.equal(out.code, 2);
    const stderr = new TextDecoder().decode(out.stderr);
    for (
      const want of [
        "error: --authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined",
        'authorizers[1].type: Duplicate value: "RBAC"',
        'authorizers[2].webhook.timeout: Invalid value: "45s": must be > 0s and <= 30s',
        "authorizers[2].webhook.subjectAccessReviewVersion: Required value",
        'authorizers[2].webhook.failurePolicy: Unsupported value: "Allow"',
        'authorizers[2].webhook.connectionInfo.type: Unsupported value: "X"',
      ]
    ) assert.ok(stderr.includes(want), `${want}\n${stderr}`);
  });
  await t.step(
    "admission plugins: unknown, unsupported and overlapping, with the others",
    async () => {
      const out = await run([
        "--secure-port=99999",
        "--enable-admission-plugins=NoSuchPlugin,AlwaysPullImages,LimitRanger",
        "--disable-admission-plugins=LimitRanger,Bogus",
      ]);
      assert.equal(out.code, 2);
      const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
      for (
        const message of [
          'error: enable-admission-plugins plugin "NoSuchPlugin" is unknown',
          'error: enable-admission-plugins plugin "AlwaysPullImages" is not supported by this server',
          'error: disable-admission-plugins plugin "Bogus" is unknown',
          "error: [LimitRanger] in enable-admission-plugins and disable-admission-plugins overlapped",
        ]
      ) {
        assert.ok(lines.includes(message), `${message}: ${lines}`);
      }
      assert.ok(lines.some((l) => l.includes("--secure-port")), String(lines));
    },
  );
  await t.step("an unknown flag", async () => {
    const out = await run(["--no-such-flag=1"]);
    assert.equal(out.code, 2);
    assert.match(new TextDecoder().decode(out.stderr), /^error: .*no-such-flag/m);
  });
  await t.step("--help exits 0 and lists the flags", async () => {
    const out = await run(["--help"]);
    assert.equal(out.code, 0);
    assert.match(new TextDecoder().decode(out.stdout), /--data-dir/);
  });
});

Deno.test("apiserver -v=2 logs one JSON line per request without credentials", async () => {
  const dir = await Deno.makeTempDir({ prefix: "apiserver-cmd-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ENTRY,
      `--data-dir=${dir}`,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      "-v=2",
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const { promise: readyUrl, resolve: ready } = Promise.withResolvers<string>();
  const reading = (async () => {
    let buf = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        const m = /^apiserver ready at (\S+);/.exec(line);
        if (m) ready(m[1]);
      }
    }
  })();
  let client: Deno.HttpClient | undefined;
  let anonymous: Deno.HttpClient | undefined;
  try {
    const url = await Promise.race([
      readyUrl,
      child.status.then((s) => {
        throw new Error(`apiserver exited ${s.code}: ${lines.join("\n")}`);
      }),
    ]);
    const config = await loadKubeconfig(`${dir}/admin.kubeconfig`);
    client = Deno.createHttpClient({
      caCerts: config.caPem ? [config.caPem] : [],
      ...(config.clientCertPem ? { cert: config.clientCertPem, key: config.clientKeyPem } : {}),
    });
    // Without a client certificate, so that the bogus token below is what authenticates.
    anonymous = Deno.createHttpClient({ caCerts: config.caPem ? [config.caPem] : [] });
    const headers: Record<string, string> = { "user-agent": "cmd-test/1" };
    if (config.token) headers.authorization = `Bearer ${config.token}`;
    const secret = "sekrit-token-value-0123456789";
    const requests: [string, RequestInit, Deno.HttpClient][] = [
      ["/api/v1/namespaces?limit=1", { headers }, client],
      ["/api/v1/namespaces/default/configmaps/nope", { headers }, client],
      ["/api/v1/namespaces", { headers: { authorization: `Bearer ${secret}` } }, anonymous],
    ];
    for (const [path, init, c] of requests) {
      const res = await fetch(url + path, { ...init, client: c });
      await res.body?.cancel();
    }
    const countHttp = () =>
      lines.filter((l) =>
        l.startsWith("{") && JSON.parse(l).msg === "HTTP" &&
        JSON.parse(l).uri?.includes("/api/v1/namespaces")
      ).length;
    const deadline = Date.now() + 30_000;
    while (countHttp() < requests.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const http = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)).filter((e) =>
      e.msg === "HTTP" && String(e.uri).startsWith("/api/v1/namespaces")
    );
    assert.equal(http.length, 3, lines.join("\n"));
    assert.deepEqual(http.map((e) => [e.verb, e.uri, e.resp]), [
      ["list", "/api/v1/namespaces?limit=1", 200],
      ["get", "/api/v1/namespaces/default/configmaps/nope", 404],
      ["list", "/api/v1/namespaces", 401],
    ]);
    assert.equal(http[0].userAgent, "cmd-test/1");
    assert.ok(http[0].user, "the authenticated user is logged");
    assert.match(http[0].latency, /ms$/);
    for (const l of lines) {
      assert.ok(!l.includes(secret), `a credential leaked into the log: ${l}`);
      if (config.token) assert.ok(!l.includes(config.token), `the admin token leaked: ${l}`);
    }
  } finally {
    client?.close();
    anonymous?.close();
    child.kill("SIGTERM");
    await child.status;
    await reading;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("apiserver refuses bad feature gates and metric flags at start, all at once", async () => {
  const out = await run([
    "--feature-gates=NoSuchGate=true,APISelfSubjectReview=false",
    "--feature-gates=WatchList=maybe",
    "--show-hidden-metrics-for-version=1.30",
    "--disabled-metrics=bad-name",
  ]);
  assert.equal(out.code, 2);
  const stderr = new TextDecoder().decode(out.stderr);
  for (
    const want of [
      "error: --feature-gates: unrecognized feature gate: NoSuchGate",
      "error: --feature-gates: cannot set feature gate APISelfSubjectReview to false, feature is locked to true",
      'error: --feature-gates: invalid value of WatchList=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
      "error: --show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
      'error: --disabled-metrics must be fully qualified metric names matching "^[a-zA-Z_:][a-zA-Z0-9_:]*$", got "bad-name"',
    ]
  ) assert.ok(stderr.includes(want), `${want}\n${stderr}`);
});

Deno.test("apiserver --help lists the feature gates with stage and default and the metric flags", async () => {
  const out = await run(["--help"]);
  assert.equal(out.code, 0);
  const stdout = new TextDecoder().decode(out.stdout);
  for (
    const want of [
      "--feature-gates            Comma-separated list of component:key=value pairs that describe feature gates for alpha/experimental features of different components.\n",
      "   kube:APIResponseCompression=true|false (BETA - default=true)\n",
      "   kube:AllAlpha=true|false (ALPHA - default=false)\n",
      "   kube:WatchList=true|false (ALPHA - default=false)\n",
      "--show-hidden-metrics-for-version The previous version for which you want to show hidden metrics.",
      "--disabled-metrics ",
    ]
  ) assert.ok(stdout.includes(want), `${want}\n${stdout}`);
  assert.ok(!stdout.includes("APISelfSubjectReview"), "GA gates are not listed, as in kube");
});
