import { ApiError, type ListMeta } from '@listwatch/api';
import { encodeCbor, encodeCborItem } from './cbor.js';
import type { Encoding } from './encoding.js';
import { encodeProtobufListItem, protobufListFrame } from './protobuf/kube-protobuf.js';

/** A list without its items: what precedes `items` on the wire. */
export interface ListHead {
  kind?: string;
  apiVersion?: string;
  metadata: ListMeta;
}

export interface ListStreamOptions {
  /** Items are batched into chunks of about this many bytes (default 64 KiB). */
  chunkSize?: number;
  /**
   * Each item's encoding remembered by identity, across LISTs, for items that are never mutated
   * (a watch cache's objects): they are encoded once, not once per LIST, and a LIST becomes a
   * copy of bytes. One map per encoding; keyed weakly, so an encoding lives as long as its item.
   */
  encodings?: ItemEncodings;
}

/** Items' encodings, in one encoding, by item (see ListStreamOptions.encodings). */
export type ItemEncodings = WeakMap<object, Uint8Array>;

const DEFAULT_CHUNK_SIZE = 64 * 1024;

/**
 * Encodes a LIST item by item (KEP-5116): memory is one item's encoding plus one chunk, not the
 * whole response. The bytes are identical to encoding `{kind, apiVersion, metadata, items}` at
 * once — `JSON.stringify` for JSON, the same CBOR encoder for CBOR (self-described tag, a
 * definite-length items array).
 */
