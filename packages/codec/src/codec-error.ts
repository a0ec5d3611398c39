import { ApiError } from '@listwatch/api';

/**
 * A malformed or oversized payload. It is a 400 BadRequest like the errors kube-apiserver's
 * decoders return, and names the byte offset of the frame that failed so a captured stream can
 * be inspected at the right place.
 */
export class CodecError extends ApiError {
  /** Byte offset, from the start of the stream or payload, of the frame that failed. */
  readonly offset: number;

  constructor(message: string, offset: number, options?: { cause?: unknown }) {
    super(
      { code: 400, reason: 'BadRequest', message: `${message} (at byte offset ${offset})` },
      options,
    );
    this.name = 'CodecError';
    this.offset = offset;
  }
}

/** A CBOR map with a repeated key (fxamacker/cbor's DupMapKeyError); `detail` is its text. */
export class DuplicateMapKeyError extends CodecError {
  constructor(
    readonly detail: string,
    offset: number,
  ) {
    super(detail, offset);
    this.name = 'DuplicateMapKeyError';
  }
}

export function isCodecError(value: unknown): value is CodecError {
  return value instanceof CodecError;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
