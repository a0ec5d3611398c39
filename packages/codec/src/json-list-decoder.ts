import { CodecError, errorText } from './codec-error.js';
import {
  COLON,
  COMMA,
  isJsonSpace,
  LBRACE,
  LBRACKET,
  QUOTE,
  RBRACE,
  RBRACKET,
  unescapedQuote,
} from './framing/json-scan.js';

const EMPTY = Buffer.alloc(0);

/**
 * Complete elements are parsed together once they add up to this much. Under V8's largest
 * regular heap object (128 KiB) on purpose: a longer text is allocated in the large-object space,
 * fresh pages each time, and decoding 232 MB of LIST in 256 KiB pieces measured 40× slower than
 * in 100 KiB ones.
 */
const DEFAULT_BATCH_BYTES = 100 * 1024;

/** Bytes of an element's beginning compared to learn what every element starts with. */
const HEAD_BYTES = 64;
/** Candidate boundaries that JSON.parse refused, or windows without one, before giving up. */
const MAX_FAST_MISSES = 4;

export interface JsonListDecoderOptions<T> {
  /** Sees each batch of items as it is parsed (they are collected either way). */
  onItems?: (items: T[]) => void;
  /** Items are parsed together once they add up to this many bytes (default 100 KiB). */
  batchBytes?: number;
}

/** As JSON.parse does: an own property, even for `__proto__`. */
function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

type State =
  /** Before the top-level `{`. */
  | 'start'
  /** After `{` or a top-level `,`: a key (or, right after `{`, `}`). */
  | 'key'
  | 'key-string'
  | 'colon'
  | 'value'
  /** Inside a top-level value other than the items array. */
  | 'raw'
  /** Inside `items`, before an element (or `]`). */
  | 'element'
  /** Inside one element of `items`. */
  | 'in-element'
  /** After a top-level value: `,` or `}`. */
  | 'next'
  | 'done';

/**
 * Decodes a JSON list — `{"kind":…,"metadata":{…},"items":[…]}` — as its bytes arrive, so the
 * items of a large LIST are parsed while the rest is still on the wire (the apiserver writes a
 * LIST item by item, KEP-5116), never as one giant string. The result equals `JSON.parse` of the
 * whole document; malformed input fails as JSON.parse would, with a CodecError.
 *
 * Two ways find where elements of `items` end:
 *
 * - An exact scanner follows strings and nesting, jumping from quote to quote.
 * - A fast path, once the first two elements showed what every element begins with (Kubernetes
 *   writes `{"metadata":{"name":` or `{"apiVersion":"v1","kind":"Pod",…` for each): the last
 *   `,` + that beginning in a batch-sized window is taken as a boundary and the window parsed as
 *   an array at once, skipping the scan. JSON.parse is the proof: text that begins at an element
 *   and parses as a sequence of values ends at an element boundary, since a cut inside a nested
 *   value leaves a bracket open and a cut inside a string leaves it unterminated (the quote in
 *   `,{"` cannot be an escaped one). When it refuses, the scanner takes that window.
 */
export class JsonListDecoder<T = unknown> {
  private readonly onItems: ((items: T[]) => void) | undefined;
  private readonly batchBytes: number;
  private buf: Buffer = EMPTY;
  /** Valid bytes in `buf`. */
  private len = 0;
  /** Where scanning resumes in `buf`. */
  private pos = 0;
  private state: State = 'start';
  /** The top-level object being built, keys in document order. */
  private readonly result: Record<string, unknown> = {};
  private keys = 0;
  private items: T[] = [];
  /** Start of the key, raw value or element being scanned (-1: none). */
  private tokenStart = -1;
  private key = '';
  /** Nesting inside the current raw value or element. */
  private depth = 0;
  /** A string is open at `stringOpen`; its closing quote is searched for from `stringFrom`. */
  private inString = false;
  private stringOpen = -1;
  private stringFrom = 0;
  /** Elements complete but not parsed yet: [batchStart, batchEnd) in `buf`. */
  private batchStart = -1;
  private batchEnd = -1;
  /** A `,` was read: another key (or element) must follow. */
  private required = false;
  /** Bytes dropped from the front of `buf` so far, for error positions. */
  private consumed = 0;
  /** The first element's beginning, until the second one is compared with it. */
  private firstHead: Buffer | undefined;
  /** `,` + what every element has begun with: the fast path's boundary (none: scan). */
  private separator: Buffer | undefined;
  private fastMisses = 0;
  private fastBytes = 0;

