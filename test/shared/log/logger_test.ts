import assert from "node:assert/strict";
import { Logger, parseVerbosity } from "../../../shared/log/mod.ts";

const TOKEN = "s3cr3t-T0ken.value_9f8e7d";
const FIXED = new Date("2024-01-02T03:04:05.678Z");

function capture(verbosity = 0): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = new Logger({ verbosity, sink: (l) => lines.push(l), clock: () => FIXED });
  return { logger, lines };
}

Deno.test("Logger.info() writes one JSON object per line", () => {
  const { logger, lines } = capture();
  logger.info("started", { port: 6443, tls: true });
  assert.equal(lines.length, 1);
  assert.ok(!lines[0].includes("\n"));
  assert.deepEqual(JSON.parse(lines[0]), {
    ts: "2024-01-02T03:04:05.678Z",
    level: "info",
    msg: "started",
    port: 6443,
    tls: true,
  });
});

Deno.test("Logger.v() writes only at or below the verbosity", async (t) => {
  const cases: [number, number, boolean][] = [
    [0, 0, true],
    [0, 1, false],
    [2, 2, true],
    [2, 3, false],
    [4, 2, true],
  ];
  for (const [verbosity, level, written] of cases) {
    await t.step(`-v=${verbosity} v(${level})`, () => {
      const { logger, lines } = capture(verbosity);
      assert.equal(logger.v(level).enabled, written);
      logger.v(level).info("request", { code: 200 });
      assert.equal(lines.length, written ? 1 : 0);
      if (written && level > 0) assert.equal(JSON.parse(lines[0]).v, level);
    });
  }
});

Deno.test("Logger.warn() and error() set the level; errors become messages", () => {
  const { logger, lines } = capture();
  logger.warn("careful");
  logger.error("failed", { err: new Error("disk full") });
  assert.deepEqual(lines.map((l) => JSON.parse(l).level), ["warn", "error"]);
  assert.equal(JSON.parse(lines[1]).err, "disk full");
});

Deno.test("Logger.with() adds fields and shares verbosity", () => {
  const { logger, lines } = capture(1);
  const child = logger.with({ component: "storage" });
  child.v(1).info("compacted", { revision: 7 });
  logger.verbosity = 0;
  child.v(1).info("hidden");
  assert.equal(lines.length, 1);
  assert.deepEqual(JSON.parse(lines[0]).component, "storage");
});

Deno.test("Logger keeps reserved keys from being overwritten by fields", () => {
  const { logger, lines } = capture();
  logger.info("real", { msg: "fake", level: "error" });
  const o = JSON.parse(lines[0]);
  assert.equal(o.msg, "real");
  assert.equal(o.level, "info");
  assert.equal(o["field.msg"], "fake");
});

Deno.test("Logger never writes a token", async (t) => {
  const headers = new Headers({ authorization: `Bearer ${TOKEN}`, accept: "application/json" });
  const cases: [string, Record<string, unknown>][] = [
    ["token field", { token: TOKEN }],
    ["authorization field", { Authorization: `Bearer ${TOKEN}` }],
    ["password", { password: TOKEN }],
    ["key", { key: TOKEN }],
    ["client-key-data", { "client-key-data": TOKEN }],
    ["private_key", { private_key: TOKEN }],
    ["secret", { clientSecret: TOKEN }],
    ["cookie", { Cookie: `session=${TOKEN}` }],
    ["nested", { request: { headers: { "X-Api-Key": TOKEN } } }],
    ["in array", { users: [{ name: "admin", token: TOKEN }] }],
    ["Headers object", { headers }],
    ["Map", { m: new Map([["bearerToken", TOKEN]]) }],
    ["bearer in free text", { line: `Authorization: Bearer ${TOKEN}` }],
    ["basic in free text", { line: `Basic ${btoa("admin:" + TOKEN)}` }],
    ["query string", { url: `https://h/api?access_token=${TOKEN}&x=1` }],
    ["URL object", { url: new URL(`https://h/api?token=${TOKEN}`) }],
    ["URL password", { url: `https://admin:${TOKEN}@h/api` }],
    ["Secret object", {
      object: { kind: "Secret", data: { "a": btoa(TOKEN) }, stringData: { a: TOKEN } },
    }],
    ["error message", { err: new Error(`bad header Bearer ${TOKEN}`) }],
    ["jwt", { note: `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ${TOKEN}.sig_${TOKEN}` }],
    ["private key", {
      pem: `-----BEGIN RSA PRIVATE KEY-----\n${TOKEN}\n-----END RSA PRIVATE KEY-----`,
    }],
  ];
  for (const [name, fields] of cases) {
    await t.step(name, () => {
      const { logger, lines } = capture();
      logger.info("msg", fields);
      logger.with(fields).info("child");
      for (const line of lines) {
        assert.ok(!line.includes(TOKEN), line);
        assert.ok(!line.includes(btoa(TOKEN)), line);
        assert.ok(line.includes("[redacted]"), line);
      }
    });
  }
  await t.step("message text", () => {
    const { logger, lines } = capture();
    logger.info(`got Bearer ${TOKEN}`);
    assert.ok(!lines[0].includes(TOKEN));
  });
  await t.step("non-secret fields are kept", () => {
    const { logger, lines } = capture();
    logger.info("msg", { headers, name: "admin" });
    const o = JSON.parse(lines[0]);
    assert.equal(o.headers.accept, "application/json");
    assert.equal(o.name, "admin");
  });
});

Deno.test("Logger survives odd values and a failing sink", async (t) => {
  await t.step("cycles, bigint, undefined, NaN", () => {
    const { logger, lines } = capture();
    const a: Record<string, unknown> = { n: 1n, u: undefined, nan: NaN };
    a.self = a;
    logger.info("odd", { a });
    assert.deepEqual(JSON.parse(lines[0]).a, { n: "1", nan: "NaN", self: "[circular]" });
  });
  await t.step("sink that throws", () => {
    const logger = new Logger({
      sink: () => {
        throw new Error("EPIPE");
      },
    });
    logger.info("lost");
    assert.equal(logger.lastWriteError?.message, "EPIPE");
  });
});

Deno.test("parseVerbosity() accepts non-negative integers only", async (t) => {
  const cases: [string, number | RangeErrorConstructor][] = [
    ["0", 0],
    ["2", 2],
    [" 10 ", 10],
    ["-1", RangeError],
    ["1.5", RangeError],
    ["", RangeError],
    ["two", RangeError],
  ];
  for (const [input, want] of cases) {
    await t.step(JSON.stringify(input), () => {
      if (typeof want === "number") assert.equal(parseVerbosity(input), want);
      else assert.throws(() => parseVerbosity(input), want);
    });
  }
});
