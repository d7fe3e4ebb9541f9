/**
 * `metadata.generateName`: the prefix plus Kubernetes' five random characters.
 *
 * @module
 */

/** The characters of the random suffix: no vowels, and no digits that look like letters. */
export const GENERATE_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
/** Length of the random suffix. */
export const GENERATE_NAME_RANDOM_LENGTH = 5;
/** Longest prefix kept: the 63-character name limit minus the suffix. */
export const MAX_GENERATED_NAME_PREFIX_LENGTH = 63 - GENERATE_NAME_RANDOM_LENGTH;

/** A source of random bytes; the default is the platform CSPRNG. */
export type RandomBytes = (n: number) => Uint8Array;

const systemRandom: RandomBytes = (n) => crypto.getRandomValues(new Uint8Array(n));

/**
 * Returns `prefix` (cut to 58 bytes, as Kubernetes cuts it) followed by five characters drawn
 * uniformly from {@link GENERATE_NAME_ALPHABET}.
 */
export function generateName(prefix: string, random: RandomBytes = systemRandom): string {
  let base = prefix;
  const bytes = new TextEncoder().encode(base);
  if (bytes.length > MAX_GENERATED_NAME_PREFIX_LENGTH) {
    base = new TextDecoder().decode(bytes.subarray(0, MAX_GENERATED_NAME_PREFIX_LENGTH));
  }
  return base + randomSuffix(random);
}

function randomSuffix(random: RandomBytes): string {
  let out = "";
  while (out.length < GENERATE_NAME_RANDOM_LENGTH) {
    for (const b of random(16)) {
      // Five bits index 32 slots; the 27 that exist are used, the rest rejected (no bias).
      const idx = b & 0x1f;
      if (idx < GENERATE_NAME_ALPHABET.length) out += GENERATE_NAME_ALPHABET[idx];
      if (out.length === GENERATE_NAME_RANDOM_LENGTH) break;
    }
  }
  return out;
}
