import { ApiError } from '@listwatch/api';
import type { Clock } from './clock.js';

/** The error a wait rejects with when its signal aborts: the caller is shutting down. */
export function abortedError(signal: AbortSignal): ApiError {
  const reason: unknown = signal.reason;
  if (reason instanceof ApiError) return reason;
  return new ApiError(
    { code: 499, reason: '', message: 'the operation was canceled' },
    { cause: reason },
  );
}

/**
 * Waits `ms` on `clock`; resolves early (without throwing) when `signal` aborts, so loops can
 * check their stop condition right after. Resolves with whether the full time passed.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      timer.cancel();
      resolve(false);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
