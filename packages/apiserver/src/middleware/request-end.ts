import type Koa from 'koa';

// A watch streams for as long as it lasts, past koa: its handler hands the stream over with
// `streamResponse` and returns, so the middleware chain ends as soon as the watch starts instead
// of holding every middleware's suspended frame (an async function, its promise and closures) for
// the life of each idle watch. What a middleware does once its request is over — the access log
// line and metrics, audit's ResponseComplete, a limit's release — it hands to `atEnd`, which runs
// it once: at once for an answer koa sends, when the stream ends for a streamed one (the client
// gone, the watch timed out or the server shutting down). kube-apiserver's filters run the same
// work when the watch handler returns (k8s.io/apiserver pkg/server/httplog/httplog.go
// withLogging, pkg/endpoints/filters/audit.go WithAudit).

/** How a request ended for a middleware: undefined when it succeeded. */
export interface Failure {
  error: unknown;
}

type End = (failure: Failure | undefined) => void;

/**
 * A streamed response's ends, innermost middleware first: one array per watch rather than a
 * promise, a reaction and closures per middleware.
 */
class StreamEnds {
  private readonly ends: End[] = [];
  /** Set once the stream has ended: then an end added late (the chain still unwinding) runs at once. */
  private ended: { failure: Failure | undefined } | undefined;

  constructor(stream: Promise<void>) {
    stream.then(
      () => this.run(undefined),
      (error: unknown) => this.run({ error }),
    );
  }

  add(end: End): void {
    if (this.ended) this.ended.failure = passOn(end, this.ended.failure);
    else this.ends.push(end);
  }

  /** Runs each end once, each seeing the failure the one before it passed on (as unwinding would). */
  private run(failure: Failure | undefined): void {
    for (const end of this.ends.splice(0)) failure = passOn(end, failure);
    this.ended = { failure };
  }
}

function passOn(end: End, failure: Failure | undefined): Failure | undefined {
  try {
    end(failure);
    return undefined;
  } catch (error) {
    return { error };
  }
}

const STREAM = 'stream';

/** The response goes on as `stream` after the handler returns; koa sends nothing itself. */
export function streamResponse(ctx: Koa.Context, stream: Promise<void>): void {
  ctx.respond = false;
  ctx.state[STREAM] = new StreamEnds(stream);
}

/**
 * Runs the rest of the chain, then `end` once the request is over, with its failure if any;
 * `end` throws to pass a failure on, as a catch or finally around `await next()` would.
 */
export async function atEnd(ctx: Koa.Context, next: Koa.Next, end: End): Promise<void> {
  let failure: Failure | undefined;
  try {
    await next();
  } catch (error) {
    failure = { error };
  }
  const stream = ctx.state[STREAM] as StreamEnds | undefined;
  if (stream === undefined || failure) end(failure);
  else stream.add(end);
}
