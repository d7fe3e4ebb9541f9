/**
 * Field paths as apimachinery's `field.Path` renders them (`a.b[key][0]`), so the errors of
 * the schema engine name fields exactly as Kubernetes does.
 *
 * @module
 */

/** `path.name` (or `name` at the root). */
export function childPath(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

/** `path[key]` (map keys are not quoted, as in Kubernetes). */
export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

/** `path[i]`. */
export function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** What an empty root path renders as (`field.Path` nil: `<nil>`). */
export function rootOr(path: string): string {
  return path === "" ? "<nil>" : path;
}
