import assert from "node:assert/strict";
import { formatFlagHelp } from "../../../shared/flags/flag_help.ts";

Deno.test("formatFlagHelp() aligns flags and indents multi-line help", () => {
  assert.equal(
    formatFlagHelp("Usage: x [flags]", { v: "verbosity", "feature-gates": "Gates:\nA=true|false" }),
    [
      "Usage: x [flags]",
      "",
      "  -v                         verbosity",
      "  --feature-gates            Gates:",
      "                               A=true|false",
    ].join("\n"),
  );
});
