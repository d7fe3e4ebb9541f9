import assert from "node:assert/strict";
import {
  decodeChannelMessage,
  encodeChannelMessage,
  negotiateChannelProtocol,
} from "../../../nodeagent/streaming/channel_protocol.ts";
import { exitStatus, parseExecRequest } from "../../../nodeagent/streaming/exec_session.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { checkWebSocketRequest } from "../../../nodeagent/streaming/websocket_upgrade.ts";

Deno.test("negotiateChannelProtocol() prefers v5, then v4, among what the client offers", () => {
  assert.equal(
    negotiateChannelProtocol("v4.channel.k8s.io, v5.channel.k8s.io"),
    "v5.channel.k8s.io",
  );
  assert.equal(negotiateChannelProtocol("v4.channel.k8s.io"), "v4.channel.k8s.io");
  assert.equal(negotiateChannelProtocol("base64.channel.k8s.io"), "base64.channel.k8s.io");
  assert.equal(negotiateChannelProtocol("v9.channel.k8s.io"), undefined);
});

Deno.test("encodeChannelMessage() prefixes the channel as a byte, or a digit before base64", () => {
  const bin = encodeChannelMessage("v5.channel.k8s.io", 1, new TextEncoder().encode("hi"));
  assert.deepEqual([...bin.data as Uint8Array], [1, 0x68, 0x69]);
  assert.ok(bin.binary);
  const text = encodeChannelMessage("base64.channel.k8s.io", 2, new TextEncoder().encode("hi"));
  assert.equal(text.data, "2aGk=");
  assert.ok(!text.binary);
  const back = decodeChannelMessage(
    "base64.channel.k8s.io",
    new TextEncoder().encode("0aGk="),
    false,
  );
  assert.equal(back?.channel, 0);
  assert.equal(new TextDecoder().decode(back?.data), "hi");
  assert.equal(decodeChannelMessage("v4.channel.k8s.io", new Uint8Array(0), true), undefined);
});

Deno.test("exitStatus() is kube's NonZeroExitCode Status with the ExitCode cause", () => {
  assert.deepEqual(exitStatus(["true"], 0), { metadata: {}, status: "Success" });
  const failed = exitStatus(["sh", "-c", "exit 3"], 3);
  assert.equal(failed.reason, "NonZeroExitCode");
  assert.deepEqual(failed.details, { causes: [{ reason: "ExitCode", message: "3" }] });
  assert.match(String(failed.message), /^command terminated with non-zero exit code: /);
});

Deno.test("parseExecRequest() reads the kubelet's query and refuses requests without a command or stream", () => {
  const r = parseExecRequest(new URLSearchParams("command=ls&command=-l&output=1&tty=1&error=1"));
  assert.deepEqual(r, {
    command: ["ls", "-l"],
    stdin: false,
    stdout: true,
    stderr: false,
    tty: true,
  });
  assert.throws(() => parseExecRequest(new URLSearchParams("output=1")), StatusError);
  assert.throws(() => parseExecRequest(new URLSearchParams("command=ls")), StatusError);
});

Deno.test("checkWebSocketRequest() refuses what is not a WebSocket handshake with a clear 400", () => {
  const ok = {
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    "sec-websocket-version": "13",
    "sec-websocket-protocol": "v4.channel.k8s.io",
  };
  const check = (headers: Record<string, string>, method = "GET") =>
    checkWebSocketRequest(
      new Request("https://x/exec", { method, headers }),
      negotiateChannelProtocol,
      "channel.k8s.io",
    );
  assert.deepEqual(check(ok), { key: ok["sec-websocket-key"], protocol: "v4.channel.k8s.io" });
  const refused: [Record<string, string>, RegExp, string?][] = [
    [{ ...ok, upgrade: "h2c" }, /Upgrade request required/],
    [{ ...ok, "sec-websocket-key": "short" }, /Sec-WebSocket-Key/],
    [{ ...ok, "sec-websocket-version": "8" }, /Sec-WebSocket-Version/],
    [{ ...ok, "sec-websocket-protocol": "v9.channel.k8s.io" }, /subprotocols is supported/],
    [ok, /must be a GET/, "POST"],
  ];
  for (const [headers, message, method] of refused) {
    assert.throws(
      () => check(headers, method),
      (e) => e instanceof StatusError && e.code === 400 && message.test(e.message),
    );
  }
});
