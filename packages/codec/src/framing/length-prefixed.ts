import { decodeCbor } from '../cbor.js';
import { CodecError } from '../codec-error.js';
import type { Encoding } from '../encoding.js';
import { decodeJson } from '../json.js';
import {
  decodeProtobuf,
  decodeProtobufWatchEvent,
  PROTOBUF_MAGIC,
} from '../protobuf/kube-protobuf.js';
import { FrameDecoder, type StreamDecoderOptions, type ValueMapper } from './frame-decoder.js';

const HEADER = 4;

/**
 * The protobuf watch framing (apimachinery pkg/util/framer LengthDelimitedFrameWriter): a 4-byte
 * big-endian length, then the payload. Usable for any binary (or text) payload.
 */
export function encodeLengthPrefixed(payload: Uint8Array): Uint8Array {
  const frame = Buffer.allocUnsafe(HEADER + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.set(payload, HEADER);
  return frame;
}

/** A length-prefixed frame of UTF-8 text. */
export function encodeLengthPrefixedText(text: string): Uint8Array {
  // One UTF-8 encoding then a copy beats measuring the byte length first (two passes).
  return encodeLengthPrefixed(Buffer.from(text, 'utf8'));
}

/**
 * Decodes length-prefixed frames carrying JSON, CBOR or protobuf payloads (a protobuf frame is
 * an object when it starts with the `k8s\0` magic, otherwise a metav1.WatchEvent). A declared length above the
 * maximum frame size fails at once, before anything is buffered; a payload inside one chunk is
 * decoded in place.
 */
export class LengthPrefixedDecoder<T> extends FrameDecoder<T> {
  private readonly header = new Uint8Array(HEADER);
  private headerBytes = 0;
  /** Payload length of the current frame, or -1 while reading a header. */
  private need = -1;

  constructor(
    private readonly encoding: Encoding,
    map: ValueMapper<T>,
    options?: StreamDecoderOptions,
  ) {
    super(map, options);
  }

  override get bufferedBytes(): number {
    return this.pending.bytes + this.headerBytes;
  }

  protected consume(buf: Buffer, out: T[]): void {
    let pos = 0;
    while (pos < buf.length) {
      if (this.need < 0) {
        if (this.headerBytes === 0) this.pending.start = this.base + pos;
        const take = Math.min(HEADER - this.headerBytes, buf.length - pos);
        this.header.set(buf.subarray(pos, pos + take), this.headerBytes);
        this.headerBytes += take;
        pos += take;
        if (this.headerBytes < HEADER) return;
        this.headerBytes = 0;
        const h = this.header;
        const size = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
        if (size > this.maxFrameSize) throw this.tooLarge(size, this.pending.start);
        this.need = size;
        if (size === 0) {
          this.need = -1;
          this.decode(new Uint8Array(0), out);
        }
        continue;
      }
      const available = buf.length - pos;
      const missing = this.need - this.pending.bytes;
      if (available < missing) {
        this.pending.add(pos === 0 ? buf : buf.subarray(pos), pos === 0);
        return;
      }
      const payload =
        this.pending.bytes > 0
          ? this.pending.take(buf.subarray(pos, pos + missing))
          : buf.subarray(pos, pos + missing);
      pos += missing;
      this.need = -1;
      this.decode(payload, out);
    }
  }

  protected finish(): void {
    if (this.need >= 0 || this.headerBytes > 0) {
      throw new CodecError('the stream ended inside a length-prefixed frame', this.pending.start);
    }
  }

  private decode(payload: Uint8Array, out: T[]): void {
    const offset = this.pending.start;
    const at = offset + HEADER;
    const value =
      this.encoding === 'json'
        ? decodeJson(payload, at)
        : this.encoding === 'cbor'
          ? decodeCbor(payload, at)
          : PROTOBUF_MAGIC.every((b, i) => payload[i] === b)
            ? decodeProtobuf(payload, at)
            : decodeProtobufWatchEvent(payload, at);
    out.push(this.map(value, offset));
  }
}
