import type { RestClient, ResourceRef } from '@listwatch/client';

// What client-go's discovery client and a RESTMapper answer, enough for the garbage collector
// and the namespace controller (k8s.io/client-go discovery.ServerPreferredResources,
// GetDeletableResources).

/** A served resource as discovery lists it: where to reach it and which kind it holds. */
export interface ApiResource extends ResourceRef {
  kind: string;
  verbs: readonly string[];
}

interface ApiResourceList {
  groupVersion?: string;
  resources?: { name: string; namespaced: boolean; kind: string; verbs?: string[] }[];
}

interface ApiGroupList {
  groups?: { name: string; preferredVersion?: { groupVersion: string; version: string } }[];
}

/** `group/version`, or `version` for the core group (schema.GroupVersion.String). */
export function apiVersionOf(resource: Pick<ResourceRef, 'group' | 'version'>): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}

/**
 * The resources of every group's preferred version (ServerPreferredResources), subresources
 * left out. A group whose list fails is skipped, as discovery does with a partial answer.
 */
export async function serverPreferredResources(client: RestClient): Promise<ApiResource[]> {
  const lists: { group: string; version: string; path: string }[] = [
    { group: '', version: 'v1', path: '/api/v1' },
  ];
  const groups = await client.request<ApiGroupList>({ method: 'GET', path: '/apis' });
  for (const group of groups.groups ?? []) {
    const preferred = group.preferredVersion;
    if (!preferred) continue;
    lists.push({
      group: group.name,
      version: preferred.version,
      path: `/apis/${preferred.groupVersion}`,
    });
  }
  const answers = await Promise.all(
    lists.map(async ({ group, version, path }) => {
      try {
        const list = await client.request<ApiResourceList>({ method: 'GET', path });
        return (list.resources ?? [])
          .filter((r) => !r.name.includes('/'))
          .map((r): ApiResource => ({
            group,
            version,
            plural: r.name,
            namespaced: r.namespaced,
            kind: r.kind,
            verbs: r.verbs ?? [],
          }));
      } catch {
        return [];
      }
    }),
  );
  return answers.flat();
}

/** Resources that can be listed, watched and deleted (discovery.SupportsAllVerbs). */
export function withVerbs(
  resources: readonly ApiResource[],
  verbs: readonly string[],
): ApiResource[] {
  return resources.filter((r) => verbs.every((v) => r.verbs.includes(v)));
}

/** Kind → resource, as a RESTMapper built from discovery. */
export class RestMapper {
  private readonly byKind = new Map<string, ApiResource>();

  constructor(resources: readonly ApiResource[]) {
    for (const r of resources) this.byKind.set(`${apiVersionOf(r)}|${r.kind}`, r);
  }

  /** The resource serving `kind` in `apiVersion`, if discovery listed it. */
  resourceFor(apiVersion: string, kind: string): ApiResource | undefined {
    return this.byKind.get(`${apiVersion}|${kind}`);
  }
}
