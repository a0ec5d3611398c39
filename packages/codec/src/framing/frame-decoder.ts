import { CodecError, errorText } from '../codec-error.js';
import { asBuffer } from '../json.js';
import { DEFAULT_MAX_FRAME_SIZE } from './format.js';

/**
 * An incremental decoder: feed it chunks split anywhere (mid-UTF-8 sequence, mid-frame, many
 * frames per chunk) and take the values each chunk completes.
 *
 * Errors are CodecErrors naming the byte offset of the bad frame. When a chunk completes some
 * values before hitting a bad frame, push returns those values and the error is thrown by the next
 * call (push or end), so nothing decoded is dropped. After an error every call throws it again.
 * Chunks are referenced, not copied, while a frame is incomplete: do not mutate them after push.
 */
export interface StreamDecoder<T> {
  push(chunk: Uint8Array | string): T[];
  /** The end of the stream: returns a last unterminated value if any; throws if cut mid-frame. */
  end(): T[];
  /** Bytes held for an incomplete frame; never more than the maximum frame size. */
  readonly bufferedBytes: number;
  /** Bytes consumed so far. */
  readonly offset: number;
}

export interface StreamDecoderOptions {
  /** Largest frame accepted, in bytes (default 16 MiB). A larger one is a CodecError. */
  maxFrameSize?: number;
}

/** Turns one decoded payload (at a stream offset) into the decoder's output, or throws. */
export type ValueMapper<T> = (value: unknown, offset: number) => T;

export const identity: ValueMapper<unknown> = (value) => value;

/** The bytes of a frame that spans chunks. */
export class PendingFrame {
  private parts: Uint8Array[] = [];
  bytes = 0;
  /** Stream offset of the frame's first byte. */
  start = 0;

  /** Holds a piece; a piece that is only part of its chunk is copied so the chunk can be freed. */
  add(piece: Uint8Array, wholeChunk: boolean): void {
    this.parts.push(wholeChunk ? piece : Uint8Array.prototype.slice.call(piece));
    this.bytes += piece.length;
  }

  /** The frame's bytes (plus an optional last piece), and resets. */
  take(last?: Uint8Array): Buffer {
    if (last) this.parts.push(last);
    const total = this.bytes + (last ? last.length : 0);
    const frame =
      this.parts.length === 1 ? asBuffer(this.parts[0]!) : Buffer.concat(this.parts, total);
    this.clear();
    return frame;
  }

  clear(): void {
    this.parts = [];
    this.bytes = 0;
  }
}

export abstract class FrameDecoder<T> implements StreamDecoder<T> {
  protected readonly maxFrameSize: number;
  /** Stream offset of the first byte of the chunk being consumed. */
  protected base = 0;
  /** The frame that spans chunks, if any. */
  protected readonly pending = new PendingFrame();
  private failure: CodecError | undefined;

  constructor(
    protected readonly map: ValueMapper<T>,
    options: StreamDecoderOptions = {},
  ) {
    this.maxFrameSize = options.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE;
  }

  get bufferedBytes(): number {
    return this.pending.bytes;
  }

  get offset(): number {
    return this.base;
  }

  push(chunk: Uint8Array | string): T[] {
    const out: T[] = [];
    this.run(out, () => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : asBuffer(chunk);
      try {
        this.consume(buf, out);
      } finally {
        this.base += buf.length;
      }
    });
    return out;
  }

  end(): T[] {
    const out: T[] = [];
    this.run(out, () => this.finish(out));
    return out;
  }

  protected abstract consume(buf: Buffer, out: T[]): void;
  protected abstract finish(out: T[]): void;

  protected tooLarge(size: number, offset: number): CodecError {
    return new CodecError(
      `frame of ${size} bytes exceeds the maximum frame size of ${this.maxFrameSize} bytes`,
      offset,
    );
  }

  private run(out: T[], body: () => void): void {
    if (this.failure) throw this.failure;
    try {
      body();
    } catch (error) {
      this.failure =
        error instanceof CodecError
          ? error
          : new CodecError(`cannot decode stream: ${errorText(error)}`, this.base, {
              cause: error,
            });
      if (out.length === 0) throw this.failure;
    }
  }
}
