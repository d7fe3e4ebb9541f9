/**
 * YamlDecoder: decodes YAML request bodies without holding the request thread. Parsing YAML
 * costs far more per byte than JSON (the `yaml` library tokenizes, builds a syntax tree and a
 * document, then converts it), and a body may be 3 MiB: that is seconds of work, during which
 * every other client would wait. Bodies up to `inlineLimitBytes` are parsed here at once;
 * larger ones go to one worker thread, started on first use, one at a time in arrival order.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import { parseYamlBody, type YamlBody } from "./yaml_body.ts";
import type { YamlWorkerRequest, YamlWorkerResponse } from "./yaml_worker.ts";

/** Bodies up to this size are parsed on the request thread. */
export const YAML_INLINE_LIMIT_BYTES = 64 * 1024;

/** Parses YAML bodies, large ones on a worker (see the module comment). */
export class YamlDecoder {
  readonly #inlineLimit: number;
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, (r: YamlWorkerResponse) => void>();

  constructor(opts: { inlineLimitBytes?: number } = {}) {
    this.#inlineLimit = opts.inlineLimitBytes ?? YAML_INLINE_LIMIT_BYTES;
  }

  /** Parses one YAML document; rejects with the StatusError (400) the text deserves. */
  async parse(text: string, findDuplicates: boolean): Promise<YamlBody> {
    if (text.length <= this.#inlineLimit) return parseYamlBody(text, findDuplicates);
    const id = this.#nextId++;
    const answered = new Promise<YamlWorkerResponse>((resolve) => this.#pending.set(id, resolve));
    const req: YamlWorkerRequest = { id, text, findDuplicates };
    this.#started().postMessage(req);
    const r = await answered;
    if (!r.ok) {
      throw r.code === 400
        ? StatusError.badRequest(r.message)
        : StatusError.serviceUnavailable(r.message, 1);
    }
    return { value: r.value, duplicates: r.duplicates };
  }

  /** Stops the worker; parses still waiting fail with 503. */
  close(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#failAll("the YAML decoder is stopped");
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./yaml_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (e: MessageEvent<YamlWorkerResponse>) => {
      const resolve = this.#pending.get(e.data.id);
      this.#pending.delete(e.data.id);
      resolve?.(e.data);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      this.#worker?.terminate();
      this.#worker = undefined;
      this.#failAll(`the YAML decoder failed: ${e.message}`);
    };
    this.#worker = worker;
    return worker;
  }

  #failAll(message: string): void {
    for (const [id, resolve] of this.#pending) resolve({ id, ok: false, code: 503, message });
    this.#pending.clear();
  }
}
