/**
 * The query parameters of a LIST or WATCH as a client sends them (metav1.ListOptions on the
 * wire). Selectors may be strings or anything whose toString() is the selector (the parsed
 * selectors of @listwatch/api).
 */
export interface ListParams {
  labelSelector?: string | { toString(): string } | undefined;
  fieldSelector?: string | { toString(): string } | undefined;
  resourceVersion?: string | undefined;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan' | undefined;
  /** Page size; 0 or unset: everything in one response. */
  limit?: number | undefined;
  continue?: string | undefined;
  /** The server ends the request (a watch) after this long. */
  timeoutSeconds?: number | undefined;
  allowWatchBookmarks?: boolean | undefined;
  /** Watch-list (KEP-3157): the current state as ADDED events, then a bookmark, then changes. */
  sendInitialEvents?: boolean | undefined;
}

/** Rewrites list options before they are sent, e.g. to add a label selector (client-go TweakListOptionsFunc). */
export type TweakListOptions = (params: ListParams) => ListParams;

/** The query string for `params`; `watch` adds `watch=1`. Unset and empty values are left out. */
export function listParamsToQuery(params: ListParams, watch = false): URLSearchParams {
  const query = new URLSearchParams();
  const set = (name: string, value: string | number | boolean | undefined): void => {
    if (value === undefined || value === '') return;
    query.set(name, String(value));
  };
  if (watch) set('watch', 1);
  set('labelSelector', params.labelSelector?.toString());
  set('fieldSelector', params.fieldSelector?.toString());
  set('resourceVersion', params.resourceVersion);
  set('resourceVersionMatch', params.resourceVersionMatch);
  if (params.limit !== undefined && params.limit > 0) set('limit', params.limit);
  // A watch ignores `continue`; sending it would only confuse a proxy's cache key.
  if (!watch) set('continue', params.continue);
  set('timeoutSeconds', params.timeoutSeconds);
  if (params.allowWatchBookmarks) set('allowWatchBookmarks', true);
  if (params.sendInitialEvents !== undefined) set('sendInitialEvents', params.sendInitialEvents);
  return query;
}
