import { CodecError } from './codec-error.js';

// Kinds of open containers on the scanner's stack.
const ARRAY = 0;
const MAP = 1;
const INDEFINITE_ARRAY = 2;
const INDEFINITE_MAP = 3;

/** Tag 55799, "self-described CBOR": the magic prefix Kubernetes puts on every CBOR document. */
export const SELF_DESCRIBED_TAG = 55799;

/**
 * Nesting limit for CBOR input. Kubernetes' CBOR decoder allows 64 levels; objects here come from
 * JSON with no such limit, so this is set high enough for deep CRD schemas while still keeping
 * the recursive decoder far from the call-stack limit.
 */
export const DEFAULT_MAX_CBOR_DEPTH = 1000;

/** Bytes in a header whose initial byte has additional information `ai`. */
function headerLength(ai: number): number {
  return ai < 24 ? 1 : ai === 24 ? 2 : ai === 25 ? 3 : ai === 26 ? 5 : ai === 27 ? 9 : 1;
}

/**
 * Finds where one CBOR data item ends without decoding it, across chunk boundaries, in one pass
 * (resumable: a chunk ending mid-header or mid-string is continued by the next one, so a large
 * item arriving in small chunks costs linear time). It also checks the item is in the JSON-like
 * subset Kubernetes accepts: string map keys, no NaN/Infinity, no simple values other than
 * false/true/null/undefined, no indefinite-length strings, bounded depth. It notes when the item
 * needs `normalizeCbor` first (byte strings, tags other than 55799, undefined) — what a Go
 * encoder produces, since Kubernetes writes strings as byte strings.
 */
export class CborItemScanner {
  /** True when the last completed item needs `normalizeCbor` before decoding. */
  needsNormalize = false;
  /** Map keys in the last item: more than its decoded maps hold means a key was repeated. */
  mapKeys = 0;

  private readonly remaining: number[] = [];
  private readonly kinds: number[] = [];
  private skip = 0;
  private started = false;
  private pendingTag = false;
  private done = false;
  private readonly carry = new Uint8Array(9);
  private carryLength = 0;
  private carryNeed = 0;
  private carryOffset = 0;

  constructor(private readonly maxDepth = DEFAULT_MAX_CBOR_DEPTH) {}

  /** True while an item has started but not ended. */
  get inItem(): boolean {
    return !this.done && (this.started || this.pendingTag || this.carryLength > 0);
  }

  /**
   * Scans `buf[pos..end)`; `base` is the stream offset of `buf[0]` (for errors). Returns the index
   * just past the end of the item if it ends in this range, else -1 (call again with more bytes).
   */
  scan(buf: Uint8Array, pos: number, end: number, base: number): number {
    if (this.done) this.reset();
    while (pos < end) {
      if (this.skip > 0) {
        const available = end - pos;
        if (available < this.skip) {
          this.skip -= available;
          return -1;
        }
        pos += this.skip;
        this.skip = 0;
        if (this.closeCompleted()) return pos;
        continue;
      }
      let complete: boolean;
      if (this.carryLength > 0) {
        const take = Math.min(this.carryNeed - this.carryLength, end - pos);
        this.carry.set(buf.subarray(pos, pos + take), this.carryLength);
        this.carryLength += take;
        pos += take;
        if (this.carryLength < this.carryNeed) return -1;
        this.carryLength = 0;
        complete = this.header(this.carry, 0, this.carryOffset);
      } else {
        const length = headerLength(buf[pos]! & 31);
        if (pos + length > end) {
          this.carry.set(buf.subarray(pos, end), 0);
          this.carryLength = end - pos;
          this.carryNeed = length;
          this.carryOffset = base + pos;
          return -1;
        }
        complete = this.header(buf, pos, base + pos);
        pos += length;
      }
      if (complete) return pos;
    }
    return -1;
  }

  reset(): void {
    this.remaining.length = 0;
    this.mapKeys = 0;
    this.kinds.length = 0;
    this.skip = 0;
    this.started = false;
    this.pendingTag = false;
    this.done = false;
    this.carryLength = 0;
    this.needsNormalize = false;
  }