  constructor(options: JsonListDecoderOptions<T> = {}) {
    this.onItems = options.onItems;
    this.batchBytes = Math.max(1, options.batchBytes ?? DEFAULT_BATCH_BYTES);
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.append(chunk);
    for (;;) {
      if (this.separator !== undefined && this.atElement() && this.fastForward()) return;
      if (!this.scan(true)) return;
    }
  }

  /**
   * Bytes of elements cut at the learned boundary rather than walked by the scanner: how much of
   * the list took the fast path (nearly all of a Kubernetes LIST of one kind).
   */
  get fastPathBytes(): number {
    return this.fastBytes;
  }

  /** The whole list; throws if the document is incomplete. */
  end(): Record<string, unknown> & { items?: T[] } {
    // What the fast path left unscanned: the last elements and whatever follows `items`.
    this.scan(false);
    if (this.state !== 'done') {
      const empty = this.state === 'start' && this.consumed + this.len === 0;
      throw this.error(empty ? 'empty body' : 'unexpected end of data', this.consumed + this.len);
    }
    return this.result;
  }

  /**
   * Copies `chunk` behind the bytes still needed, in one buffer reused for the whole list (no
   * allocation per chunk), dropping what no token needs any more when room is short.
   */
  private append(chunk: Uint8Array): void {
    if (this.len + chunk.length > this.buf.length) {
      this.compact();
      const need = this.len + chunk.length;
      if (need > this.buf.length) {
        const grown = Buffer.allocUnsafe(Math.max(need, 2 * this.buf.length, 64 * 1024));
        this.buf.copy(grown, 0, 0, this.len);
        this.buf = grown;
      }
    }
    this.buf.set(chunk, this.len);
    this.len += chunk.length;
  }

  /**
   * At the start of an element with no batch pending, where the fast path can take over: moves
   * from `element` into the element when its first byte is there.
   */
  private atElement(): boolean {
    if (this.batchStart >= 0) return false;
    if (this.state === 'in-element') return true;
    if (this.state !== 'element') return false;
    let i = this.pos;
    while (i < this.len && isJsonSpace(this.buf[i]!)) i++;
    if (this.buf[i] !== LBRACE || i >= this.len) return false;
    this.beginElement(i);
    return true;
  }

  private beginElement(at: number): void {
    this.tokenStart = at;
    this.pos = at;
    this.depth = 0;
    this.inString = false;
    this.state = 'in-element';
  }

  /**
   * Parses batch after batch cut at the separator. Returns true when it is waiting for more bytes
   * (nothing to scan meanwhile), false when the scanner must go on from `pos`.
   */
  private fastForward(): boolean {
    const separator = this.separator!;
    const b = this.buf.subarray(0, this.len);
    for (;;) {
      const start = this.tokenStart;
      if (this.len - start < this.batchBytes) return true;
      const window = start + this.batchBytes + (this.batchBytes >> 2);
      const cut = b.lastIndexOf(separator, window);
      if (cut > start) {
        const parsed = this.parseElements(start, cut, () => undefined);
        if (parsed !== undefined) {
          this.deliver(parsed);
          this.fastBytes += cut - start;
          this.beginElement(cut + 1);
          continue;
        }
      } else if (this.len < window) {
        return true; // the separator may still come within the window
      }
      // Refused, or an element longer than a window: scan this one.
      if (++this.fastMisses >= MAX_FAST_MISSES) this.separator = undefined;
      return false;
    }
  }

