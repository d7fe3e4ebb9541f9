/**
 * The TCP probe: success when a connection to the port opens within the timeout, as the
 * kubelet's `tcp.Prober`.
 *
 * @module
 */
import { dialError } from "./dial_error.ts";
import type { ProbeOutcome } from "./probe_spec.ts";

/** Opens and closes a TCP connection to `host:port`. */
export async function tcpProbe(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), timeoutMs));
  const dial = Deno.connect({ hostname: host, port });
  try {
    const conn = await Promise.race([dial, timedOut]);
    if (conn === "timeout") {
      dial.then((c) => c.close(), () => {});
      return { result: "failure", output: dialError(host, port, { code: "ETIMEDOUT" }) };
    }
    conn.close();
    return { result: "success", output: "" };
  } catch (err) {
    return { result: "failure", output: dialError(host, port, err) };
  } finally {
    clearTimeout(timer);
  }
}
