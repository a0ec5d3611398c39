import { ApiError } from '@listwatch/api';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

const EMPTY = Buffer.alloc(0);

/**
 * Complete elements are parsed once they add up to this much: a string this large is allocated
 * outside V8's young generation, which then holds only the parsed objects — all of which live
 * on — and can be promoted page by page instead of object by object.
 */
const BATCH_BYTES = 256 * 1024;

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
 * LIST item by item, KEP-5116), instead of after the whole body was buffered and turned into one
 * giant string. A light scanner finds the element boundaries of the top-level `items` array
 * (it follows only strings and nesting, jumping from quote to quote); the elements completed by
 * a chunk are parsed with one JSON.parse. The result equals `JSON.parse` of the whole document;
 * malformed input fails as JSON.parse would, with an ApiError.
 */
export class JsonListDecoder<T = unknown> {
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

  /** `onItems` sees each batch of items as it is parsed (they are collected either way). */
  constructor(private readonly onItems?: (items: T[]) => void) {}

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.append(chunk);
    this.scan();
    if (this.batchStart >= 0 && this.batchEnd - this.batchStart >= BATCH_BYTES) this.flushBatch();
  }

  /** The whole list; throws if the document is incomplete. */
  end(): Record<string, unknown> & { items?: T[] } {
    if (this.state !== 'done') {
      const empty = this.state === 'start' && this.consumed + this.len === 0;
      throw this.error(empty ? 'empty body' : 'unexpected end of data');
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

  private scan(): void {
    // A view of the valid bytes: indexOf must not find quotes in stale bytes past them.
    const b = this.buf.subarray(0, this.len);
    const n = b.length;
    let i = this.pos;
    while (i < n) {
      const c = b[i]!;
      switch (this.state) {
        case 'start':
          if (isSpace(c)) break;
          if (c !== LBRACE) throw this.unexpected(i);
          this.state = 'key';
          break;
        case 'key':
          if (isSpace(c)) break;
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
          this.key = this.parse(b.toString('utf8', this.tokenStart, end + 1)) as string;
          this.keys++;
          this.tokenStart = -1;
          this.state = 'colon';
          i = end + 1;
          continue;
        }
        case 'colon':
          if (isSpace(c)) break;
          if (c !== COLON) throw this.unexpected(i);
          this.state = 'value';
          break;
        case 'value':
          if (isSpace(c)) break;
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
          if (isSpace(c)) break;
          if (c === RBRACKET && !this.required) {
            this.flushBatch();
            this.state = 'next';
            break;
          }
          if (c === COMMA || c === RBRACKET || c === RBRACE || c === COLON)
            throw this.unexpected(i);
          this.tokenStart = i;
          this.depth = 0;
          this.state = 'in-element';
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
            setKey(this.result, this.key, this.parse(b.toString('utf8', this.tokenStart, end)));
            this.tokenStart = -1;
            this.required = closing === COMMA;
            this.state = closing === COMMA ? 'key' : 'done';
          } else {
            if (closing === RBRACE) throw this.unexpected(end);
            if (this.batchStart < 0) this.batchStart = this.tokenStart;
            this.batchEnd = end;
            this.tokenStart = -1;
            if (closing === COMMA) {
              this.required = true;
              this.state = 'element';
            } else {
              this.flushBatch();
              this.state = 'next';
            }
          }
          i = end;
          break;
        }
        case 'next':
          if (isSpace(c)) break;
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
          if (!isSpace(c)) throw this.unexpected(i);
          break;
      }
      i++;
    }
    this.pos = i;
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

  /**
   * The index of the quote that closes the open string, or -1 if it is not in the buffer yet.
   * Jumps from quote to quote; a quote after an odd run of backslashes is escaped.
   */
  private stringEnd(b: Buffer): number {
    let from = this.stringFrom;
    for (;;) {
      const q = b.indexOf(QUOTE, from);
      if (q < 0) {
        this.stringFrom = b.length;
        return -1;
      }
      let slashes = 0;
      for (let j = q - 1; j > this.stringOpen && b[j] === BACKSLASH; j--) slashes++;
      if (slashes % 2 === 0) {
        this.inString = false;
        return q;
      }
      from = q + 1;
    }
  }

  /**
   * Parses the complete elements [batchStart, batchEnd) as one array: the byte before them (the
   * `[`, a `,` or white space) and the delimiter after them become `[` and `]` for the call,
   * so the text is decoded once and never copied into a bracketed one.
   */
  private flushBatch(): void {
    if (this.batchStart < 0) return;
    const b = this.buf;
    const open = this.batchStart - 1;
    const close = this.batchEnd;
    this.batchStart = this.batchEnd = -1;
    const before = b[open]!;
    const after = b[close]!;
    b[open] = LBRACKET;
    b[close] = RBRACKET;
    const text = b.toString('utf8', open, close + 1);
    b[open] = before;
    b[close] = after;
    const parsed = this.parse(text) as T[];
    const items = this.items;
    for (let k = 0; k < parsed.length; k++) items.push(parsed[k]!);
    this.onItems?.(parsed);
  }

  private parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw this.error(err instanceof Error ? err.message : String(err), err);
    }
  }

  /**
   * Drops the bytes no token needs any more, keeping the one before a pending batch or element
   * (flushBatch borrows it); indexes move with the new start.
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

  private unexpected(i: number): ApiError {
    const c = this.buf[i]!;
    const what =
      c >= 0x20 && c < 0x7f ? JSON.stringify(String.fromCharCode(c)) : `byte 0x${c.toString(16)}`;
    return this.error(`unexpected ${what} at byte ${this.consumed + i}`);
  }

  private error(message: string, cause?: unknown): ApiError {
    return new ApiError(
      { code: 500, reason: 'InternalError', message: `cannot decode the list: ${message}` },
      cause === undefined ? undefined : { cause },
    );
  }
}