export function* encodeListStream(
  list: ListHead & { items: readonly unknown[] },
  encoding: Encoding,
  options: ListStreamOptions = {},
): Generator<Uint8Array, void, undefined> {
  if (encoding === 'protobuf') {
    yield* protobufList(list, list.items, options);
    return;
  }
  const chunker = new Chunker(options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  const writer =
    encoding === 'json' ? new JsonListWriter(list) : new CborListWriter(list, list.items.length);
  let out = chunker.add(writer.head());
  if (out) yield out;
  for (let i = 0; i < list.items.length; i++) {
    yield* itemChunks(chunker, writer, list.items[i], i === 0, options.encodings);
  }
  out = chunker.add(writer.tail());
  if (out) yield out;
  out = chunker.flush();
  if (out) yield out;
}

/**
 * The same from items produced asynchronously (e.g. pages read from storage). CBOR needs the item
 * count up front (its array is definite-length); a source that yields a different number of items
 * is an internal error.
 */
export async function* encodeListStreamAsync(
  head: ListHead,
  items: AsyncIterable<unknown> | Iterable<unknown>,
  encoding: Encoding,
  options: ListStreamOptions & { count?: number } = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  if (encoding === 'cbor' && options.count === undefined) {
    throw ApiError.internalError(new Error('a CBOR list stream needs the item count'));
  }
  if (encoding === 'protobuf') {
    const all: unknown[] = [];
    for await (const item of items) all.push(item);
    yield* protobufList(head, all, options);
    return;
  }
  const chunker = new Chunker(options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  const writer =
    encoding === 'json' ? new JsonListWriter(head) : new CborListWriter(head, options.count ?? 0);
  let out = chunker.add(writer.head());
  if (out) yield out;
  let count = 0;
  for await (const item of items) {
    yield* itemChunks(chunker, writer, item, count === 0, options.encodings);
    count++;
  }
  if (options.count !== undefined && count !== options.count) {
    throw ApiError.internalError(
      new Error(`list stream expected ${options.count} items, got ${count}`),
    );
  }
  out = chunker.add(writer.tail());
  if (out) yield out;
  out = chunker.flush();
  if (out) yield out;
}

/** One turn of the event loop: timers and I/O that are due run before this resolves. */
export const yieldToEventLoop = (): Promise<void> =>
  new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Chunks handed on one per event-loop turn. A LIST of 30,000 pods is ~180 MB to encode; pulled
 * from a synchronous encoder by a socket that keeps draining (a client on another process), it
 * runs in one go and every other request waits on the single event loop for seconds (issue 35:
 * mutating p99 > 1 s while cluster-wide LISTs run). Between two chunks other requests are read
 * and answered; memory is still one chunk, pulled as the socket drains. As kube-apiserver, where
 * each request has its goroutine, a LIST delays others by its CPU, never by its whole length.
 */
export async function* yieldingChunks(
  chunks: Iterator<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  const iterator = Symbol.iterator in chunks ? chunks[Symbol.iterator]() : chunks;
  for (let next = iterator.next(); !next.done; next = iterator.next()) {
    yield next.value;
    await yieldToEventLoop();
  }
}

interface ListWriter {
  head(): Uint8Array;
  /** Written between items. */
  readonly separator: Uint8Array | undefined;
  item(item: unknown): Uint8Array;
  tail(): Uint8Array;
}

/** Adds one item (after the separator unless it is the first); yields the chunks that fill up. */
function* itemChunks(
  chunker: Chunker,
  writer: ListWriter,
  item: unknown,
  first: boolean,
  encodings: ItemEncodings | undefined,
): Generator<Uint8Array, void, undefined> {
  let out = first || !writer.separator ? undefined : chunker.add(writer.separator);
  if (out) yield out;
  out = chunker.add(encodeItem(writer, item, encodings));
  if (out) yield out;
}

function encodeItem(
  writer: ListWriter,
  item: unknown,
  encodings: ItemEncodings | undefined,
): Uint8Array {
  if (encodings === undefined || typeof item !== 'object' || item === null)
    return writer.item(item);
  let bytes = encodings.get(item);
  if (bytes === undefined) {
    bytes = writer.item(item);
    encodings.set(item, bytes);
  }
  return bytes;
}

/**
 * A protobuf list: the envelope declares the size of the whole list before its items, so every
 * item is encoded (or found in `encodings`) first, as Go's streamingEncodeUnknownList sizes them.
 */
function* protobufList(
  head: ListHead,
  items: readonly unknown[],
  options: ListStreamOptions,
): Generator<Uint8Array, void, undefined> {
  const encoded = items.map((item) => {
    const cache = typeof item === 'object' && item !== null ? options.encodings : undefined;
    let bytes = cache?.get(item as object);
    if (!bytes) {
      bytes = encodeProtobufListItem(head, item);
      cache?.set(item as object, bytes);
    }
    return bytes;
  });
  const frame = protobufListFrame(
    head,
    encoded.reduce((n, b) => n + b.length, 0),
  );
  const chunker = new Chunker(options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  for (const piece of [frame.head, ...encoded, frame.tail]) {
    const out = chunker.add(piece);
    if (out) yield out;
  }
  const out = chunker.flush();
  if (out) yield out;
}

const COMMA = Buffer.from(',');

class JsonListWriter implements ListWriter {
  readonly separator = COMMA;

  constructor(private readonly list: ListHead) {}

  head(): Uint8Array {
    const { kind, apiVersion, metadata } = this.list;
    // Stringify the head with an empty items array and cut before `]}`: exactly the prefix
    // JSON.stringify writes for the whole list, undefined fields dropped the same way.
    const text = JSON.stringify({ kind, apiVersion, metadata, items: [] });
    return Buffer.from(text.slice(0, -2), 'utf8');
  }

  item(item: unknown): Uint8Array {
    // Inside an array JSON.stringify writes undefined as null.
    return Buffer.from(JSON.stringify(item) ?? 'null', 'utf8');
  }

  tail(): Uint8Array {
    return Buffer.from(']}', 'utf8');
  }
}

class CborListWriter implements ListWriter {
  readonly separator = undefined;

  constructor(
    private readonly list: ListHead,
    private readonly count: number,
  ) {}

  head(): Uint8Array {
    const { kind, apiVersion, metadata } = this.list;
    // `items` is the last key, so the document ends with the empty array's header (0x80):
    // replace it with the header for `count` items, written as cbor-x writes array headers.
    const whole = encodeCbor({ kind, apiVersion, metadata, items: [] });
    const header = arrayHeader(this.count);
    const out = Buffer.allocUnsafe(whole.length - 1 + header.length);
    out.set(whole.subarray(0, whole.length - 1), 0);
    out.set(header, whole.length - 1);
    return out;
  }

  item(item: unknown): Uint8Array {
    return encodeCborItem(item);
  }

  tail(): Uint8Array {
    return new Uint8Array(0);
  }
}

/** The shortest CBOR array header for `n` elements. */
function arrayHeader(n: number): Uint8Array {
  if (n < 24) return Uint8Array.of(0x80 | n);
  if (n < 0x100) return Uint8Array.of(0x98, n);
  if (n < 0x10000) return Uint8Array.of(0x99, n >> 8, n & 0xff);
  return Uint8Array.of(0x9a, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** Batches small pieces into chunks of about `size` bytes; a large piece passes through alone. */
class Chunker {
  private parts: Uint8Array[] = [];
  private bytes = 0;

  constructor(private readonly size: number) {}

  add(piece: Uint8Array): Uint8Array | undefined {
    if (piece.length === 0) return undefined;
    this.parts.push(piece);
    this.bytes += piece.length;
    return this.bytes >= this.size ? this.flush() : undefined;
  }

  flush(): Uint8Array | undefined {
    if (this.bytes === 0) return undefined;
    const out = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    return out;
  }
}
