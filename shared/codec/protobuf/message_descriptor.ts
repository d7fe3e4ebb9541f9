/**
 * The descriptor format of the Protobuf codec's message tables.
 *
 * A message is a list of fields in declaration order (the order Kubernetes' Go structs, and so
 * their JSON, use). A field is `[number, jsonName, type, flags?]`:
 *
 * - `type` is a scalar (`string`, `bool`, `int32`, `int64`, `double`, `bytes`), a message name such as
 *   `core.v1.PodSpec`, `[]<type>` for a repeated field, or `map:<type>` for `map<string, type>`.
 * - `flags` is a bit set of {@link KEEP_ZERO} and {@link INLINE}.
 *
 * @module
 */

/**
 * Flag: a scalar whose zero value is kept when decoded. Set for Go pointer fields (`*string`,
 * `*bool`, `*int32`: present means set, even to zero) and for value fields whose JSON tag has no
 * `omitempty` (Go always renders them). Scalars without it are value fields with `omitempty`:
 * Go's generated code always writes them, and Go's JSON drops them when zero, so the decoder does.
 */
export const KEEP_ZERO = 1;

/**
 * Flag: an embedded Go struct whose JSON is inlined into the parent object (for example
 * `Volume.volumeSource` or `ConfigMapVolumeSource.localObjectReference`), while Protobuf keeps it
 * as a nested message.
 */
export const INLINE = 2;

/** One field descriptor: `[number, jsonName, type, flags?]`. */
export type FieldTuple = readonly [number, string, string, number?];

/** Message descriptors keyed by qualified message name (for example `core.v1.Pod`). */
export type MessageTable = Readonly<Record<string, readonly FieldTuple[]>>;
