/**
 * formatFlagHelp: the `--help` text of an executable, one flag per entry, multi-line help
 * (such as the feature gate list) indented under its flag.
 *
 * @module
 */

/**
 * Renders `usage`, a blank line, then `  --flag  help` per entry (single-letter flags get one
 * dash); continuation lines of a help text are indented to the help column.
 */
export function formatFlagHelp(usage: string, flags: Readonly<Record<string, string>>): string {
  const width = 24;
  const lines = [usage, ""];
  for (const [flag, help] of Object.entries(flags)) {
    const name = `${flag.length === 1 ? "-" : "--"}${flag}`.padEnd(width + 2);
    const [first, ...rest] = help.split("\n");
    lines.push(`  ${name} ${first}`);
    for (const line of rest) lines.push(`  ${"".padEnd(width + 2)}   ${line}`);
  }
  return lines.join("\n");
}