  /**
   * Scans from `pos` to the end of the bytes. With `handOver` (more bytes may come), it stops
   * early at an element's start right after parsing a batch, to let the fast path go on from
   * there, and returns true.
   */
  private scan(handOver: boolean): boolean {
    // A view of the valid bytes: indexOf must not find quotes in stale bytes past them.
    const b = this.buf.subarray(0, this.len);
    const n = b.length;
    let i = this.pos;
    while (i < n) {
      const c = b[i]!;
      switch (this.state) {
        case 'start':
          if (isJsonSpace(c)) break;
          if (c !== LBRACE) throw this.unexpected(i);
          this.state = 'key';
          break;
        case 'key':
          if (isJsonSpace(c)) break;
          if (c === RBRACE && this.keys === 0) {
            this.state = 'done';
            break;
          }
          if (c !== QUOTE) throw this.unexpected(i);
          this.tokenStart = i;
          this.openString(i);
          this.state = 'key-string';
          break;
        case 'key-string': {
          const end = this.stringEnd(b);
          if (end < 0) {
            i = n;
            continue;
          }
          this.key = this.parse(b.toString('utf8', this.tokenStart, end + 1), i) as string;
          this.keys++;
          this.tokenStart = -1;
          this.state = 'colon';
          i = end + 1;
          continue;
        }
        case 'colon':
          if (isJsonSpace(c)) break;
          if (c !== COLON) throw this.unexpected(i);
          this.state = 'value';
          break;
        case 'value':
          if (isJsonSpace(c)) break;
          if (this.key === 'items' && c === LBRACKET) {
            this.items = [];
            setKey(this.result, 'items', this.items);
            this.required = false;
            this.state = 'element';
            break;
          }
          this.tokenStart = i;
          this.depth = 0;
          this.state = 'raw';
          continue; // this byte belongs to the value
        case 'element':
          if (isJsonSpace(c)) break;
          if (c === RBRACKET && !this.required) {
            this.flushBatch();
            this.state = 'next';
            break;
          }
          if (c === COMMA || c === RBRACKET || c === RBRACE || c === COLON)
            throw this.unexpected(i);
          this.beginElement(i);
          continue; // this byte belongs to the element
        case 'raw':
        case 'in-element': {
          const end = this.valueEnd(b, i);
          if (end < 0) {
            i = n;
            continue;
          }
          const closing = b[end]!;
          if (this.state === 'raw') {
            if (closing === RBRACKET) throw this.unexpected(end);
            setKey(
              this.result,
              this.key,
              this.parse(b.toString('utf8', this.tokenStart, end), this.tokenStart),
            );
            this.tokenStart = -1;
            this.required = closing === COMMA;
            this.state = closing === COMMA ? 'key' : 'done';
          } else {
            if (closing === RBRACE) throw this.unexpected(end);
            if (this.separator === undefined && this.fastMisses === 0) this.learn(b, end);
            if (this.batchStart < 0) this.batchStart = this.tokenStart;
            this.batchEnd = end;
            this.tokenStart = -1;
            if (closing === COMMA) {
              this.required = true;
              this.state = 'element';
              if (this.batchEnd - this.batchStart >= this.batchBytes) {
                this.flushBatch();
                if (handOver && this.separator !== undefined) {
                  this.pos = end + 1;
                  return true;
                }
              }
            } else {
              this.flushBatch();
              this.state = 'next';
            }
          }
          i = end;
          break;
        }
        case 'next':
          if (isJsonSpace(c)) break;
          if (c === COMMA) {
            this.required = true;
            this.state = 'key';
          } else if (c === RBRACE) {
            this.state = 'done';
          } else {
            throw this.unexpected(i);
          }
          break;
        case 'done':
          if (!isJsonSpace(c)) throw this.unexpected(i);
          break;
      }
      i++;
    }
    this.pos = i;
    return false;
  }

  /**
   * Compares the beginnings of the first two elements (the one ending at `end` is the current
   * token): their common prefix, cut after its last `":` so that it ends with a key, becomes the
   * separator. Too short a prefix (elements that begin differently) leaves the scanner alone.
   */
  private learn(b: Buffer, end: number): void {
    const head = b.subarray(this.tokenStart, Math.min(end, this.tokenStart + HEAD_BYTES));
    if (this.firstHead === undefined) {
      this.firstHead = Buffer.from(head);
      return;
    }
    const first = this.firstHead;
    let common = 0;
    while (common < first.length && common < head.length && first[common] === head[common])
      common++;
    const keyEnd = first.subarray(0, common).lastIndexOf('":');
    if (first[0] === LBRACE && keyEnd > 0) {
      this.separator = Buffer.concat([Buffer.of(COMMA), first.subarray(0, keyEnd + 2)]);
    } else {
      this.fastMisses = MAX_FAST_MISSES; // never learn again
    }
    this.firstHead = undefined;
  }

