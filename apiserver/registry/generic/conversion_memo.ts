/**
 * Shares asynchronous conversions of the same object state between callers: every watcher of a
 * webhook-converted version receives the same events, and each event's object (one uid at one
 * resourceVersion) is converted once, by the first watcher to ask, while the others wait for
 * that result (kube's watch cache likewise converts an event once per version and shares it).
 * Bounded: the oldest entries are forgotten first; failures are not kept.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";

/** How many converted objects are remembered. */
const MAX_ENTRIES = 4096;

/** Memoised batch conversions keyed by uid and resourceVersion. */
export class ConversionMemo {
  readonly #entries = new Map<string, Promise<KubeObject>>();
  readonly #convert: (objs: KubeObject[]) => Promise<KubeObject[]>;

  /** `convert` converts a batch, in order. */
  constructor(convert: (objs: KubeObject[]) => Promise<KubeObject[]>) {
    this.#convert = convert;
  }

  /**
   * `objs` converted (each answer a copy of its own); only those not known go to `convert`.
   * `tags` tell apart states sharing a uid and resourceVersion (a watch event's DELETED
   * previous state beside the MODIFIED new one).
   */
  async convert(objs: KubeObject[], tags: readonly string[] = []): Promise<KubeObject[]> {
    const keys = objs.map((o, i) => keyOf(o, tags[i] ?? ""));
    const found = keys.map((k) => (k === undefined ? undefined : this.#entries.get(k)));
    const missing = objs.flatMap((_, i) => (found[i] ? [] : [i]));
    const answers: (Promise<KubeObject> | undefined)[] = [...found];
    if (missing.length > 0) {
      const batch = this.#convert(missing.map((i) => objs[i]));
      missing.forEach((i, j) => {
        const one = batch.then((out) => out[j]);
        answers[i] = one;
        const key = keys[i];
        if (key === undefined) return;
        this.#remember(key, one);
        one.catch(() => {
          if (this.#entries.get(key) === one) this.#entries.delete(key);
        });
      });
    }
    const out = await Promise.all(answers as Promise<KubeObject>[]);
    return out.map((o) => structuredClone(o));
  }

  #remember(key: string, value: Promise<KubeObject>): void {
    this.#entries.set(key, value);
    if (this.#entries.size <= MAX_ENTRIES) return;
    const oldest = this.#entries.keys().next().value;
    if (oldest !== undefined) this.#entries.delete(oldest);
  }
}

function keyOf(obj: KubeObject, tag: string): string | undefined {
  const { uid, resourceVersion } = obj.metadata ?? {};
  return uid && resourceVersion ? `${uid}/${resourceVersion}/${tag}` : undefined;
}
