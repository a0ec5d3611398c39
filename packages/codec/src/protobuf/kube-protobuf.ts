// application/vnd.kubernetes.protobuf for every kind of the schema source (@listwatch/api's
// generated/schemas.ts, from upstream generated.proto): field numbers and types come from there,
// none is typed here. Go's gogo-generated marshallers are followed byte for byte: fields in
// number order, every non-pointer field written even when zero, pointers only when set, map
// entries sorted by key. A decoded message reads as encoding/json would write the Go struct:
// omitempty zeros left out, pointers kept (`replicas: 0`), zero non-pointer Times as null.
// The envelope is apimachinery runtime/serializer/protobuf/protobuf.go's: the `k8s\0` magic
// and a runtime.Unknown (typeMeta, raw = the object's message, contentEncoding, contentType).
// Watch streams (`;stream=watch`) carry metav1.WatchEvent messages, each the object's own
// enveloped bytes as a RawExtension (apiserver handlers/watch.go: the embedded encoder).
// Split by concern: kube-protobuf-plan.ts (the shape), -encode.ts, -decode.ts and -list.ts.

export {
  PROTOBUF_MAGIC,
  PROTOBUF_MEDIA_TYPE,
  PROTOBUF_WATCH_MEDIA_TYPE,
  protobufTypeOf,
} from './kube-protobuf-plan.js';
export {
  canEncodeProtobuf,
  encodeProtobuf,
  encodeProtobufMessage,
  encodeProtobufWatchEvent,
} from './kube-protobuf-encode.js';
export {
  decodeProtobuf,
  decodeProtobufMessage,
  decodeProtobufWatchEvent,
  protobufKindOf,
} from './kube-protobuf-decode.js';
export { encodeProtobufListItem, protobufListFrame } from './kube-protobuf-list.js';
