import { Decoder, Encoder, Tag, type Options } from './cbor-x.js';
import type { WatchEventType } from '@listwatch/api';
import { CborItemScanner, normalizeCbor } from './cbor-scanner.js';
import { CodecError, DuplicateMapKeyError, errorText } from './codec-error.js';
import { propertyCount } from './json-duplicates.js';

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
  const value = decodeScannedCbor(data, scanner.needsNormalize, offset);
  // RFC 8949 §5.6: a map with a repeated key is not valid; kube's decoder rejects it whatever
  // the field validation (modes/decode.go DupMapKey: cbor.DupMapKeyEnforcedAPF).
  if (scanner.mapKeys !== propertyCount(value)) throw duplicateMapKey(data, offset);
  return value;
}

/** fxamacker/cbor's DupMapKeyError for the first repeated key of `data`. */
function duplicateMapKey(data: Uint8Array, offset: number): DuplicateMapKeyError {
  const found = new DuplicateKeyFinder(data).find();
  return new DuplicateMapKeyError(
    `cbor: found duplicate map key ${JSON.stringify(found?.key ?? '')} at map element index ${found?.index ?? 0}`,
    offset,
  );
}

/** Walks a CBOR item the scanner has checked, to name its first repeated map key. */
class DuplicateKeyFinder {
  private i = 0;
  constructor(private readonly data: Uint8Array) {}

  find(): { key: string; index: number } | undefined {
    return this.item();
  }

  /** Reads a head: major type and argument (lengths here fit in a number). */
  private head(): { major: number; arg: number; indefinite: boolean } {
    const initial = this.data[this.i++]!;
    const major = initial >> 5;
    const ai = initial & 0x1f;
    if (ai < 24) return { major, arg: ai, indefinite: false };
    if (ai === 31) return { major, arg: 0, indefinite: true };
    const size = ai === 24 ? 1 : ai === 25 ? 2 : ai === 26 ? 4 : 8;
    let arg = 0;
    for (let k = 0; k < size; k++) arg = arg * 256 + this.data[this.i++]!;
    return { major, arg, indefinite: false };
  }

  private isBreak(): boolean {
    if (this.data[this.i] !== 0xff) return false;
    this.i++;
    return true;
  }

  private item(): { key: string; index: number } | undefined {
    const { major, arg, indefinite } = this.head();
    if (major === 2 || major === 3) {
      this.i += arg;
      return undefined;
    }
    if (major === 6) return this.item();
    if (major === 4) {
      for (let n = 0; indefinite ? !this.isBreak() : n < arg; n++) {
        const found = this.item();
        if (found) return found;
      }
      return undefined;
    }
    if (major === 5) {
      const seen = new Set<string>();
      for (let n = 0; indefinite ? !this.isBreak() : n < arg; n++) {
        const keyHead = this.head();
        const key = Buffer.from(this.data.subarray(this.i, this.i + keyHead.arg)).toString('utf8');
        this.i += keyHead.arg;
        if (seen.has(key)) return { key, index: n };
        seen.add(key);
        const found = this.item();
        if (found) return found;
      }
    }
    return undefined;
  }
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
