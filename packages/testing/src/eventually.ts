/**
 * Polls `check` until it returns a value other than undefined, and returns that; a throw from
 * `check` ends the wait at once. `deadlineMs` is a safety net against a hang, not a measurement.
 */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string | (() => string),
  deadlineMs = 20_000,
): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until)
      throw new Error(`gave up waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
