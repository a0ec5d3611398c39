import { statusOf, type Status, type WatchEventType } from '@listwatch/api';
import { encodeCbor, encodeCborWatchEvent } from '../cbor.js';
import type { Encoding } from '../encoding.js';
import { encodeJsonText } from '../json.js';
import { encodeProtobuf, encodeProtobufWatchEvent } from '../protobuf/kube-protobuf.js';
import { resolveFormat, type StreamFormat } from './format.js';
import { encodeLengthPrefixed, encodeLengthPrefixedText } from './length-prefixed.js';
import { encodeNewlineFrame } from './newline.js';

/** A watch event whose object may be any value (a Table, PartialObjectMetadata, a Status). */
export interface AnyWatchEvent {
  type: WatchEventType;
  object: unknown;
}

/**
 * One watch event as framed bytes: `{"type":…,"object":…}\n` for JSON, a self-described CBOR item
 * for a CBOR sequence, or either payload behind a 4-byte length; in protobuf a metav1.WatchEvent
 * behind a 4-byte length.
 */
export function encodeWatchEvent(
  event: AnyWatchEvent,
  format: StreamFormat | Encoding,
): Uint8Array {
  const { encoding, framing } = resolveFormat(format);
  // An ERROR event's Status in kube's field order, however it was built.
  if (event.type === 'ERROR') event = { type: 'ERROR', object: statusOf(event.object as Status) };
  if (encoding === 'protobuf') return encodeLengthPrefixed(encodeProtobufWatchEvent(event));
  if (encoding === 'cbor') {
    const item = encodeCborWatchEvent(event);
    return framing === 'length-prefixed' ? encodeLengthPrefixed(item) : item;
  }
  const json = JSON.stringify({ type: event.type, object: event.object });
  return framing === 'length-prefixed' ? encodeLengthPrefixedText(json) : encodeNewlineFrame(json);
}

/** Any value (an object, a list, a Status) as one framed document of a stream. */
export function encodeStreamValue(value: unknown, format: StreamFormat | Encoding): Uint8Array {
  const { encoding, framing } = resolveFormat(format);
  if (encoding === 'protobuf') return encodeLengthPrefixed(encodeProtobuf(value));
  if (encoding === 'cbor') {
    const item = encodeCbor(value);
    return framing === 'length-prefixed' ? encodeLengthPrefixed(item) : item;
  }
  const json = encodeJsonText(value);
  return framing === 'length-prefixed' ? encodeLengthPrefixedText(json) : encodeNewlineFrame(json);
}
