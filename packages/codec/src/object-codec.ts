import { ApiError } from '@listwatch/api';
import { decodeCbor, encodeCbor } from './cbor.js';
import {
  CBOR_MEDIA_TYPE,
  JSON_MEDIA_TYPE,
  PROTOBUF_MEDIA_TYPE,
  type Encoding,
} from './encoding.js';
import { decodeJson, encodeJson } from './json.js';
import { parseMediaType } from './negotiation.js';
import { decodeProtobuf, encodeProtobuf } from './protobuf/kube-protobuf.js';

/** A whole response body: JSON (optionally pretty), a self-described CBOR document or protobuf. */
export function encodeObject(
  value: unknown,
  encoding: Encoding,
  options: { pretty?: boolean } = {},
): Uint8Array {
  if (encoding === 'protobuf') return encodeProtobuf(value);
  return encoding === 'json' ? encodeJson(value, options) : encodeCbor(value);
}

/** A whole request or response body; malformed input is a CodecError. */
export function decodeObject(data: Uint8Array | string, encoding: Encoding): unknown {
  if (encoding === 'json') return decodeJson(data);
  if (encoding === 'protobuf') {
    return decodeProtobuf(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }
  return decodeCbor(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
}

/**
 * The encoding of a request body from its Content-Type, as NegotiateInputSerializerForMediaType
 * does it: none means JSON; a type not served is a 415 UnsupportedMediaType. (Patch types such
 * as application/merge-patch+json are the patch handler's to interpret.)
 */
export function requestEncoding(contentType: string | null | undefined): Encoding {
  if (!contentType || contentType.trim() === '') return 'json';
  const media = parseMediaType(contentType);
  if (media?.type === 'application' && media.subtype === 'json') return 'json';
  if (media?.type === 'application' && media.subtype === 'cbor') return 'cbor';
  if (media?.type === 'application' && media.subtype === 'vnd.kubernetes.protobuf')
    return 'protobuf';
  throw ApiError.unsupportedMediaType([JSON_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE, CBOR_MEDIA_TYPE]);
}
