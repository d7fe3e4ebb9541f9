/**
 * The HTTP probe, as the kubelet's `http.Prober`: a GET with `User-Agent: kube-probe/1.32` and
 * `Accept: *\/*` (unless the probe sets them), HTTPS without verifying the certificate, success
 * for a status from 200 to 399, failure otherwise or when the server cannot be reached in time.
 *
 * @module
 */
import * as http from "node:http";
import * as https from "node:https";
import { dialError, joinHostPort } from "./dial_error.ts";
import type { HttpGetAction, ProbeOutcome } from "./probe_spec.ts";

/** How much of the body is read (the kubelet's limit, 10 KiB). */
const MAX_BODY = 10 * 1024;

/** The URL a probe requests. */
export function probeUrl(action: HttpGetAction, host: string, port: number): string {
  const scheme = (action.scheme ?? "HTTP").toLowerCase();
  let path = action.path ?? "/";
  if (!path.startsWith("/")) path = `/${path}`;
  return `${scheme}://${joinHostPort(host, port)}${path}`;
}

/** Request headers: the probe's own, then the kubelet's defaults where it set none. */
function headersOf(action: HttpGetAction): Record<string, string[]> {
  const h: Record<string, string[]> = {};
  for (const { name, value } of action.httpHeaders ?? []) {
    const key = name.toLowerCase();
    (h[key] ??= []).push(value);
  }
  h["user-agent"] ??= ["kube-probe/1.32"];
  h["accept"] ??= ["*/*"];
  return h;
}

/** Requests the probe's URL; resolves to its outcome, never rejects. */
export function httpProbe(
  action: HttpGetAction,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const url = probeUrl(action, host, port);
  const headers = headersOf(action);
  const hostHeader = headers["host"]?.[0];
  delete headers["host"];
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const lib = url.startsWith("https:") ? https : http;
    const req = lib.request(url, {
      method: "GET",
      headers: { ...headers, ...(hostHeader ? { host: hostHeader } : {}) },
      ...(lib === https ? { rejectUnauthorized: false } : {}),
    }, (res) => {
      const code = res.statusCode ?? 0;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < MAX_BODY) body += chunk.slice(0, MAX_BODY - body.length);
      });
      const judge = () => {
        if (code >= 200 && code < 400) done({ result: "success", output: body });
        else done({ result: "failure", output: `HTTP probe failed with statuscode: ${code}` });
      };
      res.on("end", judge);
      res.on("error", judge);
    });
    const timer = setTimeout(() => {
      done({
        result: "failure",
        output: `Get ${
          JSON.stringify(url)
        }: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
      });
      req.destroy();
    }, timeoutMs);
    req.on(
      "error",
      (err) =>
        done({
          result: "failure",
          output: `Get ${JSON.stringify(url)}: ${dialError(host, port, err)}`,
        }),
    );
    req.end();
  });
}
