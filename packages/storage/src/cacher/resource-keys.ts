import type { ResourceDefinition } from '@listwatch/api';

/**
 * Where a resource's objects live in storage, as kube-apiserver lays out etcd:
 * `/registry/pods/<namespace>/<name>`, `/registry/namespaces/<name>`.
 */
export class ResourceKeys {
  /** `/registry/pods/`: every key of the resource starts with it. */
  readonly prefix: string;

  constructor(
    storagePrefix: string,
    private readonly definition: Pick<
      ResourceDefinition,
      'plural' | 'namespaced' | 'storageResource'
    >,
  ) {
    this.prefix = `${storagePrefix}/${definition.storageResource ?? definition.plural}/`;
  }

  /** The prefix of one namespace, or of the whole resource. */
  scope(namespace: string | undefined): string {
    return this.definition.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
  }

  object(namespace: string | undefined, name: string): string {
    return this.definition.namespaced
      ? `${this.prefix}${namespace ?? ''}/${name}`
      : `${this.prefix}${name}`;
  }
}
