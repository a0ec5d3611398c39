import type { FieldGetter, IndexGetter } from './resource-definition.js';
import { nestedField } from './unstructured.js';

// The field labels of the built-in resources: what a field selector may name for each
// (pkg/apis/core/v1/conversion.go AddFieldLabelConversionsFor*, the registries' GetAttrs and
// SelectableFields) and the watch cache's indexes over them. Kept apart from the Table printers
// and the schema source, so that parsing and matching a field selector loads neither.

/** A field as a field selector sees it: strings as they are, booleans as "true"/"false". */
export function fieldLabel(path: string): FieldGetter {
  return (object) => {
    const value = nestedField(object, path);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return value === undefined || value === null ? '' : JSON.stringify(value);
  };
}

/** A resource's field labels: paths of the object, or computed ones (as kube's GetAttrs). */
export interface FieldLabels {
  fields?: string[];
  /** Selectable fields that are not a path of the object (computed as kube's GetAttrs does). */
  selectableFields?: Record<string, FieldGetter>;
  indexes?: Record<string, IndexGetter>;
}

/** The selectable fields of `labels`, as a ResourceDefinition carries them. */
export function selectableFieldsOf(labels: FieldLabels): Record<string, FieldGetter> {
  return {
    ...Object.fromEntries((labels.fields ?? []).map((f) => [f, fieldLabel(f)])),
    ...labels.selectableFields,
  };
}

/** JobToSelectableFields' status.successful: the succeeded count, 0 when unset. */
function succeeded(object: unknown): string {
  const value = nestedField(object, 'status.succeeded');
  return String(typeof value === 'number' ? value : 0);
}

/** The field labels of the built-in resources that have more than metadata.name/namespace. */
export const builtinFieldLabels = {
  pods: {
    fields: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
    // The watch cache dispatches pod events by node: a kubelet watches only its own pods.
    indexes: { 'spec.nodeName': (o) => [fieldLabel('spec.nodeName')(o)] },
  },
  namespaces: {
    fields: ['status.phase'],
  },
  secrets: {
    fields: ['type'],
  },
  nodes: {
    fields: ['spec.unschedulable'],
  },
  events: {
    fields: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  },
  jobs: {
    // pkg/registry/batch/job/strategy.go JobToSelectableFields: the succeeded count.
    selectableFields: { 'status.successful': (o) => succeeded(o) },
  },
  /** ReplicaSets and ReplicationControllers (kube's ReplicaSet and RC SelectableFields). */
  replicated: { fields: ['status.replicas'] },
} satisfies Record<string, FieldLabels>;
