/**
 * parseYamlBody: a YAML request body as the API server reads it — exactly one document,
 * nesting bounded before parsing ({@link checkYamlTextDepth}), aliases bounded, duplicated
 * keys reported as strict decoding reports them. It runs on the request thread for small bodies
 * and on a worker for large ones ({@link YamlDecoder}); both run this same function.
 *
 * @module
 */
import {
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  type YAMLError,
} from "yaml";
import { StatusError } from "../../shared/errors/status_error.ts";
import { checkYamlTextDepth } from "./body_depth.ts";

/** A decoded YAML body and its duplicated keys (`line 3: key "a" already set in map`). */
export interface YamlBody {
  value: unknown;
  duplicates: string[];
}

/** Parses one YAML document; a StatusError (400) when it is not one, or too deep. */
export function parseYamlBody(text: string, findDuplicates: boolean): YamlBody {
  checkYamlTextDepth(text);
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { uniqueKeys: false, lineCounter: lines });
  if (!Array.isArray(docs)) throw StatusError.badRequest("the body of the request is empty");
  const real = docs.filter((d) => d.contents !== null);
  if (real.length !== 1) {
    throw StatusError.badRequest(
      real.length === 0
        ? "the body of the request is empty"
        : "the body of the request must hold exactly one YAML document",
    );
  }
  const doc = real[0];
  if (doc.errors.length > 0) {
    throw StatusError.badRequest(`error converting YAML to JSON: ${goYamlError(doc.errors[0])}`);
  }
  const duplicates: string[] = [];
  if (findDuplicates) yamlDuplicates(doc.contents, lines, duplicates);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw StatusError.badRequest(`error converting YAML to JSON: ${(err as Error).message}`);
  }
  return { value, duplicates };
}

/**
 * A syntax error as go-yaml (sigs.k8s.io/yaml, kube's YAML decoder) words it, `yaml: line N:
 * <problem>`, for the problems both parsers name; others keep the parser's own first line.
 */
export function goYamlError(err: YAMLError): string {
  const line = err.linePos?.[0]?.line ?? 1;
  const first = err.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  let problem = first;
  if (err.code === "BLOCK_AS_IMPLICIT_KEY") {
    problem = "mapping values are not allowed in this context";
  } else if (err.code === "TAB_AS_INDENT" || err.code === "BAD_SCALAR_START") {
    problem = "found character that cannot start any token";
  } else if (/^Missing closing .?quote/.test(first)) {
    problem = "found unexpected end of stream";
  } else if (/^Flow map must end/.test(first)) {
    problem = "did not find expected ',' or '}'";
  } else if (/^Flow sequence .*end with a \]/.test(first)) {
    problem = "did not find expected ',' or ']'";
  } else if (/^Implicit map keys need to be followed by map values/.test(first)) {
    problem = "could not find expected ':'";
  }
  return `yaml: line ${line}: ${problem}`;
}

function yamlDuplicates(node: unknown, lines: LineCounter, out: string[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (seen.has(key)) {
        const offset = (pair.key as Node | null)?.range?.[0] ?? 0;
        out.push(
          `line ${lines.linePos(offset).line}: key ${JSON.stringify(key)} already set in map`,
        );
      } else seen.add(key);
      yamlDuplicates(pair.value, lines, out);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) yamlDuplicates(item, lines, out);
  }
}
