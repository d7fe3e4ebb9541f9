/** TypedError: a value that does not fit its schema (duplicate keys, missing key fields). */
import { type Path, pathToString } from "./path_element.ts";

/** An error found while walking a value with its schema. */
export class TypedError extends Error {
  /** Where, as a field path string (`.spec.containers`). */
  readonly path: string;
  constructor(path: Path, message: string) {
    super(path.length > 0 ? `${pathToString(path)}: ${message}` : message);
    this.name = "TypedError";
    this.path = pathToString(path);
  }
}
