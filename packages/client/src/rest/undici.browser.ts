// What the client takes from undici, over the browser's fetch and WebSocket (package.json's
// "browser" field puts this module in undici's place when bundling for one). Only what
// request.ts and watch-stream.ts call: `request` and `WebSocket`; connection pools are the
// browser's own (transport.browser.ts).

/** undici's ResponseData, as far as the client reads it. */
interface ResponseData {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: ResponseBody;
}

interface ResponseBody extends AsyncIterable<Buffer> {
  arrayBuffer(): Promise<ArrayBuffer>;
}

interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** Set by the browser's refusals (see `request`): a connection error the retry rules know. */
class FetchError extends Error {
  readonly code = 'ECONNREFUSED';
}

/**
 * undici.request over fetch. A fetch that fails before any answer (refused, reset, a CORS
 * refusal: the browser does not say which) is a connection error, as a refused connection is.
 */
export async function request(url: URL | string, options: RequestOptions): Promise<ResponseData> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? 'GET',
      // User-Agent and Accept-Encoding are the browser's: it ignores what is set.
      ...(options.headers ? { headers: withoutForbidden(options.headers) } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new FetchError(`fetch ${String(url)} failed: ${String(err)}`, { cause: err });
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { statusCode: response.status, headers, body: bodyOf(response) };
}

const FORBIDDEN = new Set(['user-agent', 'accept-encoding', 'connection', 'host']);

function withoutForbidden(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([k]) => !FORBIDDEN.has(k.toLowerCase())),
  );
}

/** A fetch body read either whole or chunk by chunk as it streams in (a watch). */
function bodyOf(response: Response): ResponseBody {
  return {
    arrayBuffer: () => response.arrayBuffer(),
    async *[Symbol.asyncIterator]() {
      if (!response.body) return;
      const reader = response.body.getReader();
      try {
        for (;;) {
          const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
          const bytes = chunk.value;
          if (chunk.done || !bytes) return;
          yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        }
      } finally {
        reader.releaseLock();
      }
    },
  };
}

/**
 * undici's WebSocket constructor (url, { protocols }) on the browser's. A browser sends its own
 * Origin and no other headers: the bearer token travels as a subprotocol (bearerSubprotocol).
 * A handshake that fails is, as a fetch that fails, a refused connection: the browser does not
 * say why (refused, reset, an HTTP error), and a reflector then re-watches from its
 * resourceVersion instead of relisting everything.
 */
export class WebSocket extends globalThis.WebSocket {
  constructor(url: URL | string, options: { protocols?: string[] } = {}) {
    super(url, options.protocols ?? []);
    this.addEventListener('error', (ev) => {
      if (this.readyState === globalThis.WebSocket.OPEN) return;
      const error = new FetchError(`websocket ${String(url)} failed`);
      Object.defineProperty(ev, 'error', { value: error });
    });
  }
}
