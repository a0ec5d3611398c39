import { ApiError, type StatusReason } from '@listwatch/api';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Connecter } from '../registry/rest/rest.js';
import { requireName, type RequestScope } from './request-scope.js';

// A GET that streams another server's answer (k8s.io/apiserver pkg/registry/generic/rest/
// streamer.go LocationStreamer and response_checker.go): pods/log from the pod's kubelet.

/** How long the upstream may take to answer (its headers); the body then streams for as long as it lasts. */
const UPSTREAM_HEADERS_TIMEOUT_MS = 30_000;

/** genericHttpResponseChecker: an upstream error becomes a Status with its code and body. */
async function upstreamError(res: Response, resource: string, name: string): Promise<ApiError> {
  const text = (await res.text().catch(() => '')).trim();
  const code = res.status;
  const reasons: Readonly<Record<number, StatusReason>> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    409: 'Conflict',
  };
  return new ApiError({
    code,
    reason: reasons[code] ?? 'InternalError',
    message: text || `the server responded with the status code ${code} for ${resource} ${name}`,
  });
}

/** GET (or POST, for exec and the like) of a connect subresource: its storage's location streamed. */
export async function serveConnect(scope: RequestScope, storage: Connecter): Promise<void> {
  const name = requireName(scope);
  const location = await storage.connect(scope.context, name, scope.query);
  const { ctx } = scope;
  if (!location) {
    ctx.status = 200;
    ctx.type = 'text/plain';
    ctx.body = '';
    return;
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), UPSTREAM_HEADERS_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(location.url, { signal: abort.signal });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    throw ApiError.internalError(
      new Error(
        `Get "${location.url.toString()}": ${cause instanceof Error ? cause.message : String(cause)}`,
      ),
    );
  } finally {
    clearTimeout(timer);
  }
  if (!res.ok || !res.body) throw await upstreamError(res, location.resource, name);
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  // The client leaving ends the upstream request too.
  ctx.req.once('close', () => body.destroy());
  ctx.status = 200;
  ctx.type = location.contentType;
  if (location.flush) ctx.set('Cache-Control', 'no-cache');
  ctx.body = body;
}
