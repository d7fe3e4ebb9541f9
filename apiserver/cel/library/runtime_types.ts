/**
 * The CEL runtime value classes of the underlying library, re-exported so the rest of the
 * project never imports the library directly.
 *
 * @module
 */
export { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
export { Optional } from "@marcbachmann/cel-js";
