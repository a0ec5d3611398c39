import type { ListerWatcher } from '@listwatch/client';

/** An informer's LISTs (first pages only: each is a list or relist) and watches, as counted. */
export interface ListWatchCounts {
  lists: number;
  watches: number;
}

/**
 * `inner`, counting into `counts`: how the scenario, the chaos suite and their tests tell a
 * resumed watch (one more watch) from a relist (one more LIST).
 */
export function countingListerWatcher(
  inner: ListerWatcher,
  counts: ListWatchCounts,
): ListerWatcher {
  return {
    list: (params, signal) => {
      if (!params.continue) counts.lists++;
      return inner.list(params, signal);
    },
    watch: (params, signal) => {
      counts.watches++;
      return inner.watch(params, signal);
    },
  };
}
