import { Decoder, Encoder, Tag, type Options } from 'cbor-x';
import type { WatchEventType } from '@listwatch/api';
import { CborItemScanner, normalizeCbor } from './cbor-scanner.js';
import { CodecError, errorText } from './codec-error.js';

// Plain RFC 8949 CBOR a Go decoder reads: no cbor-x record/structured-clone/packing extensions,
// preferred (shortest) map headers, byte arrays untagged.
const ENCODER_OPTIONS: Options = {
  useRecords: false,
  mapsAsObjects: true,
  variableMapSize: true,
  structuredClone: false,
  pack: false,
  bundleStrings: false,
  tagUint8Array: false,
};

/** Encodes data items with no prefix: pieces of a larger document (list items). */
const itemEncoder = new Encoder(ENCODER_OPTIONS);
/** Encodes whole documents, each enclosed in the self-described CBOR tag like Kubernetes does. */
const documentEncoder = new Encoder({ ...ENCODER_OPTIONS, useSelfDescribedHeader: true });
// Maps decode to plain objects; 64-bit integers to numbers (as JSON.parse does), never BigInt.
const decoder = new Decoder({
  useRecords: false,
  mapsAsObjects: true,
  int64AsNumber: true,
} as Options & { int64AsNumber: boolean });

/** The head of tag 55799: the prefix of every CBOR document Kubernetes writes. */
export const SELF_DESCRIBED_CBOR_PREFIX: Uint8Array = Uint8Array.of(0xd9, 0xd9, 0xf7);

/** Encodes one document (an object, a list, a Status), prefixed with the self-described tag. */
export function encodeCbor(value: unknown): Uint8Array {
  return documentEncoder.encode(value);
}

/** Encodes a data item without the self-described prefix (an element inside a document). */
export function encodeCborItem(value: unknown): Uint8Array {
  return itemEncoder.encode(value);
}

/**
 * A watch event as kube-apiserver writes it: the event map in a self-described tag, its object
 * embedded as its own self-described document (a RawExtension holding the object's encoding).
 */
export function encodeCborWatchEvent(event: { type: WatchEventType; object: unknown }): Uint8Array {
  return documentEncoder.encode({ type: event.type, object: new Tag(event.object, 55799) });
}

/** Decodes exactly one CBOR data item occupying all of `data`. */
export function decodeCbor(data: Uint8Array, offset = 0): unknown {
  const scanner = new CborItemScanner();
  const end = scanner.scan(data, 0, data.length, offset);
  if (end < 0) throw new CodecError('truncated CBOR data item', offset);
  if (end !== data.length)
    throw new CodecError('unexpected data after the CBOR data item', offset + end);
  return decodeScannedCbor(data, scanner.needsNormalize, offset);
}

/** Decodes an item the scanner has already delimited and checked. */
export function decodeScannedCbor(
  item: Uint8Array,
  needsNormalize: boolean,
  offset: number,
): unknown {
  try {
    return decoder.decode(needsNormalize ? normalizeCbor(item) : item) as unknown;
  } catch (error) {
    throw new CodecError(`malformed CBOR: ${errorText(error)}`, offset, { cause: error });
  }
}