  /** Processes one complete header at `src[p]`; returns true when it ends the item. */
  private header(src: Uint8Array, p: number, at: number): boolean {
    const initial = src[p]!;
    const major = initial >> 5;
    const ai = initial & 31;
    let lo = 0;
    let hi = 0;
    if (ai < 24) lo = ai;
    else if (ai === 24) lo = src[p + 1]!;
    else if (ai === 25) lo = (src[p + 1]! << 8) | src[p + 2]!;
    else if (ai === 26) lo = readUint32(src, p + 1);
    else if (ai === 27) {
      hi = readUint32(src, p + 1);
      lo = readUint32(src, p + 5);
    } else if (ai !== 31) {
      throw new CodecError(`malformed CBOR: reserved additional information ${ai}`, at);
    }

    if (major === 6) {
      if (ai === 31) throw new CodecError('malformed CBOR: indefinite-length tag', at);
      if (!(ai === 25 && lo === SELF_DESCRIBED_TAG)) this.needsNormalize = true;
      this.pendingTag = true;
      return false;
    }
    if (major === 7 && ai === 31) return this.closeIndefinite(at);

    // A new data item: it takes one slot of its parent container.
    const depth = this.remaining.length;
    if (depth > 0) {
      const top = depth - 1;
      const kind = this.kinds[top]!;
      const count = this.remaining[top]!;
      if (kind === MAP || kind === INDEFINITE_MAP) {
        if ((count & 1) === 0) {
          if (major !== 2 && major !== 3) {
            throw new CodecError('unsupported CBOR: map keys must be strings', at);
          }
          this.mapKeys++;
        }
        this.remaining[top] = kind === MAP ? count - 1 : count + 1;
      } else if (kind === ARRAY) {
        this.remaining[top] = count - 1;
      }
    } else {
      this.started = true;
    }
    this.pendingTag = false;

    switch (major) {
      case 0:
      case 1:
        if (ai === 31) throw new CodecError('malformed CBOR: indefinite-length integer', at);
        break;
      case 2:
      case 3:
        if (ai === 31) {
          throw new CodecError('unsupported CBOR: indefinite-length strings', at);
        }
        if (major === 2) this.needsNormalize = true;
        if (hi > 0) throw new CodecError('CBOR string too long', at);
        if (lo > 0) {
          this.skip = lo;
          return false;
        }
        break;
      case 4:
      case 5:
        if (ai === 31) {
          this.push(major === 4 ? INDEFINITE_ARRAY : INDEFINITE_MAP, 0, at);
          return false;
        }
        if (hi > 0 || lo > 0x3fffffff) throw new CodecError('CBOR container too large', at);
        if (lo > 0) {
          this.push(major === 4 ? ARRAY : MAP, major === 4 ? lo : lo * 2, at);
          return false;
        }
        break;
      default: // 7: simple values and floats
        if (ai === 23) this.needsNormalize = true;
        else if (ai === 25) {
          if ((lo & 0x7c00) === 0x7c00) throw nonFinite(at);
        } else if (ai === 26) {
          if ((lo & 0x7f800000) === 0x7f800000) throw nonFinite(at);
        } else if (ai === 27) {
          if ((hi & 0x7ff00000) === 0x7ff00000) throw nonFinite(at);
        } else if (ai < 20 || ai > 22) {
          throw new CodecError(
            `unsupported CBOR simple value (initial byte 0x${initial.toString(16)})`,
            at,
          );
        }
    }
    return this.closeCompleted();
  }

  private push(kind: number, count: number, at: number): void {
    if (this.remaining.length >= this.maxDepth) {
      throw new CodecError(`CBOR nested deeper than ${this.maxDepth} levels`, at);
    }
    this.remaining.push(count);
    this.kinds.push(kind);
  }

  private closeIndefinite(at: number): boolean {
    const top = this.remaining.length - 1;
    const kind = this.kinds[top];
    if (kind !== INDEFINITE_ARRAY && kind !== INDEFINITE_MAP) {
      throw new CodecError('malformed CBOR: unexpected break', at);
    }
    if (this.pendingTag) throw new CodecError('malformed CBOR: tag without content', at);
    if (kind === INDEFINITE_MAP && (this.remaining[top]! & 1) === 1) {
      throw new CodecError('malformed CBOR: map key without a value', at);
    }
    this.remaining.pop();
    this.kinds.pop();
    return this.closeCompleted();
  }

