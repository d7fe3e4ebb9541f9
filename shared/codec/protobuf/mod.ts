/**
 * The Kubernetes Protobuf wire codec for built-in kinds: the `k8s\0` envelope, JSON <-> Protobuf
 * conversion of every message, and the watch stream framing.
 *
 * @module
 */
export {
  decodeEnvelope,
  decodeObject,
  encodeObject,
  hasProtobufMagic,
  PROTOBUF_MAGIC,
  PROTOBUF_MEDIA_TYPE,
  type ProtobufEnvelope,
} from "./envelope.ts";
export { hasProtobuf, protobufMessageName } from "./has_protobuf.ts";
export { ProtobufError, type ProtobufErrorReason } from "./protobuf_error.ts";
export {
  decodeWatchEvent,
  DEFAULT_MAX_FRAME_BYTES,
  encodeWatchEvent,
  encodeWatchFrame,
  type WatchEventJson,
  WatchFrameDecoder,
  watchFrameDecoderStream,
} from "./watch_frame.ts";
export { decodeMessage } from "./decode_message.ts";
export { encodeMessage } from "./encode_message.ts";
