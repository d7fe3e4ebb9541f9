/**
 * The YAML decoder's worker: parses large YAML bodies off the request thread with the same
 * {@link parseYamlBody} the request thread uses for small ones, and answers each request by id
 * with the value or the StatusError's code and message.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import { parseYamlBody } from "./yaml_body.ts";

/** A request to the worker. */
export interface YamlWorkerRequest {
  id: number;
  text: string;
  findDuplicates: boolean;
}

/** The worker's answer. */
export type YamlWorkerResponse =
  | { id: number; ok: true; value: unknown; duplicates: string[] }
  | { id: number; ok: false; code: number; message: string };

/** Answers one request. */
export function answer(req: YamlWorkerRequest): YamlWorkerResponse {
  try {
    const { value, duplicates } = parseYamlBody(req.text, req.findDuplicates);
    return { id: req.id, ok: true, value, duplicates };
  } catch (err) {
    const status = err instanceof StatusError
      ? err
      : StatusError.badRequest(`error converting YAML to JSON: ${(err as Error).message}`);
    return { id: req.id, ok: false, code: status.code, message: status.status.message ?? "" };
  }
}

// deno-lint-ignore no-explicit-any
const scope = globalThis as any;
if (typeof scope.WorkerGlobalScope !== "undefined" && scope instanceof scope.WorkerGlobalScope) {
  scope.onmessage = (e: MessageEvent<YamlWorkerRequest>) => scope.postMessage(answer(e.data));
}
