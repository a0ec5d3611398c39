import type {
  APIGroupList,
  APIResource,
  APIResourceList,
  APIVersions,
} from 'kubernetes-types/meta/v1.js';
import type { RestClient } from '../rest/client.js';

/**
 * One API group as discovery tells it (client-go restmapper.APIGroupResources): its versions in
 * the server's order of preference (the first is the preferred one) and each version's
 * resources, subresources included (named `pods/status`).
 */
export interface APIGroupResources {
  name: string;
  versions: string[];
  preferredVersion: string;
  resources: Map<string, APIResource[]>;
}

/** The aggregated discovery document (apidiscovery.k8s.io/v2 APIGroupDiscoveryList). */
interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  items: {
    metadata: { name?: string };
    versions: {
      version: string;
      resources?: {
        resource: string;
        responseKind?: { group?: string; version?: string; kind: string };
        scope: 'Namespaced' | 'Cluster';
        singularResource?: string;
        verbs: string[];
        shortNames?: string[];
        categories?: string[];
        subresources?: {
          subresource: string;
          responseKind?: { kind: string };
          verbs: string[];
        }[];
      }[];
    }[];
  }[];
}

// client-go discovery/discovery_client.go: aggregated v2 first, then the legacy documents.
const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

export interface DiscoveryClientOptions {
  /** Ask for aggregated discovery (one request for /api, one for /apis); default true. */
  aggregated?: boolean;
}

interface CachedDocument {
  etag: string;
  body: unknown;
  contentType: string;
}

/**
 * The server's groups and resources (client-go discovery.DiscoveryClient with the in-memory
 * cache of discovery/cached/memory/memcache.go): aggregated discovery when the server offers
 * it (kube-apiserver since 1.26), else `/api`, `/apis` and one `APIResourceList` per group
 * version. The answer is kept until invalidate(); every document is kept with its ETag, so a
 * refetch costs a 304 for what did not change.
 */
export class DiscoveryClient {
  private readonly documents = new Map<string, CachedDocument>();
  private cached: Promise<APIGroupResources[]> | undefined;
  private fetches = 0;
  private readonly aggregated: boolean;

  constructor(
    readonly client: RestClient,
    options: DiscoveryClientOptions = {},
  ) {
    this.aggregated = options.aggregated ?? true;
  }

  /** How many times the groups were fetched (not served from the cache) so far. */
  get generation(): number {
    return this.fetches;
  }

  /** Whether the cache holds an answer (memcache's Fresh: nothing to refetch yet). */
  fresh(): boolean {
    return this.cached !== undefined;
  }

  /** Forgets the answer; the next call asks the server again (with If-None-Match). */
  invalidate(): void {
    this.cached = undefined;
  }

  /** Every group with its versions and resources, core (`''`) first, as the server lists them. */
  serverGroupsAndResources(): Promise<APIGroupResources[]> {
    if (!this.cached) {
      this.fetches++;
      const loading = this.load();
      this.cached = loading;
      // A failed fetch is not cached: the next call tries again.
      loading.catch(() => {
        if (this.cached === loading) this.cached = undefined;
      });
    }
    return this.cached;
  }

  /** The resources of one group version, e.g. `apps/v1` or `v1`. */
  async serverResourcesForGroupVersion(groupVersion: string): Promise<APIResource[]> {
    const [group, version] = groupVersion.includes('/')
      ? groupVersion.split('/', 2)
      : ['', groupVersion];
    const found = (await this.serverGroupsAndResources()).find((g) => g.name === group);
    return found?.resources.get(version!) ?? [];
  }

  private async load(): Promise<APIGroupResources[]> {
    if (this.aggregated) {
      const [core, groups] = await Promise.all([
        this.get('/api', AGGREGATED_ACCEPT),
        this.get('/apis', AGGREGATED_ACCEPT),
      ]);
      if (isAggregated(core) && isAggregated(groups))
        return [...fromAggregated(core.body), ...fromAggregated(groups.body)];
    }
    return this.loadLegacy();
  }