  /**
   * Scans the current value from `from` to the `,`, `}` or `]` that ends it at its own nesting
   * level; returns that delimiter's index, or -1 if the value goes on past the buffer.
   */
  private valueEnd(b: Buffer, from: number): number {
    const n = b.length;
    let depth = this.depth;
    let i = from;
    if (this.inString) {
      const end = this.stringEnd(b);
      if (end < 0) return -1;
      i = end + 1;
    }
    for (; i < n; i++) {
      const c = b[i]!;
      if (c === QUOTE) {
        this.openString(i);
        const end = this.stringEnd(b);
        if (end < 0) {
          this.depth = depth;
          return -1;
        }
        i = end;
      } else if (c === LBRACE || c === LBRACKET) {
        depth++;
      } else if (c === RBRACE || c === RBRACKET) {
        if (depth === 0) return i;
        depth--;
      } else if (c === COMMA && depth === 0) {
        return i;
      }
    }
    this.depth = depth;
    return -1;
  }

  private openString(at: number): void {
    this.inString = true;
    this.stringOpen = at;
    this.stringFrom = at + 1;
  }

  /** The index of the quote that closes the open string, or -1 if it is not in the buffer yet. */
  private stringEnd(b: Buffer): number {
    const quote = unescapedQuote(b, this.stringFrom, this.stringOpen + 1);
    if (quote < 0) {
      this.stringFrom = b.length;
      return -1;
    }
    this.inString = false;
    return quote;
  }

  /** Parses the complete elements [batchStart, batchEnd). */
  private flushBatch(): void {
    if (this.batchStart < 0) return;
    const start = this.batchStart;
    const end = this.batchEnd;
    this.batchStart = this.batchEnd = -1;
    const parsed = this.parseElements(start, end, (err) => {
      throw this.error(errorText(err), this.consumed + start, err);
    });
    this.deliver(parsed);
  }

  /**
   * Parses the text [start, end) as one array — or, where JSON.parse refuses it, returns what
   * `refused` makes of the error. The byte before the text (the `[`, a `,` or white space) and the
   * delimiter after it become `[` and `]` for the call, so the text is decoded once and never
   * copied into a bracketed one.
   */
  private parseElements<R>(start: number, end: number, refused: (err: unknown) => R): T[] | R {
    const b = this.buf;
    const open = start - 1;
    const before = b[open]!;
    const after = b[end]!;
    b[open] = LBRACKET;
    b[end] = RBRACKET;
    const text = b.toString('utf8', open, end + 1);
    b[open] = before;
    b[end] = after;
    try {
      return JSON.parse(text) as T[];
    } catch (err) {
      return refused(err);
    }
  }

  private deliver(parsed: T[]): void {
    const items = this.items;
    for (let k = 0; k < parsed.length; k++) items.push(parsed[k]!);
    this.onItems?.(parsed);
  }

  private parse(text: string, at: number): unknown {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw this.error(errorText(err), this.consumed + at, err);
    }
  }

  /**
   * Drops the bytes no token needs any more, keeping the one before a pending batch or element
   * (parseElements borrows it); indexes move with the new start.
   */
  private compact(): void {
    const first =
      this.batchStart >= 0 ? this.batchStart : this.tokenStart >= 0 ? this.tokenStart : this.pos;
    const keep = Math.max(0, first - 1);
    if (keep === 0) return;
    this.buf.copyWithin(0, keep, this.len);
    this.len -= keep;
    this.consumed += keep;
    this.pos -= keep;
    if (this.tokenStart >= 0) this.tokenStart -= keep;
    if (this.batchStart >= 0) {
      this.batchStart -= keep;
      this.batchEnd -= keep;
    }
    this.stringOpen -= keep;
    this.stringFrom = Math.max(0, this.stringFrom - keep);
  }

  private unexpected(i: number): CodecError {
    const c = this.buf[i]!;
    const what =
      c >= 0x20 && c < 0x7f ? JSON.stringify(String.fromCharCode(c)) : `byte 0x${c.toString(16)}`;
    return this.error(`unexpected ${what}`, this.consumed + i);
  }

  private error(message: string, offset: number, cause?: unknown): CodecError {
    return new CodecError(
      `cannot decode the list: ${message}`,
      offset,
      cause === undefined ? undefined : { cause },
    );
  }
}
