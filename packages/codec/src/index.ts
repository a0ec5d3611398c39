export * from './codec-error.js';
export * from './encoding.js';
export * from './json.js';
export * from './json-duplicates.js';
export * from './object-codec.js';
export {
  encodeCbor,
  encodeCborItem,
  encodeCborWatchEvent,
  decodeCbor,
  SELF_DESCRIBED_CBOR_PREFIX,
} from './cbor.js';
export { DEFAULT_MAX_CBOR_DEPTH } from './cbor-scanner.js';
export * from './watch-event.js';
export * from './negotiation.js';
export * from './partial-object-metadata.js';
export * from './table.js';
export * from './encoded-event.js';
export * from './list-stream.js';
export * from './json-list-decoder.js';
export * from './framing/format.js';
export {
  canEncodeProtobuf,
  decodeProtobuf,
  decodeProtobufMessage,
  decodeProtobufWatchEvent,
  encodeProtobuf,
  encodeProtobufMessage,
  encodeProtobufWatchEvent,
  protobufKindOf,
  protobufTypeOf,
  PROTOBUF_MAGIC,
} from './protobuf/kube-protobuf.js';
export { encodeOpenApiV2Protobuf } from './protobuf/openapi-v2.js';
export type { StreamDecoder, StreamDecoderOptions, ValueMapper } from './framing/frame-decoder.js';
export { NewlineJsonDecoder, encodeNewlineFrame } from './framing/newline.js';
export { ConcatenatedJsonDecoder } from './framing/concatenated.js';
export { CborSequenceDecoder } from './framing/cbor-sequence.js';
export {
  LengthPrefixedDecoder,
  encodeLengthPrefixed,
  encodeLengthPrefixedText,
} from './framing/length-prefixed.js';
export * from './framing/decoder.js';
export * from './framing/encoder.js';
export * from './framing/websocket.js';
