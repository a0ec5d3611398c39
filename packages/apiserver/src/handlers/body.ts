import { ApiError } from '@listwatch/api';
import {
  CBOR_MEDIA_TYPE,
  CodecError,
  decodeCbor,
  decodeProtobuf,
  duplicateJsonFields,
  DuplicateMapKeyError,
  JSON_MEDIA_TYPE,
  PROTOBUF_MEDIA_TYPE,
  REQUEST_BODY_MEDIA_TYPES,
  YAML_MEDIA_TYPE,
  type DuplicateField,
} from '@listwatch/codec';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { parseDocument, type Tags } from 'yaml';

type Request = IncomingMessage | Http2ServerRequest;

/**
 * The client went away while sending its request (a reset or a half-sent body): nothing to
 * answer. Counted and logged as the client's doing (code 499), never as a server error.
 */
export class ClientClosedRequest extends Error {
  constructor() {
    super('the client closed the connection before the request was complete');
  }
}

/** A request's body, read once: the request-body middleware reads it first, handlers reuse it. */
const bodies = new WeakMap<Request, Promise<Buffer>>();
const settled = new WeakMap<Request, Buffer>();

/**
 * Reads the whole request body; past `limit` bytes it is a 413 and the rest is not buffered.
 * With `timeoutMs`, a body still arriving after that long is a 408 (a slow client may not hold
 * the request open). Read once per request: later calls get the same body.
 */
/** The body of a request already read in full, or undefined (for the audit log). */
export function bodyIfRead(req: Request): Buffer | undefined {
  return settled.get(req);
}

export function readBody(req: Request, limit: number, timeoutMs = 0): Promise<Buffer> {
  let body = bodies.get(req);
  if (!body) {
    body = readAll(req, limit, timeoutMs);
    bodies.set(req, body);
  }
  return body;
}

/** A body being read: its state lives on the request, so the listeners are shared by all. */
interface Reading {
  chunks: Buffer[];
  size: number;
  limit: number;
  timer: NodeJS.Timeout | undefined;
  resolve(bytes: Buffer): void;
  reject(err: Error): void;
}

const READING = Symbol('reading');
type ReadingRequest = Request & { [READING]?: Reading | undefined };

function readAll(req: ReadingRequest, limit: number, timeoutMs: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    req[READING] = {
      chunks: [],
      size: 0,
      limit,
      timer: timeoutMs > 0 ? setTimeout(onTimeout, timeoutMs, req, timeoutMs) : undefined,
      resolve,
      reject,
    };
    req.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
  });
}

function finishReading(req: ReadingRequest, err?: Error): void {
  const reading = req[READING];
  if (!reading) return;
  req[READING] = undefined;
  clearTimeout(reading.timer);
  req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
  if (err) return reading.reject(err);
  const bytes = Buffer.concat(reading.chunks);
  settled.set(req, bytes);
  reading.resolve(bytes);
}

function onData(this: ReadingRequest, chunk: Buffer): void {
  const reading = this[READING];
  if (!reading) return;
  reading.size += chunk.length;
  if (reading.size > reading.limit) finishReading(this, tooLarge(reading.limit));
  else reading.chunks.push(chunk);
}

function onEnd(this: ReadingRequest): void {
  finishReading(this);
}

// A close or error before the end: the client reset or went away mid-upload.
function onGone(this: ReadingRequest): void {
  finishReading(this, new ClientClosedRequest());
}

function onTimeout(req: ReadingRequest, timeoutMs: number): void {
  finishReading(req, bodyTimeout(timeoutMs));
}

function bodyTimeout(timeoutMs: number): ApiError {
  return new ApiError({
    code: 408,
    reason: 'Timeout',
    message: `the request body did not arrive within ${timeoutMs / 1000}s`,
  });
}

function tooLarge(limit: number): ApiError {
  return ApiError.requestEntityTooLarge(`limit is ${limit}`);
}

/** The media type of a Content-Type header, without parameters, lower-cased. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** sigs.k8s.io/yaml reads YAML 1.1 (go-yaml v2): `yes` and `on` are booleans, timestamps strings. */
const YAML_OPTIONS = {
  version: '1.1',
  uniqueKeys: false,
  customTags: (tags: Tags) =>
    tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
} as const;

/**
 * One YAML document as the JSON value it stands for (yaml.YAMLToJSON); a malformed one is an
 * Error with the parser's words.
 */
export function yamlToJson(text: string): unknown {
  const doc = parseDocument(text, YAML_OPTIONS);
  if (doc.errors.length) throw new Error(doc.errors[0]?.message ?? 'invalid YAML');
  return doc.toJS({ maxAliasCount: 100 }) as unknown;
}

/**
 * Decodes a create/update body in any of REQUEST_BODY_MEDIA_TYPES: JSON, YAML, protobuf (any kind
 * of the schema source, as kubectl's typed clients send them) or CBOR; anything else is 415.
 */
export function decodeBody(
  body: Buffer,
  contentType: string | undefined,
  /** Filled with a JSON body's duplicated keys, when given (strict decoding: Warn and Strict). */
  duplicates?: DuplicateField[],
): unknown {
  const type = mediaType(contentType);
  if (body.length === 0) throw ApiError.badRequest('the body of the request is empty');
  if (type === JSON_MEDIA_TYPE || type === '' || type === `${PROTOBUF_MEDIA_TYPE}+json`) {
    const text = body.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (err) {
      throw ApiError.badRequest(`error decoding the body: ${(err as Error).message}`);
    }
    if (duplicates) duplicates.push(...duplicateJsonFields(text, value));
    return value;
  }
  if (type === YAML_MEDIA_TYPE) {
    try {
      return yamlToJson(body.toString('utf8'));
    } catch (err) {
      throw ApiError.badRequest(`error converting YAML to JSON: ${(err as Error).message}`);
    }
  }
  if (type === PROTOBUF_MEDIA_TYPE) {
    try {
      return decodeProtobuf(body);
    } catch (err) {
      if (err instanceof CodecError) throw ApiError.badRequest(err.message);
      throw ApiError.badRequest('error decoding the protobuf body');
    }
  }
  if (type === CBOR_MEDIA_TYPE) {
    try {
      return decodeCbor(body);
    } catch (err) {
      // A repeated map key is the caller's to word (it names the kind the body was meant for).
      if (err instanceof DuplicateMapKeyError) throw err;
      if (err instanceof CodecError) throw ApiError.badRequest(err.message);
      throw ApiError.badRequest('error decoding the CBOR body');
    }
  }
  throw ApiError.unsupportedMediaType(REQUEST_BODY_MEDIA_TYPES);
}