  /** The documents before aggregated discovery: versions, groups, then each group version. */
  private async loadLegacy(): Promise<APIGroupResources[]> {
    const [core, groups] = await Promise.all([
      this.get('/api', 'application/json'),
      this.get('/apis', 'application/json'),
    ]);
    const versions = (core.body as APIVersions).versions;
    const list: { name: string; versions: string[]; preferred: string }[] = [
      { name: '', versions, preferred: versions[0] ?? 'v1' },
      ...(groups.body as APIGroupList).groups.map((g) => ({
        name: g.name,
        versions: g.versions.map((v) => v.version),
        preferred: g.preferredVersion?.version ?? g.versions[0]?.version ?? '',
      })),
    ];
    return Promise.all(
      list.map(async (g) => {
        const resources = new Map<string, APIResource[]>();
        await Promise.all(
          g.versions.map(async (v) => {
            const path = g.name ? `/apis/${g.name}/${v}` : `/api/${v}`;
            const list = (await this.get(path, 'application/json')).body as APIResourceList;
            resources.set(v, list.resources);
          }),
        );
        // The preferred version first, the others in the server's order.
        const ordered = [g.preferred, ...g.versions.filter((v) => v !== g.preferred)];
        return { name: g.name, versions: ordered, preferredVersion: g.preferred, resources };
      }),
    );
  }

  /** One discovery document, revalidated with its ETag when the cache holds it. */
  private async get(path: string, accept: string): Promise<CachedDocument> {
    const key = `${accept} ${path}`;
    const cached = this.documents.get(key);
    let status = 0;
    let etag = '';
    let contentType = '';
    const body = await this.client.request<unknown>({
      method: 'GET',
      path,
      accept,
      headers: cached?.etag ? { 'if-none-match': cached.etag } : {},
      onResponse: (code, headers) => {
        status = code;
        etag = String(headers.etag ?? '');
        contentType = String(headers['content-type'] ?? '');
      },
    });
    if (status === 304 && cached) return cached;
    const document: CachedDocument = { etag, body, contentType };
    if (etag) this.documents.set(key, document);
    return document;
  }
}

function isAggregated(
  doc: CachedDocument,
): doc is CachedDocument & { body: APIGroupDiscoveryList } {
  return (
    doc.contentType.includes('as=APIGroupDiscoveryList') &&
    (doc.body as { kind?: string }).kind === 'APIGroupDiscoveryList'
  );
}

/**
 * The aggregated document as groups and resource lists (client-go
 * discovery/aggregated_discovery.go SplitGroupsAndResources): versions come in preference order.
 */
function fromAggregated(list: APIGroupDiscoveryList): APIGroupResources[] {
  return list.items.map((item) => {
    const name = item.metadata.name ?? '';
    const resources = new Map<string, APIResource[]>();
    for (const v of item.versions) {
      const out: APIResource[] = [];
      for (const r of v.resources ?? []) {
        const kind = r.responseKind?.kind ?? '';
        out.push({
          name: r.resource,
          singularName: r.singularResource ?? '',
          namespaced: r.scope === 'Namespaced',
          kind,
          verbs: r.verbs,
          ...(r.shortNames ? { shortNames: r.shortNames } : {}),
          ...(r.categories ? { categories: r.categories } : {}),
        });
        for (const s of r.subresources ?? []) {
          out.push({
            name: `${r.resource}/${s.subresource}`,
            singularName: '',
            namespaced: r.scope === 'Namespaced',
            kind: s.responseKind?.kind ?? kind,
            verbs: s.verbs,
          });
        }
      }
      resources.set(v.version, out);
    }
    const versions = item.versions.map((v) => v.version);
    return { name, versions, preferredVersion: versions[0] ?? '', resources };
  });
}
