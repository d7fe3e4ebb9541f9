/**
 * One request to the API server with a deadline, on top of the shared {@link RestClient}: the
 * node agent must never hang on a server that stopped answering, so every call is bounded.
 *
 * @module
 */
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Query } from "../../shared/client/rest_client.ts";
import { resourcePath, type ResourceRef } from "../../shared/client/resource_path.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { statusErrorFromResponse } from "../../shared/errors/status_error_from_response.ts";

/** Options of {@link apiCall}. */
export interface ApiCallOptions {
  /** JSON body. */
  body?: unknown;
  /** Query parameters. */
  query?: Query;
  /** Deadline in milliseconds (default 10 s, the kubelet's lease request timeout). */
  timeoutMs?: number;
  /** Aborts the call early. */
  signal?: AbortSignal;
}

/**
 * Sends `method` to `ref` and returns the decoded JSON answer.
 *
 * @throws {StatusError} for a non-2xx answer (its Status, or one built from the code).
 * @throws {Error} when the server cannot be reached or the deadline passes.
 */
export async function apiCall<T>(
  client: RestClient,
  method: string,
  ref: ResourceRef,
  opts: ApiCallOptions = {},
): Promise<T> {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 10_000);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const res = await client.request(method, resourcePath(ref), {
    body: opts.body,
    query: opts.query,
    signal,
  });
  if (res.status < 200 || res.status > 299) throw statusErrorFromResponse(res, method);
  try {
    return JSON.parse(res.body) as T;
  } catch {
    throw StatusError.internal(`invalid JSON in the response to ${method} ${resourcePath(ref)}`);
  }
}

/** Whether an error is a StatusError with the given code. */
export function isStatus(err: unknown, code: number): boolean {
  return err instanceof StatusError && err.code === code;
}
