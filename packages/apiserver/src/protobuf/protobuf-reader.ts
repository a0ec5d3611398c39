import { ApiError } from '@listwatch/api';

// The protocol buffers wire format (protobuf.dev/programming-guides/encoding), read field by
// field. Only what Kubernetes' gogo-generated types use: varints, 64/32-bit fixed values and
// length-delimited fields; groups (wire types 3 and 4) are refused.

export type WireValue =
  | { wireType: 0; value: bigint }
  | { wireType: 1; value: Uint8Array }
  | { wireType: 2; value: Uint8Array }
  | { wireType: 5; value: Uint8Array };

export type WireField = WireValue & { field: number };

function malformed(what: string, offset: number): ApiError {
  return ApiError.badRequest(`error decoding the protobuf body: ${what} at byte ${offset}`);
}

/** Reads a base-128 varint at `offset`; returns it and the offset after it. */
export function readVarint(bytes: Uint8Array, offset: number): [bigint, number] {
  let result = 0n;
  for (let i = 0; i < 10; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw malformed('truncated varint', offset);
    result |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) return [BigInt.asUintN(64, result), offset + i + 1];
  }
  throw malformed('varint longer than 10 bytes', offset);
}

/** Every field of one message, in wire order (a repeated field appears once per element). */
export function readFields(bytes: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const start = offset;
    const [tag, afterTag] = readVarint(bytes, offset);
    offset = afterTag;
    const field = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (field === 0 || field > 0x1fffffff) throw malformed(`invalid field number ${field}`, start);
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
        if (offset + size > bytes.length) throw malformed('truncated fixed-size field', start);
        fields.push({ field, wireType, value: bytes.subarray(offset, offset + size) });
        offset += size;
        break;
      }
      case 2: {
        const [length, next] = readVarint(bytes, offset);
        if (length > BigInt(bytes.length - next)) throw malformed('truncated field', start);
        const end = next + Number(length);
        fields.push({ field, wireType, value: bytes.subarray(next, end) });
        offset = end;
        break;
      }
      default:
        throw malformed(`unsupported wire type ${wireType}`, start);
    }
  }
  return fields;
}

/**
 * Whether a field carries its type's zero value: gogo writes every non-pointer field, set or
 * not, so an empty string, a 0 or an empty message says nothing.
 */
export function isZero(value: WireValue): boolean {
  if (value.wireType === 0) return value.value === 0n;
  if (value.wireType === 2) return value.value.length === 0;
  return value.value.every((b) => b === 0);
}
