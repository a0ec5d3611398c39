/**
 * Retries `check` until it stops throwing, polling every few milliseconds; rethrows its last
 * error after `timeoutMs`. The timeout is a safety net against hangs, not a performance bound:
 * the check passes as soon as the awaited state is reached.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
