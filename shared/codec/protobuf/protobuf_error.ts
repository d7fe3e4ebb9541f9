/**
 * The typed error of the Protobuf codec.
 *
 * @module
 */

/**
 * Why a Protobuf body could not be encoded or decoded:
 * - `BadPrefix`: the body does not start with the `k8s\0` magic (callers answer 400; a client
 *   rejects such a response);
 * - `UnknownKind`: the kind has no Protobuf definition here (callers answer 415 for a request
 *   body, 406 when Protobuf was the only acceptable response type);
 * - `Malformed`: the bytes are not a valid message (400);
 * - `InvalidValue`: a JSON value does not fit its field's type (500 when encoding our own objects,
 *   400 when it came from a client).
 */
export type ProtobufErrorReason = "BadPrefix" | "UnknownKind" | "Malformed" | "InvalidValue";

/** An encode or decode failure of the Protobuf codec. */
export class ProtobufError extends Error {
  /** The failure class; see {@link ProtobufErrorReason}. */
  readonly reason: ProtobufErrorReason;

  /** Creates an error of class `reason` with a human readable `message`. */
  constructor(reason: ProtobufErrorReason, message: string) {
    super(message);
    this.name = "ProtobufError";
    this.reason = reason;
  }
}
