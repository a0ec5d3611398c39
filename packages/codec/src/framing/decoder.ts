import type { WatchEvent } from '@listwatch/api';
import type { Encoding } from '../encoding.js';
import { toWatchEvent } from '../watch-event.js';
import { CborSequenceDecoder } from './cbor-sequence.js';
import { ConcatenatedJsonDecoder } from './concatenated.js';
import { resolveFormat, type StreamFormat } from './format.js';
import {
  identity,
  type StreamDecoder,
  type StreamDecoderOptions,
  type ValueMapper,
} from './frame-decoder.js';
import { LengthPrefixedDecoder } from './length-prefixed.js';
import { NewlineJsonDecoder } from './newline.js';

/** A decoder of any values (objects, lists, events) in the given stream format. */
export function createStreamDecoder(
  format: StreamFormat | Encoding,
  options?: StreamDecoderOptions,
): StreamDecoder<unknown> {
  return createMappedDecoder(format, identity, options);
}

/** A decoder of watch events: each decoded value is checked to be a valid WatchEvent. */
export function createWatchDecoder(
  format: StreamFormat | Encoding,
  options?: StreamDecoderOptions,
): StreamDecoder<WatchEvent> {
  return createMappedDecoder(format, toWatchEvent, options);
}

export function createMappedDecoder<T>(
  format: StreamFormat | Encoding,
  map: ValueMapper<T>,
  options?: StreamDecoderOptions,
): StreamDecoder<T> {
  const { encoding, framing } = resolveFormat(format);
  switch (framing) {
    case 'newline':
      return new NewlineJsonDecoder(map, options);
    case 'concatenated':
      return new ConcatenatedJsonDecoder(map, options);
    case 'cbor-sequence':
      return new CborSequenceDecoder(map, options);
    case 'length-prefixed':
      return new LengthPrefixedDecoder(encoding, map, options);
  }
}

/**
 * Watch events from a byte stream (an HTTP response body, a file, a socket). Events decoded before
 * a bad frame are yielded before its CodecError is thrown.
 */
export function decodeWatchStream(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  format: StreamFormat | Encoding,
  options?: StreamDecoderOptions,
): AsyncGenerator<WatchEvent, void, undefined> {
  return drain(source, createWatchDecoder(format, options));
}

/** Any values from a byte stream (e.g. the objects `kubectl get -w -o json` prints). */
export function decodeStream(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  format: StreamFormat | Encoding,
  options?: StreamDecoderOptions,
): AsyncGenerator<unknown, void, undefined> {
  return drain(source, createStreamDecoder(format, options));
}

async function* drain<T>(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  decoder: StreamDecoder<T>,
): AsyncGenerator<T, void, undefined> {
  for await (const chunk of source) yield* decoder.push(chunk);
  yield* decoder.end();
}
