import { ApiError } from '@listwatch/api';
import type { Encoding } from '../encoding.js';

/**
 * How consecutive payloads are delimited on a stream:
 * - `newline`: one JSON document per line (kube-apiserver's JSON watch);
 * - `concatenated`: JSON documents one after another, any whitespace between, a document may
 *   span lines (what `kubectl get -w -o json` prints; client-go's JSON framer reads it too);
 * - `cbor-sequence`: RFC 8742, self-delimiting CBOR items (KEP-4222 `application/cbor-seq`);
 * - `length-prefixed`: a 4-byte big-endian length before each payload (the protobuf watch
 *   framing), usable with any encoding; protobuf has no other.
 */
export type Framing = 'newline' | 'concatenated' | 'cbor-sequence' | 'length-prefixed';

export interface StreamFormat {
  readonly encoding: Encoding;
  readonly framing: Framing;
}

const format = (encoding: Encoding, framing: Framing): StreamFormat =>
  Object.freeze({ encoding, framing });

export const JSON_NEWLINE = format('json', 'newline');
export const JSON_CONCATENATED = format('json', 'concatenated');
export const JSON_LENGTH_PREFIXED = format('json', 'length-prefixed');
export const CBOR_SEQUENCE = format('cbor', 'cbor-sequence');
export const CBOR_LENGTH_PREFIXED = format('cbor', 'length-prefixed');
export const PROTOBUF_LENGTH_PREFIXED = format('protobuf', 'length-prefixed');

/**
 * Every (encoding, framing) pair that carries any value. PROTOBUF_LENGTH_PREFIXED carries the
 * kinds of the schema source only, so it is not among them.
 */
export const STREAM_FORMATS: readonly StreamFormat[] = [
  JSON_NEWLINE,
  JSON_CONCATENATED,
  JSON_LENGTH_PREFIXED,
  CBOR_SEQUENCE,
  CBOR_LENGTH_PREFIXED,
];

/** The default watch framing of an encoding, as kube-apiserver serves it. */
export function watchFormatOf(encoding: Encoding): StreamFormat {
  if (encoding === 'protobuf') return PROTOBUF_LENGTH_PREFIXED;
  return encoding === 'json' ? JSON_NEWLINE : CBOR_SEQUENCE;
}

/** Accepts a format or a bare encoding (meaning its default watch framing); rejects bad pairs. */
export function resolveFormat(format: StreamFormat | Encoding): StreamFormat {
  if (typeof format === 'string') return watchFormatOf(format);
  const { encoding, framing } = format;
  const valid =
    framing === 'length-prefixed' ||
    (encoding === 'json' && (framing === 'newline' || framing === 'concatenated')) ||
    (encoding === 'cbor' && framing === 'cbor-sequence');
  if (!valid) {
    throw ApiError.internalError(new Error(`no ${framing} framing for ${encoding} encoding`));
  }
  return format;
}

/** A short stable key for caches. */
export function formatKey(format: StreamFormat): string {
  return `${format.encoding}/${format.framing}`;
}

/** The default cap on one frame: larger frames are errors, never unbounded buffering. */
export const DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024;
