import {
  apiVersionOf,
  type KubeList,
  type KubeObject,
  type ListMeta,
  statusOf,
  type ResourceDefinition,
  type Status,
} from '@listwatch/api';
import {
  asPartialObjectMetadata,
  asPartialObjectMetadataList,
  canEncodeProtobuf,
  encodeCbor,
  encodeListStream,
  encodeProtobuf,
  negotiateObject,
  parseIncludeObject,
  toTable,
  type Encoding,
  type ItemEncodings,
  type NegotiatedCodec,
  yieldingChunks,
} from '@listwatch/codec';
import type Koa from 'koa';
import { Readable } from 'node:stream';
import { createGzip, constants as zlib } from 'node:zlib';

/** kube-apiserver compresses a response only when its first write is larger than this. */
const GZIP_THRESHOLD = 128 * 1024;

function acceptsGzip(ctx: Koa.Context): boolean {
  return /\bgzip\b/i.test(ctx.get('accept-encoding'));
}

/** The object, or list, in the form the client negotiated (Table, metadata only, or itself). */
function transform(
  ctx: Koa.Context,
  codec: NegotiatedCodec,
  value: KubeObject | KubeList,
  definition: ResourceDefinition | undefined,
): unknown {
  if (!codec.as || !definition) return value;
  const version = codec.version ?? 'v1';
  if (codec.as === 'Table') {
    return toTable(definition, value, {
      includeObject: parseIncludeObject(ctx.query['includeObject'] as string | undefined),
      version,
    });
  }
  if (codec.as === 'PartialObjectMetadata') return asPartialObjectMetadata(value, version);
  return asPartialObjectMetadataList(value, version);
}

function encode(codec: NegotiatedCodec, value: unknown): Buffer {
  if (codec.encoding === 'cbor') return Buffer.from(encodeCbor(value));
  if (codec.encoding === 'protobuf') return Buffer.from(encodeProtobuf(value));
  return Buffer.from(
    codec.pretty ? `${JSON.stringify(value, null, 2)}\n` : `${JSON.stringify(value)}\n`,
  );
}

/** Sends bytes, gzipped (level 1, as kube) when large and the client accepts it. */
function send(
  ctx: Koa.Context,
  status: number,
  contentType: string,
  body: Buffer | Iterable<Uint8Array>,
): void {
  ctx.status = status;
  ctx.type = contentType;
  if (Buffer.isBuffer(body)) {
    if (body.length > GZIP_THRESHOLD && acceptsGzip(ctx)) {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = Readable.from([body]).pipe(createGzip({ level: zlib.Z_BEST_SPEED }));
    } else {
      ctx.body = body;
    }
    return;
  }
  // A streamed list: hold the first chunks until we know whether it passes the threshold.
  const iterator = body[Symbol.iterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size <= GZIP_THRESHOLD) {
    const next = iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  if (done) {
    ctx.body = Buffer.concat(head);
    return;
  }
  // The rest one chunk per event-loop turn: a large LIST must not hold up every other request.
  const rest = (async function* () {
    yield* head;
    yield* yieldingChunks(iterator);
  })();
  const stream = Readable.from(rest, { objectMode: false });
  if (acceptsGzip(ctx)) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = stream.pipe(createGzip({ level: zlib.Z_BEST_SPEED }));
  } else {
    ctx.body = stream;
  }
}

/** Writes one object (or Status) in the negotiated encoding and form. */
export function writeObject(
  ctx: Koa.Context,
  status: number,
  object: KubeObject | Status,
  definition?: ResourceDefinition,
): void {
  // Protobuf for the kinds of the schema source, as kube-apiserver serves built-in kinds.
  const codec = negotiateObject(ctx.get('accept'), {
    table: definition !== undefined,
    protobuf: canEncodeProtobuf(object),
  });
  const value =
    object.kind === 'Status'
      ? statusOf(object as Status)
      : transform(ctx, codec, object as KubeObject, definition);
  send(ctx, status, codec.contentType, encode(codec, value));
}

/** A typed list (PodList, ...) of `items`. */
export function listOf(
  definition: ResourceDefinition,
  metadata: ListMeta,
  items: KubeObject[],
): KubeList {
  return { kind: definition.listKind, apiVersion: apiVersionOf(definition), metadata, items };
}

/**
 * Writes a list item by item (KEP-5116): memory bounded by a chunk, not the whole response.
 * `encodings` remembers items' encodings across LISTs: only for items that are never mutated.
 */
export function writeList(
  ctx: Koa.Context,
  list: KubeList,
  definition: ResourceDefinition,
  encodings?: Record<Encoding, ItemEncodings>,
): void {
  const codec = negotiateObject(ctx.get('accept'), {
    table: true,
    protobuf: canEncodeProtobuf(list),
  });
  if (codec.as || (codec.pretty && codec.encoding === 'json')) {
    send(ctx, 200, codec.contentType, encode(codec, transform(ctx, codec, list, definition)));
    return;
  }
  const options = encodings ? { encodings: encodings[codec.encoding] } : {};
  send(ctx, 200, codec.contentType, encodeListStream(list, codec.encoding, options));
}

/** An error response: the Status in the negotiated encoding, JSON when nothing else fits. */
export function writeStatus(ctx: Koa.Context, status: Status): void {
  let codec: NegotiatedCodec;
  try {
    codec = negotiateObject(ctx.get('accept'), { protobuf: canEncodeProtobuf(status) });
  } catch {
    codec = { encoding: 'json', table: false, contentType: 'application/json', pretty: false };
  }
  ctx.status = status.code;
  ctx.type = codec.contentType;
  if (status.details?.retryAfterSeconds)
    ctx.set('Retry-After', String(status.details.retryAfterSeconds));
  ctx.body = encode(codec, statusOf(status));
}
