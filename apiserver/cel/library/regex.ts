/**
 * Kubernetes' CEL regex library (`find`, `findAll`) on the linear-time RE2 engine (`re2js`). The
 * standard `matches` is routed to the same engine by the program (see `program.ts`).
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import { celError } from "../errors.ts";
import { compileRe2, Re2SyntaxError } from "./re2.ts";
import type { Re2 } from "./re2.ts";

const sync = { async: false };

/** Compiles a pattern for evaluation, turning syntax errors into CEL runtime errors. */
export function regexForEval(pattern: string): Re2 {
  try {
    return compileRe2(pattern);
  } catch (e) {
    if (e instanceof Re2SyntaxError) throw celError("invalid_argument", e.message);
    throw e;
  }
}

/** `matches` with RE2 semantics. */
export function regexMatches(s: string, pattern: string): boolean {
  return regexForEval(pattern).test(s);
}

/** Registers `find` and `findAll` on `env`. */
export function registerRegexLibrary(env: Environment): void {
  env.registerFunction("matches(string, string): bool", regexMatches, sync);
  env.registerFunction(
    "string.find(string): string",
    (s: string, p: string) => regexForEval(p).find(s),
    sync,
  );
  env.registerFunction(
    "string.findAll(string): list<string>",
    (s: string, p: string) => regexForEval(p).findAll(s),
    sync,
  );
  env.registerFunction(
    "string.findAll(string, int): list<string>",
    (s: string, p: string, n: bigint) => regexForEval(p).findAll(s, Number(n)),
    sync,
  );
}
