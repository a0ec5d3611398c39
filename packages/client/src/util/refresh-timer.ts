/**
 * Re-arms a timeout from now: Node's `Timeout.refresh()` (no new timer), or, where timers are
 * plain numbers (browsers), a new timeout in place of the old. Returns the handle to keep.
 */
export function refreshTimer(
  handle: ReturnType<typeof setTimeout>,
  ms: number,
  fire: () => void,
): ReturnType<typeof setTimeout> {
  if (typeof handle === 'object' && typeof handle.refresh === 'function') return handle.refresh();
  clearTimeout(handle);
  return setTimeout(fire, ms);
}
