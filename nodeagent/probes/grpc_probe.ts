/**
 * The gRPC probe, as the kubelet's `grpc.Prober`: calls `grpc.health.v1.Health/Check` over
 * plaintext HTTP/2 with the probe's `service`; `SERVING` is success, any other answer or error
 * is failure, worded as the kubelet words it.
 *
 * @module
 */
import { GrpcClient, GrpcError } from "../runtime/cri/grpc_client.ts";
import { joinHostPort } from "./dial_error.ts";
import type { ProbeOutcome } from "./probe_spec.ts";

const CHECK = "/grpc.health.v1.Health/Check";
const STATUS = ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"];

/** `HealthCheckRequest { string service = 1; }`. */
export function encodeHealthCheckRequest(service: string): Uint8Array {
  const bytes = new TextEncoder().encode(service);
  if (bytes.length === 0) return new Uint8Array(0);
  const len: number[] = [];
  let n = bytes.length;
  while (n > 0x7f) {
    len.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  len.push(n);
  return new Uint8Array([0x0a, ...len, ...bytes]);
}

/** The `status` (field 1, an enum) of a `HealthCheckResponse`; 0 when absent. */
export function decodeHealthCheckStatus(b: Uint8Array): number {
  let i = 0;
  const varint = () => {
    let v = 0, shift = 0;
    while (i < b.length) {
      const x = b[i++];
      v += (x & 0x7f) * 2 ** shift;
      if (!(x & 0x80)) break;
      shift += 7;
    }
    return v;
  };
  let status = 0;
  while (i < b.length) {
    const tag = varint();
    const wire = tag & 7;
    if (tag >>> 3 === 1 && wire === 0) status = varint();
    else if (wire === 0) varint();
    else if (wire === 2) i += varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else break;
  }
  return status;
}

/** Checks the health of `service` at `host:port`. */
export async function grpcProbe(
  host: string,
  port: number,
  service: string,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const client = new GrpcClient("", { host, port });
  const addr = joinHostPort(host, port);
  try {
    const answer = await client.call(CHECK, encodeHealthCheckRequest(service), { timeoutMs });
    const status = decodeHealthCheckStatus(answer);
    if (status === 1) return { result: "success", output: "service healthy" };
    return {
      result: "failure",
      output: `service unhealthy (responded with ${
        JSON.stringify(STATUS[status] ?? String(status))
      })`,
    };
  } catch (err) {
    const seconds = `${timeoutMs / 1000}s`;
    if (err instanceof GrpcError && err.code === 12) {
      return {
        result: "failure",
        output:
          `this server does not implement the grpc health protocol (grpc.health.v1.Health): ${err.message}`,
      };
    }
    if (err instanceof GrpcError && err.code === 4) {
      return {
        result: "failure",
        output: `timeout: health rpc did not complete within ${seconds}`,
      };
    }
    if (err instanceof GrpcError && err.code === 14) {
      return {
        result: "failure",
        output: `timeout: failed to connect service ${
          JSON.stringify(addr)
        } within ${seconds}: ${err.message}`,
      };
    }
    return {
      result: "failure",
      output: `error: health rpc probe failed: ${(err as Error).message}`,
    };
  } finally {
    await client.close().catch(() => {});
  }
}
