import { decodeScannedCbor } from '../cbor.js';
import { CborItemScanner } from '../cbor-scanner.js';
import { CodecError } from '../codec-error.js';
import { FrameDecoder } from './frame-decoder.js';

/**
 * Decodes an RFC 8742 CBOR sequence (KEP-4222 `application/cbor-seq` watch streams). Items are
 * self-delimiting: a resumable scanner finds where each ends in one pass, then the item is decoded
 * in one call — from the chunk itself when it lies within one chunk.
 */
export class CborSequenceDecoder<T> extends FrameDecoder<T> {
  private readonly scanner = new CborItemScanner();

  protected consume(buf: Buffer, out: T[]): void {
    let pos = 0;
    while (pos < buf.length) {
      const start = pos;
      if (this.pending.bytes === 0) this.pending.start = this.base + pos;
      const end = this.scanner.scan(buf, pos, buf.length, this.base);
      if (end < 0) {
        const size = this.pending.bytes + buf.length - start;
        if (size > this.maxFrameSize) throw this.tooLarge(size, this.pending.start);
        this.pending.add(start === 0 ? buf : buf.subarray(start), start === 0);
        return;
      }
      const offset = this.pending.start;
      const size = this.pending.bytes + end - start;
      if (size > this.maxFrameSize) throw this.tooLarge(size, offset);
      const item =
        this.pending.bytes > 0 ? this.pending.take(buf.subarray(0, end)) : buf.subarray(start, end);
      out.push(this.map(decodeScannedCbor(item, this.scanner.needsNormalize, offset), offset));
      pos = end;
    }
  }

  protected finish(): void {
    if (this.pending.bytes > 0 || this.scanner.inItem) {
      throw new CodecError('the stream ended inside a CBOR data item', this.pending.start);
    }
  }
}
