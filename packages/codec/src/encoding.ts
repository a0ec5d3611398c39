import { PROTOBUF_MEDIA_TYPE, PROTOBUF_WATCH_MEDIA_TYPE } from './protobuf/kube-protobuf.js';

/**
 * The wire encodings served: JSON, CBOR (KEP-4222) and, for the kinds of the schema source,
 * Kubernetes protobuf (application/vnd.kubernetes.protobuf).
 */
export type Encoding = 'json' | 'cbor' | 'protobuf';

export const JSON_MEDIA_TYPE = 'application/json';
export const CBOR_MEDIA_TYPE = 'application/cbor';
/** YAML: accepted in request bodies (create, update), never served. */
export const YAML_MEDIA_TYPE = 'application/yaml';
/** RFC 8742 CBOR sequence: the content type of a CBOR watch (KEP-4222). */
export const CBOR_SEQUENCE_MEDIA_TYPE = 'application/cbor-seq';
export { PROTOBUF_MEDIA_TYPE, PROTOBUF_WATCH_MEDIA_TYPE };

/**
 * The media types a request body may be in, in kube-apiserver's order (codec_factory.go's
 * serializers: JSON, YAML, protobuf, then CBOR): what a 415 lists.
 */
export const REQUEST_BODY_MEDIA_TYPES: readonly string[] = [
  JSON_MEDIA_TYPE,
  YAML_MEDIA_TYPE,
  PROTOBUF_MEDIA_TYPE,
  CBOR_MEDIA_TYPE,
];

export function mediaTypeOf(encoding: Encoding): string {
  if (encoding === 'protobuf') return PROTOBUF_MEDIA_TYPE;
  return encoding === 'json' ? JSON_MEDIA_TYPE : CBOR_MEDIA_TYPE;
}

/** The Content-Type of a watch response (apiserver handlers/watch.go serveWatchHandler). */
export function watchMediaTypeOf(encoding: Encoding): string {
  if (encoding === 'protobuf') return PROTOBUF_WATCH_MEDIA_TYPE;
  return encoding === 'json' ? JSON_MEDIA_TYPE : CBOR_SEQUENCE_MEDIA_TYPE;
}

/**
 * The encoding of a response from its Content-Type: protobuf, CBOR (a CBOR sequence too), or
 * JSON for anything else (an absent Content-Type included), as clients read a server's answer
 * whatever they asked for.
 */
export function responseEncodingOf(contentType: string | readonly string[] | undefined): Encoding {
  const type = String(contentType ?? '').toLowerCase();
  if (type.includes('vnd.kubernetes.protobuf') && !type.includes('+json')) return 'protobuf';
  return type.includes('cbor') ? 'cbor' : 'json';
}

/**
 * The Accept header of a client asking for `encoding`, JSON as the fallback: client-go's
 * ContentConfig `application/vnd.kubernetes.protobuf,application/json` (kinds without protobuf,
 * such as custom resources, are answered in JSON).
 */
export function acceptFor(encoding: Encoding, watch = false): string {
  if (encoding === 'protobuf') return `${PROTOBUF_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}`;
  if (encoding === 'cbor') {
    // kube-apiserver answers a CBOR watch as application/cbor-seq.
    return watch
      ? `${CBOR_SEQUENCE_MEDIA_TYPE}, ${CBOR_MEDIA_TYPE}`
      : `${CBOR_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}`;
  }
  return JSON_MEDIA_TYPE;
}
