import { createHash } from 'node:crypto';
import { encodeProtobuf, PROTOBUF_MEDIA_TYPE } from '@listwatch/codec';
import type { Context } from 'koa';

/**
 * The entity tag kube puts on discovery and OpenAPI documents: the SHA-512 of the body in upper-
 * case hex (aggregated/etag.go calculateETag, kube-openapi handler3 computeETag). Unquoted; it is
 * also the `hash` of an OpenAPI v3 document URL.
 */
export function computeETag(body: Uint8Array | string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

/** The entity tags an If-None-Match header lists (opaque parts, `W/` dropped), or `*`. */
export function parseIfNoneMatch(header: string | undefined): '*' | string[] {
  if (header === undefined) return [];
  if (header.trim() === '*') return '*';
  const tags: string[] = [];
  // Entity tags cannot contain `"` (RFC 9110 §8.8.3), so a tag is W/"..." or "...". Bare tokens
  // are accepted too: some clients send the hash unquoted.
  const pattern = /\s*(?:W\/)?(?:"([^"]*)"|([^\s,"]+))\s*(?:,|$)/gy;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < header.length && (match = pattern.exec(header)) !== null) {
    tags.push(match[1] ?? match[2] ?? '');
    if (match[0] === '') break;
  }
  return tags;
}

/** Weak comparison (RFC 9110 §13.1.2), which is what If-None-Match uses. */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  const tags = parseIfNoneMatch(header);
  return tags === '*' || tags.includes(etag);
}

/** A response body ready to send, with its entity tag. */
export interface Representation {
  body: Buffer;
  contentType: string;
  etag: string;
}

export function representation(value: unknown, contentType = 'application/json'): Representation {
  const body = Buffer.from(JSON.stringify(value));
  return { body, contentType, etag: computeETag(body) };
}

/**
 * Sends a document with its quoted ETag, or 304 Not Modified when the client already has it.
 * `Cache-Control` defaults to kube-apiserver's global `no-cache, private` (filters/cachecontrol.go);
 * aggregated discovery says `public`, hashed OpenAPI documents `public, immutable`.
 */
/**
 * A legacy discovery document in protobuf. The core group's documents have no apiVersion in
 * JSON; their envelope says v1, the version of the metav1 kinds.
 */
export function protobufRepresentation(value: unknown): Representation {
  const object = value as { apiVersion?: string };
  const body = Buffer.from(encodeProtobuf({ ...object, apiVersion: object.apiVersion ?? 'v1' }));
  return { body, contentType: PROTOBUF_MEDIA_TYPE, etag: computeETag(body) };
}

export function respondWithETag(
  ctx: Context,
  doc: Representation,
  options: { cacheControl?: string; vary?: string; expires?: Date } = {},
): void {
  ctx.set('ETag', `"${doc.etag}"`);
  ctx.set('Cache-Control', options.cacheControl ?? 'no-cache, private');
  if (options.vary) ctx.set('Vary', options.vary);
  if (options.expires) ctx.set('Expires', options.expires.toUTCString());
  if (ifNoneMatchMatches(ctx.get('If-None-Match') || undefined, doc.etag)) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  ctx.status = 200;
  // Set the exact type before the body so koa neither guesses one nor appends a charset: kubectl
  // matches the aggregated discovery type by its parameters.
  ctx.set('Content-Type', doc.contentType);
  ctx.body = doc.body;
}
