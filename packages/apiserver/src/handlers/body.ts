import { ApiError } from '@listwatch/api';
import { CodecError, decodeCbor } from '@listwatch/codec';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { decodeKubeProtobuf, PROTOBUF_MEDIA_TYPE } from '../protobuf/kube-protobuf.js';

/** Reads the whole request body; past `limit` bytes it is a 413 and the rest is not buffered. */
export async function readBody(
  req: IncomingMessage | Http2ServerRequest,
  limit: number,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): ApiError {
  return ApiError.requestEntityTooLarge(`limit is ${limit}`);
}

/** The media type of a Content-Type header, without parameters, lower-cased. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Decodes a create/update body: JSON, CBOR or (some kinds') protobuf; anything else is 415. */
export function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  const type = mediaType(contentType);
  if (body.length === 0) throw ApiError.badRequest('the body of the request is empty');
  if (
    type === 'application/json' ||
    type === '' ||
    type === 'application/vnd.kubernetes.protobuf+json'
  ) {
    try {
      return JSON.parse(body.toString('utf8')) as unknown;
    } catch (err) {
      throw ApiError.badRequest(`error decoding the body: ${(err as Error).message}`);
    }
  }
  // kubectl's typed clients (`kubectl create namespace|configmap|secret`) send protobuf.
  if (type === PROTOBUF_MEDIA_TYPE) return decodeKubeProtobuf(body);
  if (type === 'application/cbor') {
    try {
      return decodeCbor(body);
    } catch (err) {
      if (err instanceof CodecError) throw ApiError.badRequest(err.message);
      throw ApiError.badRequest('error decoding the CBOR body');
    }
  }
  throw ApiError.unsupportedMediaType(type);
}
