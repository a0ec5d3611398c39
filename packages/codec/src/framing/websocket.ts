import type { WatchEvent } from '@listwatch/api';
import { decodeCbor } from '../cbor.js';
import type { Encoding } from '../encoding.js';
import { asBuffer, decodeJson } from '../json.js';
import { decodeProtobufWatchEvent } from '../protobuf/kube-protobuf.js';
import { toWatchEvent } from '../watch-event.js';
import { encodeWatchEvent } from './encoder.js';
import { watchFormatOf, type StreamFormat } from './format.js';

/**
 * One watch event per WebSocket message, as kube-apiserver's HandleWS sends it: JSON in a text
 * frame, trailing newline included; CBOR and protobuf in a binary frame without length prefix.
 */
export interface WebSocketMessage {
  data: Uint8Array;
  binary: boolean;
}

/**
 * The stream format whose frame bytes are exactly a WebSocket message's payload, so an encoded
 * event's cached bytes serve HTTP and WebSocket watchers alike.
 */
export function webSocketFormatOf(encoding: Encoding): StreamFormat {
  return watchFormatOf(encoding);
}

export function encodeWebSocketMessage(event: WatchEvent, encoding: Encoding): WebSocketMessage {
  return webSocketMessageOf(encodeWatchEvent(event, webSocketFormatOf(encoding)), encoding);
}

/**
 * The message for an event's stream bytes in `webSocketFormatOf(encoding)`: a protobuf message
 * is the WatchEvent without its length prefix (apiserver handlers/watch.go websocketFramer writes
 * each encoded event as one message), a view of the same bytes.
 */
export function webSocketMessageOf(bytes: Uint8Array, encoding: Encoding): WebSocketMessage {
  return {
    data: encoding === 'protobuf' ? bytes.subarray(4) : bytes,
    binary: encoding !== 'json',
  };
}

/** Decodes one message (as `ws` delivers it: Buffer, ArrayBuffer, fragments or text). */
export function decodeWebSocketMessage(
  data: Uint8Array | ArrayBuffer | readonly Uint8Array[] | string,
  encoding: Encoding,
  offset = 0,
): WatchEvent {
  const bytes: Uint8Array | string =
    typeof data === 'string'
      ? data
      : data instanceof ArrayBuffer
        ? new Uint8Array(data)
        : data instanceof Uint8Array
          ? data
          : Buffer.concat(data);
  if (encoding === 'json') return toWatchEvent(decodeJson(bytes, offset), offset);
  const binary = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : asBuffer(bytes);
  if (encoding === 'protobuf') return decodeProtobufWatchEvent(binary, offset);
  return toWatchEvent(decodeCbor(binary, offset), offset);
}
