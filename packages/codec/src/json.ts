import { CodecError, errorText } from './codec-error.js';

/** Encodes a value as JSON bytes; `pretty` indents like kube-apiserver's pretty serializer. */
export function encodeJson(value: unknown, options: { pretty?: boolean } = {}): Uint8Array {
  return Buffer.from(encodeJsonText(value, options), 'utf8');
}

export function encodeJsonText(value: unknown, options: { pretty?: boolean } = {}): string {
  const text = options.pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
  // JSON.stringify returns undefined for undefined/functions: not a document.
  if (typeof text !== 'string') throw new TypeError(`cannot encode ${typeof value} as JSON`);
  return text;
}

/** Decodes one JSON document; a syntax error is a CodecError at `offset`. */
export function decodeJson(data: Uint8Array | string, offset = 0): unknown {
  const text = typeof data === 'string' ? data : asBuffer(data).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CodecError(`malformed JSON: ${errorText(error)}`, offset, { cause: error });
  }
}

/** A Buffer view over the same memory (no copy), for Buffer's fast indexOf/toString. */
export function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
