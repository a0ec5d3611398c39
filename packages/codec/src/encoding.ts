/** The two wire encodings served: JSON and CBOR (KEP-4222). Protobuf is not served. */
export type Encoding = 'json' | 'cbor';

export const JSON_MEDIA_TYPE = 'application/json';
export const CBOR_MEDIA_TYPE = 'application/cbor';
/** RFC 8742 CBOR sequence: the content type of a CBOR watch (KEP-4222). */
export const CBOR_SEQUENCE_MEDIA_TYPE = 'application/cbor-seq';

export function mediaTypeOf(encoding: Encoding): string {
  return encoding === 'json' ? JSON_MEDIA_TYPE : CBOR_MEDIA_TYPE;
}

/** The Content-Type of a watch response (apiserver handlers/watch.go serveWatchHandler). */
export function watchMediaTypeOf(encoding: Encoding): string {
  return encoding === 'json' ? JSON_MEDIA_TYPE : CBOR_SEQUENCE_MEDIA_TYPE;
}
