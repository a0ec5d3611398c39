import { ApiError } from '@listwatch/api';
import type { RequestContext } from './rest.js';

function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}

/**
 * Runs a step that works on what the client sent (decoding, patching, the strategy). ApiErrors
 * pass; anything else thrown there is, as far as the client can tell, its input's doing: a 400,
 * never a 500. A stack overflow is expected (JSON within kube's 10000 levels can still be too
 * deep for recursion here); anything else means a check is missing, so it is reported.
 */
export function fromInput<T>(ctx: Pick<RequestContext, 'inputFailed'>, step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (isStackOverflow(err))
      throw ApiError.badRequest('the object is nested too deeply to be processed');
    ctx.inputFailed(err);
    const message = err instanceof Error ? err.message : String(err);
    throw ApiError.badRequest(`the request could not be processed: ${message}`);
  }
}
