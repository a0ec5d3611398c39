import type { Logger } from '@listwatch/api';
import type { Storage } from '@listwatch/storage';
import type { ResourceRegistry } from './registry/resource-registry.js';
import type { ServerContext } from './server-context.js';
import type { Listeners, RequestHandler } from './transports/listeners.js';

// Graceful termination, as kube-apiserver's on SIGTERM (k8s.io/apiserver pkg/server
// genericapiserver.go and filters/with_retry_after.go): stop accepting, end watches cleanly,
// answer re-watches 429 with Connection: close for a moment, let in-flight requests finish, let
// keep-alive connections bring what is already on its way, then close storage.

/** How long shutdown answers re-watches 429 after ending the watch streams. */
const RETRY_AFTER_WINDOW_MS = 250;

/** How long shutdown waits for in-flight requests before closing connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** How long idle keep-alive connections may still bring a request once shutdown has begun. */
const SHUTDOWN_LINGER_MS = 2_000;
const SHUTDOWN_QUIET_MS = 250;

/** The requests being served: shutdown waits for them (writes acknowledged are never cut off). */
export class InFlightRequests {
  private active = 0;
  private lastRequestAt = 0;
  private drained: (() => void) | undefined;
  // One listener for every response ('close' comes once): no closure per open watch.
  private readonly responseClosed = () => {
    if (--this.active === 0) this.drained?.();
  };

  /** `callback` counted, and told to close connections once shutdown has begun. */
  handler(callback: RequestHandler, context: ServerContext): RequestHandler {
    return (req, res) => {
      this.active++;
      this.lastRequestAt = Date.now();
      // While shutting down, an HTTP/1.1 connection closes after its response, so its client's
      // next request opens a new one, which a load balancer sends to another replica.
      if (context.shuttingDown && req.httpVersionMajor === 1) res.setHeader('Connection', 'close');
      res.on('close', this.responseClosed);
      // Shutting down: no connection is kept for another request (WithRetryAfter's
      // Connection: close), so clients reconnect, to the next apiserver, rather than reuse one
      // about to close.
      if (context.shuttingDown && 'shouldKeepAlive' in res) res.shouldKeepAlive = false;
      callback(req, res);
    };
  }

  /** Resolves once none is in flight, or after `ms`. */
  async drain(ms: number): Promise<void> {
    if (this.active === 0) return;
    await Promise.race([
      new Promise<void>((resolve) => (this.drained = resolve)),
      new Promise((resolve) => setTimeout(resolve, ms)),
    ]);
  }

  /** Milliseconds since the last request began. */
  quietFor(): number {
    return Date.now() - this.lastRequestAt;
  }
}

/** SIGTERM semantics: the `close()` of a running apiserver (once, however often called). */
export function gracefulShutdown(parts: {
  context: ServerContext;
  listeners: Listeners;
  requests: InFlightRequests;
  /** What follows storage besides the registry (controllers, policy), stopped first, in order. */
  stops: readonly (() => void)[];
  registry: ResourceRegistry;
  storage: Storage;
  logger: Logger;
}): () => Promise<void> {
  const { context, listeners, requests, registry, storage, logger } = parts;
  const { listener, http1, secure, h2c, sockets, url } = listeners;
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      context.shuttingDown = true;
      listener.close();
      const watching = context.watchLimiter.total > 0;
      // Ending the caches ends every watch stream cleanly; clients resume elsewhere.
      for (const stop of parts.stops) stop();
      await registry.stop();
      // A moment for the re-watches coming on the connections those streams leave: each gets 429
      // and Connection: close (kube's --shutdown-send-retry-after), so its client backs off and
      // resumes on the next apiserver, rather than meeting a connection closed under it.
      if (watching) await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_WINDOW_MS));
      await requests.drain(SHUTDOWN_GRACE_MS);
      // Keep-alive connections linger a moment: a request already on its way over one is served
      // (its connection closing after the response) instead of meeting a reset, which a client
      // may not retry for a write (client-go retries only reads after a broken connection).
      // It ends once no request came for SHUTDOWN_QUIET_MS: the clients have moved on.
      const lingerUntil = Date.now() + SHUTDOWN_LINGER_MS;
      while (
        sockets.size > 0 &&
        Date.now() < lingerUntil &&
        requests.quietFor() < SHUTDOWN_QUIET_MS
      )
        await new Promise((resolve) => setTimeout(resolve, 25));
      http1.close(); // stops its connection checks and closes idle keep-alive connections
      secure?.close(); // the same for its HTTP/1.1 connections
      for (const socket of sockets) socket.destroy();
      h2c?.close();
      await storage.close();
      context.audit?.close();
      logger.info('apiserver stopped', { url });
    })());
}
