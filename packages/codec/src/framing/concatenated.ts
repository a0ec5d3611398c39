import { CodecError, errorText } from '../codec-error.js';
import { FrameDecoder } from './frame-decoder.js';
import {
  backslashesBefore,
  isJsonSpace,
  LBRACE,
  LBRACKET,
  QUOTE,
  RBRACE,
  RBRACKET,
  unescapedQuote,
} from './json-scan.js';

/**
 * Decodes JSON documents written one after another with any whitespace between them, each
 * possibly spanning many lines — what `kubectl get -w -o json` prints, and what client-go's JSON
 * framer (a json.Decoder) accepts. Each top-level document must be an object or an array. It
 * tracks string/escape state and bracket depth byte by byte, so it is slower than the newline
 * decoder, which the apiserver's own streams should use.
 */
export class ConcatenatedJsonDecoder<T> extends FrameDecoder<T> {
  private depth = 0;
  private inString = false;
  private escaped = false;

  protected consume(buf: Buffer, out: T[]): void {
    // Index in buf where the current document starts (0 when it began in an earlier chunk).
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      if (this.inString) {
        i = this.skipString(buf, i) - 1;
        continue;
      }
      const byte = buf[i]!;
      if (this.depth === 0) {
        if (isJsonSpace(byte)) continue;
        if (byte !== LBRACE && byte !== LBRACKET) {
          throw new CodecError(
            `malformed JSON stream: expected an object or an array, found byte 0x${byte.toString(16)}`,
            this.base + i,
          );
        }
        this.depth = 1;
        start = i;
        this.pending.start = this.base + i;
        continue;
      }
      if (byte === QUOTE) this.inString = true;
      else if (byte === LBRACE || byte === LBRACKET) this.depth++;
      else if (byte === RBRACE || byte === RBRACKET) {
        this.depth--;
        if (this.depth === 0) this.emit(buf, start, i + 1, out);
      }
    }
    if (this.depth > 0) {
      const piece = start === 0 ? buf : buf.subarray(start);
      const size = this.pending.bytes + piece.length;
      if (size > this.maxFrameSize) throw this.tooLarge(size, this.pending.start);
      this.pending.add(piece, start === 0);
    }
  }

  /**
   * Skips string content from `i`; returns the index after the closing quote, or buf.length when
   * the string continues into the next chunk (remembering whether a backslash escapes its first
   * byte).
   */
  private skipString(buf: Buffer, i: number): number {
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    const quote = unescapedQuote(buf, i, i);
    if (quote < 0) {
      this.escaped = backslashesBefore(buf, buf.length, i) % 2 === 1;
      return buf.length;
    }
    this.inString = false;
    return quote + 1;
  }

  protected finish(): void {
    if (this.depth > 0) {
      throw new CodecError('the stream ended inside a JSON document', this.pending.start);
    }
  }

  private emit(buf: Buffer, start: number, end: number, out: T[]): void {
    const offset = this.pending.start;
    const size = this.pending.bytes + end - start;
    if (size > this.maxFrameSize) throw this.tooLarge(size, offset);
    const text =
      this.pending.bytes > 0
        ? this.pending.take(buf.subarray(0, end)).toString('utf8')
        : buf.toString('utf8', start, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new CodecError(`malformed JSON: ${errorText(error)}`, offset, { cause: error });
    }
    out.push(this.map(value, offset));
  }
}
