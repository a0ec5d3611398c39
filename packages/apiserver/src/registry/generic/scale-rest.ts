import {
  ApiError,
  apiVersionOf,
  type GetOptions,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import {
  parentEntries,
  scaleEntries,
  type ReplicasPathMappings,
} from '../../fieldmanager/index.js';
import type { JsonValue } from '../../patch/json-value.js';
import { SCALE_GVK, validateScale, type ScaleStrategy } from '../autoscaling/scale.js';
import { checkTypeMeta } from '../rest/create.js';
import type {
  Getter,
  RequestContext,
  UpdatedObjectInfo,
  Updater,
  UpdateOptions,
  UpdateResult,
} from '../rest/rest.js';
import type { Store } from './store.js';

// The scale subresource as kube-apiserver serves it for deployments and replicasets
// (pkg/registry/apps/deployment/storage/storage.go ScaleREST): GET reads the parent as an
// autoscaling/v1 Scale; an update turns the new Scale into an update of the parent's
// spec.replicas through the parent's Store (resourceVersion precondition, strategy,
// generation). The Scale's ownership of spec.replicas moves onto the parent's replicas path
// (the managedFieldsHandler of scaleUpdatedObjectInfo,
// k8s.io/apimachinery/pkg/util/managedfields/scalehandler.go).

const SPEC_REPLICAS = [{ field: 'spec' }, { field: 'replicas' }];

/** The Scale kind where the main resource's definition is expected (type meta, schema). */
export function scaleDefinition(definition: ResourceDefinition): ResourceDefinition {
  return { ...definition, ...SCALE_GVK, listKind: 'ScaleList' };
}

export class ScaleREST implements Getter, Updater {
  constructor(
    private readonly store: Store,
    private readonly scale: ScaleStrategy,
  ) {}

  private replicasPaths(): ReplicasPathMappings {
    return (
      this.scale.replicasPaths ?? new Map([[apiVersionOf(this.store.definition), SPEC_REPLICAS]])
    );
  }

  async get(ctx: RequestContext, name: string, options: GetOptions): Promise<KubeObject> {
    return this.scale.toScale(await this.store.get(ctx, name, options));
  }

  /** The parent as a Scale, owned as the parent's replicas are (ScaleHandler.ToSubresource). */
  private currentScale(current: KubeObject): KubeObject {
    const old = this.scale.toScale(current);
    let entries: unknown[] | undefined;
    try {
      entries = scaleEntries(current.metadata.managedFields, this.replicasPaths());
    } catch {
      // Entries that do not decode are the parent's to keep; the Scale starts untracked.
      entries = undefined;
    }
    if (entries) old.metadata.managedFields = entries as unknown as JsonValue[];
    return old;
  }

  /**
   * scaleUpdatedObjectInfo.UpdatedObject: the parent with the new Scale's replicas, after the
   * name check, ValidateScale and the Scale's uid precondition. The Scale's resourceVersion
   * becomes the parent's precondition (none: unconditional).
   */
  private sentParent(current: KubeObject, next: KubeObject): KubeObject {
    const { definition } = this.store;
    checkTypeMeta(scaleDefinition(definition), next);
    const name = current.metadata.name ?? '';
    if (next.metadata.name !== undefined && next.metadata.name !== name) {
      throw ApiError.badRequest(
        `the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    if (definition.namespaced && next.metadata.namespace) {
      if (next.metadata.namespace !== current.metadata.namespace)
        throw ApiError.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
    }
    next.metadata.name = name;
    if (definition.namespaced) next.metadata.namespace = current.metadata.namespace ?? '';
    validateScale(next, definition.namespaced);
    const uid = next.metadata.uid;
    if (uid && uid !== current.metadata.uid) {
      throw ApiError.conflict(
        { group: definition.group, resource: `${definition.plural}/scale` },
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
      );
    }
    const sent = this.scale.withScale(current, next);
    sent.metadata = { ...sent.metadata };
    const precondition = next.metadata.resourceVersion;
    if (precondition) sent.metadata.resourceVersion = precondition;
    else delete sent.metadata.resourceVersion;
    return sent;
  }

  /** ScaleHandler.ToParent: who wrote the Scale's spec.replicas owns the parent's replicas. */
  private parentManagedFields(updated: KubeObject, current: KubeObject, next: KubeObject) {
    let entries: unknown[] | undefined;
    try {
      entries = parentEntries(
        current.metadata.managedFields,
        next.metadata.managedFields,
        apiVersionOf(this.store.definition),
        this.replicasPaths(),
      );
    } catch {
      entries = current.metadata.managedFields;
    }
    if (entries) updated.metadata.managedFields = entries as unknown as JsonValue[];
    else delete updated.metadata.managedFields;
    return updated;
  }

  /** `objInfo` makes the new Scale of the current one; the answer is the parent as a Scale. */
  async update(
    ctx: RequestContext,
    name: string,
    objInfo: UpdatedObjectInfo,
    options: UpdateOptions,
  ): Promise<UpdateResult> {
    let next: KubeObject | undefined;
    const { object } = await this.store.update(
      ctx,
      name,
      {
        updatedObject: (current) => {
          if (!current) throw ApiError.notFound(this.store.gr, name);
          next = objInfo.updatedObject(this.currentScale(current));
          return this.sentParent(current, next);
        },
        managedFields: (updated, current) => this.parentManagedFields(updated, current!, next!),
      },
      { dryRun: options.dryRun },
    );
    return { object: this.scale.toScale(object), created: false };
  }
}
