import { CodecError } from '../codec-error.js';

// The protocol buffers wire format (protobuf.dev/programming-guides/encoding): a reader, field
// by field, and a writer. Only what Kubernetes' gogo-generated types use: varints, 64/32-bit
// fixed values and length-delimited fields; groups (wire types 3 and 4) are refused.

export type WireValue =
  | { wireType: 0; value: bigint }
  | { wireType: 1; value: Uint8Array }
  | { wireType: 2; value: Uint8Array }
  | { wireType: 5; value: Uint8Array };

export type WireField = WireValue & { field: number };

function malformed(what: string, offset: number): CodecError {
  return new CodecError(`error decoding protobuf: ${what}`, offset);
}

/** Reads a base-128 varint at `offset`; returns it and the offset after it. */
export function readVarint(bytes: Uint8Array, offset: number): [bigint, number] {
  // Fast path: most varints (tags, lengths, small numbers) fit in 28 bits.
  let small = 0;
  for (let i = 0; i < 4; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw malformed('truncated varint', offset);
    small |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return [BigInt(small >>> 0), offset + i + 1];
  }
  let result = BigInt(small >>> 0);
  for (let i = 4; i < 10; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw malformed('truncated varint', offset);
    result |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) return [BigInt.asUintN(64, result), offset + i + 1];
  }
  throw malformed('varint longer than 10 bytes', offset);
}

/**
 * Every field of one message, in wire order (a repeated field appears once per element).
 * `base` is the message's offset in the whole payload, for error messages.
 */
export function readFields(bytes: Uint8Array, base = 0): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const start = offset;
    const [tag, afterTag] = readVarint(bytes, offset);
    offset = afterTag;
    const field = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (field === 0 || field > 0x1fffffff) {
      throw malformed(`invalid field number ${field}`, base + start);
    }
    switch (wireType) {
      case 0: {
        const [value, next] = readVarint(bytes, offset);
        fields.push({ field, wireType, value });
        offset = next;
        break;
      }
      case 1:
      case 5: {
        const size = wireType === 1 ? 8 : 4;
        if (offset + size > bytes.length)
          throw malformed('truncated fixed-size field', base + start);
        fields.push({ field, wireType, value: bytes.subarray(offset, offset + size) });
        offset += size;
        break;
      }
      case 2: {
        const [length, next] = readVarint(bytes, offset);
        if (length > BigInt(bytes.length - next)) throw malformed('truncated field', base + start);
        const end = next + Number(length);
        fields.push({ field, wireType, value: bytes.subarray(next, end) });
        offset = end;
        break;
      }
      default:
        throw malformed(`unsupported wire type ${wireType}`, base + start);
    }
  }
  return fields;
}

/** A growable buffer the encoder appends to; nested messages are written to their own. */
export class WireWriter {
  private buf: Uint8Array;
  private len = 0;

  constructor(size = 256) {
    this.buf = new Uint8Array(size);
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** An unsigned varint below 2^32 (tags, lengths). */
  uint32(value: number): void {
    this.reserve(5);
    let v = value >>> 0;
    while (v > 0x7f) {
      this.buf[this.len++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.len++] = v;
  }

  /** A varint of a 64-bit two's complement integer (int32 and int64 alike, as Go writes them). */
  int64(value: number | bigint): void {
    if (typeof value === 'number' && value >= 0 && value <= 0xffffffff) {
      this.uint32(value);
      return;
    }
    let v = BigInt.asUintN(64, BigInt(value));
    this.reserve(10);
    while (v > 0x7fn) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
  }

  tag(field: number, wireType: number): void {
    this.uint32(((field << 3) | wireType) >>> 0);
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  /** A length-delimited field. */
  bytes(field: number, bytes: Uint8Array): void {
    this.tag(field, 2);
    this.uint32(bytes.length);
    this.raw(bytes);
  }

  fixed64(field: number, value: number): void {
    this.tag(field, 1);
    this.reserve(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 8).setFloat64(0, value, true);
    this.len += 8;
  }

  fixed32(field: number, value: number): void {
    this.tag(field, 5);
    this.reserve(4);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 4).setFloat32(0, value, true);
    this.len += 4;
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}
