/**
 * An {@link ExecIO} over a WebSocket channel protocol: stdin from channel 0, sizes from
 * channel 4, v5's close signal (`[255, 0]`) ends stdin; stdout and stderr to channels 1 and 2;
 * the outcome on channel 3 (a Status from v4 on, else its message when it failed), then the
 * WebSocket closes.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import {
  CHANNEL,
  type ChannelConn,
  decodeChannelMessage,
  statusOnErrorChannel,
} from "./channel_protocol.ts";
import { type ExecIO, parseTerminalSize } from "./exec_io.ts";

/** The session transport of a channel-protocol WebSocket. */
export function channelExecIO(conn: ChannelConn): ExecIO {
  return {
    start(input) {
      conn.ws.start({
        message(data, binary) {
          const m = decodeChannelMessage(conn.protocol, data, binary);
          if (!m) return;
          if (m.channel === CHANNEL.stdin) {
            if (m.data.length) input.stdin(m.data.slice());
          } else if (m.channel === CHANNEL.resize) {
            const size = parseTerminalSize(Buffer.from(m.data).toString());
            if (size) input.resize(size.width, size.height);
          } else if (m.channel === CHANNEL.close && m.data[0] === CHANNEL.stdin) {
            input.stdinEnd();
          }
        },
        closed: () => input.gone(),
      });
    },
    stdout: (data) => conn.send(CHANNEL.stdout, data),
    stderr: (data) => conn.send(CHANNEL.stderr, data),
    async finish(status) {
      if (statusOnErrorChannel(conn.protocol)) {
        await conn.send(CHANNEL.error, JSON.stringify(status));
      } else if (status.status !== "Success") {
        await conn.send(CHANNEL.error, String(status.message ?? ""));
      }
      conn.ws.close();
    },
  };
}