  /** Pops finished definite containers; true when the whole item is complete. */
  private closeCompleted(): boolean {
    const remaining = this.remaining;
    const kinds = this.kinds;
    let depth = remaining.length;
    while (depth > 0 && remaining[depth - 1] === 0 && kinds[depth - 1]! <= MAP) {
      remaining.pop();
      kinds.pop();
      depth--;
    }
    if (depth === 0 && this.started && !this.pendingTag && this.skip === 0) {
      this.done = true;
      return true;
    }
    return false;
  }
}

function nonFinite(at: number): CodecError {
  return new CodecError('unsupported CBOR: NaN and infinite numbers have no JSON form', at);
}

function readUint32(src: Uint8Array, p: number): number {
  return ((src[p]! << 24) | (src[p + 1]! << 16) | (src[p + 2]! << 8) | src[p + 3]!) >>> 0;
}

function readLength(src: Uint8Array, p: number, ai: number): number {
  if (ai < 24) return ai;
  if (ai === 24) return src[p + 1]!;
  if (ai === 25) return (src[p + 1]! << 8) | src[p + 2]!;
  if (ai === 26) return readUint32(src, p + 1);
  return readUint32(src, p + 5); // the scanner rejected lengths beyond 32 bits
}

/**
 * Rewrites a scanned item into the subset the decoder maps straight to plain values, with
 * Kubernetes' semantics for decoding into unstructured objects (apimachinery cbor
 * internal/modes/decode.go): byte strings become text strings, unrecognized tags decode to their
 * content, and a byte string under tag 21/22/23 ("expected later encoding", how Kubernetes marks
 * []byte fields) becomes its base64url/base64/base16 text, as in JSON. `undefined` becomes null.
 */
export function normalizeCbor(src: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(src.length * 2 + 16);
  let o = 0;
  let p = 0;
  let expected: BufferEncoding | undefined;
  while (p < src.length) {
    const initial = src[p]!;
    const major = initial >> 5;
    const ai = initial & 31;
    const length = headerLength(ai);
    if (major === 6) {
      const tag = ai < 24 ? ai : -1;
      expected = tag === 21 ? 'base64url' : tag === 22 ? 'base64' : tag === 23 ? 'hex' : expected;
      p += length;
      continue;
    }
    if (initial === 0xf7) {
      out[o++] = 0xf6;
      p++;
      expected = undefined;
      continue;
    }
    if (major === 2 || major === 3) {
      const size = readLength(src, p, ai);
      const body = src.subarray(p + length, p + length + size);
      p += length + size;
      if (major === 2 && expected !== undefined) {
        o = writeText(
          out,
          o,
          Buffer.from(body.buffer, body.byteOffset, body.length).toString(expected),
        );
      } else {
        o = writeHeader(out, o, 3, size);
        out.set(body, o);
        o += size;
      }
      expected = undefined;
      continue;
    }
    out.set(src.subarray(p, p + length), o);
    o += length;
    p += length;
    expected = undefined;
  }
  return out.subarray(0, o);
}

function writeText(out: Buffer, o: number, text: string): number {
  // Encoded forms are ASCII: one byte per character.
  o = writeHeader(out, o, 3, text.length);
  return o + out.write(text, o, 'latin1');
}

function writeHeader(out: Uint8Array, o: number, major: number, n: number): number {
  const m = major << 5;
  if (n < 24) {
    out[o++] = m | n;
  } else if (n < 0x100) {
    out[o++] = m | 24;
    out[o++] = n;
  } else if (n < 0x10000) {
    out[o++] = m | 25;
    out[o++] = n >> 8;
    out[o++] = n & 0xff;
  } else {
    out[o++] = m | 26;
    out[o++] = (n >>> 24) & 0xff;
    out[o++] = (n >>> 16) & 0xff;
    out[o++] = (n >>> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  return o;
}
