/**
 * Helpers for the Prometheus text exposition format 0.0.4: numbers as Go's Prometheus client
 * writes them, and escaping of HELP text and label values.
 *
 * @module
 */

/** The Content-Type of the text exposition format. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * Formats a sample value as client_golang does (Go `strconv.FormatFloat(v, 'g', -1, 64)`):
 * shortest round-trip digits, exponent form when the exponent is below -4 or at least 6
 * (`1e+06`, `1.5e-05`), and `+Inf`, `-Inf`, `NaN`.
 */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  if (Number.isInteger(v) && v > -1e6 && v < 1e6) return String(v);
  const [mantissa, expText] = v.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? "-" : "+"}${abs < 10 ? "0" : ""}${abs}`;
  }
  return String(v);
}

/** Escapes HELP text: backslash and newline. */
export function escapeHelp(text: string): string {
  if (!/[\\\n]/.test(text)) return text;
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** Escapes a label value: backslash, double quote and newline. */
export function escapeLabelValue(text: string): string {
  if (!/[\\"\n]/.test(text)) return text;
  return text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/**
 * Renders the inside of a label set, `a="1",b="2"`, from label pairs already in output order;
 * empty for none. Wrap it with {@link withLabels}.
 */
export function formatLabelPairs(pairs: readonly (readonly [string, string])[]): string {
  let out = "";
  for (const [k, v] of pairs) out += `${out ? "," : ""}${k}="${escapeLabelValue(v)}"`;
  return out;
}

/**
 * Renders `{<inner>,<extra>}` from a label set's inside (see {@link formatLabelPairs}) and an
 * optional further pair already rendered (`le="0.5"`); empty when both are empty.
 */
export function withLabels(inner: string, extra = ""): string {
  if (!inner) return extra ? `{${extra}}` : "";
  return extra ? `{${inner},${extra}}` : `{${inner}}`;
}
