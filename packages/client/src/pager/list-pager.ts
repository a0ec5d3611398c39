import type { KubeList, KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { isExpired } from '../rest/errors.js';
import type { ListParams } from '../rest/list-params.js';

/** Fetches one page. */
export type PageFunc<T extends KubernetesObject = KubeObject> = (
  params: ListParams,
  signal?: AbortSignal,
) => Promise<KubeList<T>>;

/** client-go pager.PageSize. */
export const DEFAULT_PAGE_SIZE = 500;

export interface ListPagerOptions {
  /** Items per page (default 500); 0 turns pagination off (one request). */
  pageSize?: number | undefined;
  /**
   * When a continue token expires (410 after compaction) mid-way, list everything again in one
   * unpaginated request instead of failing (client-go FullListIfExpired, default true).
   */
  fullListIfExpired?: boolean | undefined;
}

/** One page, or — with `restarted` — the full list that replaces the pages seen so far. */
export interface ListPage<T extends KubernetesObject = KubeObject> {
  list: KubeList<T>;
  /** Everything before this page is void: a continue token expired and this is a full list. */
  restarted: boolean;
}

/**
 * Chunked LIST (client-go tools/pager): asks for `limit` items at a time and follows `continue`
 * tokens, so a huge collection never has to fit in one response. All pages are read at the
 * first page's revision; if that revision is compacted meanwhile (410 on a continue) the pager
 * falls back to one full list at the original resourceVersion.
 */
export class ListPager<T extends KubernetesObject = KubeObject> {
  readonly pageSize: number;
  readonly fullListIfExpired: boolean;

  constructor(
    private readonly pageFn: PageFunc<T>,
    options: ListPagerOptions = {},
  ) {
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.fullListIfExpired = options.fullListIfExpired ?? true;
  }

  /** Pages as they arrive; see ListPage.restarted for the one case a page replaces the others. */
  async *pages(params: ListParams = {}, signal?: AbortSignal): AsyncGenerator<ListPage<T>> {
    let options: ListParams = { ...params };
    if (options.limit === undefined && this.pageSize > 0) options.limit = this.pageSize;
    for (;;) {
      let list: KubeList<T>;
      try {
        list = await this.pageFn(options, signal);
      } catch (err) {
        if (!isExpired(err) || !this.fullListIfExpired || !options.continue) throw err;
        // The snapshot the tokens pointed at is gone: one unpaginated list at the caller's
        // resourceVersion is the only consistent answer left.
        const { limit: _l, continue: _c, ...rest } = params;
        yield { list: await this.pageFn(rest, signal), restarted: true };
        return;
      }
      yield { list, restarted: false };
      const token = list.metadata.continue;
      if (!token) return;
      // Continued pages are pinned by the token; a resourceVersion alongside it is a 400.
      const { resourceVersion: _rv, resourceVersionMatch: _m, ...rest } = options;
      options = { ...rest, continue: token };
    }
  }

  /**
   * Every page joined into one list (client-go ListWithAlloc). `paginated` tells whether the
   * server actually split the result — it does not when serving from its watch cache.
   */
  async list(
    params: ListParams = {},
    signal?: AbortSignal,
  ): Promise<{ list: KubeList<T>; paginated: boolean }> {
    let items: T[] = [];
    let last: KubeList<T> | undefined;
    let pages = 0;
    // Whether the server split the result — still true when an expired token made the rest
    // come as one full list (client-go's paginatedResult), so the reflector keeps paging.
    let paginated = false;
    for await (const page of this.pages(params, signal)) {
      if (page.restarted) pages = 0;
      pages++;
      if (page.list.metadata.continue) paginated = true;
      const pageItems = page.list.items ?? [];
      // A single page (the watch cache ignores limit) is used as it came, without a copy; more
      // are joined in an array of our own.
      if (pages === 1) items = pageItems;
      else {
        if (pages === 2) items = items.slice();
        for (const item of pageItems) items.push(item);
      }
      last = page.list;
    }
    const head = last as KubeList<T>;
    const { continue: _c, remainingItemCount: _r, ...meta } = head.metadata;
    return { list: { ...head, metadata: meta, items }, paginated };
  }
}
