import { ApiError, objectKey, type GroupResource, type KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { NamespaceIndex, type Indexer } from './indexer.js';

/**
 * Anything that decides whether a label set matches: the label selectors of @listwatch/api fit,
 * and so does a hand-written `{ matches: () => true }` (apimachinery labels.Selector).
 */
export interface LabelMatcher {
  matches(labels: Record<string, string>): boolean;
}

function selected<T extends KubernetesObject>(obj: T, selector: LabelMatcher | undefined): boolean {
  return selector === undefined || selector.matches(obj.metadata?.labels ?? {});
}

/**
 * Read access to an informer's indexer, the way controllers read state instead of calling the
 * apiserver (client-go tools/cache/listers.go GenericLister). `get` follows the generated
 * listers and throws a 404 NotFound ApiError naming the resource; `tryGet` answers undefined.
 */
export class Lister<T extends KubernetesObject = KubeObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    private readonly resource: GroupResource,
  ) {}

  /** Every object, or those whose labels match `selector`. */
  list(selector?: LabelMatcher): T[] {
    const all = this.indexer.list();
    return selector === undefined ? all : all.filter((obj) => selected(obj, selector));
  }

  /** A cluster-scoped object by name; a miss throws a 404 NotFound ApiError. */
  get(name: string): T {
    return this.getByKey(name, name);
  }

  /** A cluster-scoped object by name, or undefined when the cache has none (no throw). */
  tryGet(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  /** Objects of one namespace; '' means all namespaces (metav1.NamespaceAll). */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, this.resource, namespace);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.indexer.byIndex(indexName, indexedValue);
  }

  private getByKey(key: string, name: string): T {
    const obj = this.indexer.getByKey(key);
    if (obj === undefined) throw ApiError.notFound(this.resource, name);
    return obj;
  }
}

/** The objects of one namespace (client-go GenericNamespaceLister). */
export class NamespaceLister<T extends KubernetesObject = KubeObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    private readonly resource: GroupResource,
    readonly namespaceName: string,
  ) {}

  /**
   * Uses the namespace index when the indexer has one and scans otherwise
   * (client-go ListAllByNamespace).
   */
  list(selector?: LabelMatcher): T[] {
    const ns = this.namespaceName;
    const candidates =
      ns === ''
        ? this.indexer.list()
        : NamespaceIndex in this.indexer.getIndexers()
          ? this.indexer.byIndex(NamespaceIndex, ns)
          : this.indexer.list().filter((obj) => (obj.metadata?.namespace ?? '') === ns);
    return selector === undefined ? candidates : candidates.filter((o) => selected(o, selector));
  }

  /** An object of this namespace by name; a miss throws a 404 NotFound ApiError. */
  get(name: string): T {
    const obj = this.tryGet(name);
    if (obj === undefined) throw ApiError.notFound(this.resource, name);
    return obj;
  }

  /**
   * An object of this namespace by name, or undefined when the cache has none: the miss a
   * controller expects (the object was deleted) without a try/catch around `get`.
   */
  tryGet(name: string): T | undefined {
    return this.indexer.getByKey(objectKey({ namespace: this.namespaceName, name }));
  }
}
