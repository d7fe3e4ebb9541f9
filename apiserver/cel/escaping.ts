/**
 * Kubernetes' escaping of schema property names into CEL identifiers: `__underscores__` for
 * `__`, `__dot__`, `__dash__`, `__slash__`, and `__<keyword>__` for a reserved word. Names not
 * matching `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` are unreachable.
 *
 * @module
 */

const RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

const REACHABLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

/** Returns the CEL identifier for a property name, or undefined when it is unreachable. */
export function escapePropertyName(name: string): string | undefined {
  if (!REACHABLE.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    if (c === "_" && name[i + 1] === "_") {
      out += "__underscores__";
      i++;
    } else if (c === ".") out += "__dot__";
    else if (c === "-") out += "__dash__";
    else if (c === "/") out += "__slash__";
    else out += c;
  }
  return out;
}

/** Inverts {@link escapePropertyName}. */
export function unescapePropertyName(ident: string): string {
  const kw = /^__([a-z]+)__$/.exec(ident);
  if (kw && RESERVED.has(kw[1])) return kw[1];
  return ident.replace(
    /__(underscores|dot|dash|slash)__/g,
    (_, w: string) => w === "underscores" ? "__" : w === "dot" ? "." : w === "dash" ? "-" : "/",
  );
}
