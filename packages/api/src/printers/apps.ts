import type { KubeObject } from '../object-meta.js';
import type { TableColumn } from '../resource-definition.js';
import { nestedField as at } from '../unstructured.js';
import {
  AGE_COLUMN,
  array,
  column,
  containerCells,
  fieldDoc,
  int,
  intColumn,
  intField,
  labelsText,
  NAME_COLUMN,
  replicaCountColumns,
  selector,
  selectorText,
  TEMPLATE_CONTAINERS,
  wide,
} from './columns.js';

// The Table printers of the apps group (kubernetes pkg/printers/internalversion/printers.go:
// printReplicaSet, printDeployment, printStatefulSet, printDaemonSet, printControllerRevision).

function workloadColumns(): TableColumn[] {
  const containers = (o: KubeObject) =>
    array(o, 'spec.template.spec.containers') as { name?: string; image?: string }[];
  return [
    wide('Containers', 'Names of each container in the template.', (o) =>
      containers(o)
        .map((c) => c.name ?? '')
        .join(','),
    ),
    wide('Images', 'Images referenced by each container in the template.', (o) =>
      containers(o)
        .map((c) => c.image ?? '')
        .join(','),
    ),
    wide('Selector', 'Label selector for pods.', (o) =>
      labelsText(at(o, 'spec.selector.matchLabels')),
    ),
  ];
}

/** A `{count}/{desired}` cell whose desired count is spec.replicas (1 when unset, as defaulted). */
function readyOf(o: KubeObject): string {
  const replicas = at(o, 'spec.replicas');
  return `${int(o, 'status.readyReplicas')}/${typeof replicas === 'number' ? replicas : 1}`;
}

/** metav1.GetControllerOf: the owner reference marked controller. */
function controllerOf(
  o: KubeObject,
): { apiVersion?: string; kind?: string; name?: string } | undefined {
  return (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
}

export const appsTableColumns = {
  replicasets: [...replicaCountColumns('apps.v1.ReplicaSet'), ...workloadColumns()],
  deployments: [
    NAME_COLUMN,
    column(
      'Ready',
      'Number of the pod with ready state',
      (o) => `${int(o, 'status.readyReplicas')}/${int(o, 'spec.replicas')}`,
    ),
    intColumn(
      'Up-to-date',
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      'status.updatedReplicas',
    ),
    intColumn(
      'Available',
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      'status.availableReplicas',
    ),
    AGE_COLUMN,
    ...workloadColumns(),
  ],
  statefulsets: [
    NAME_COLUMN,
    column('Ready', 'Number of the pod with ready state', readyOf),
    AGE_COLUMN,
    ...containerCells(TEMPLATE_CONTAINERS),
  ],
  daemonsets: [
    NAME_COLUMN,
    intField('Desired', 'apps.v1.DaemonSet', 'status.desiredNumberScheduled'),
    intField('Current', 'apps.v1.DaemonSet', 'status.currentNumberScheduled'),
    intField('Ready', 'apps.v1.DaemonSet', 'status.numberReady'),
    intField('Up-to-date', 'apps.v1.DaemonSet', 'status.updatedNumberScheduled'),
    intField('Available', 'apps.v1.DaemonSet', 'status.numberAvailable'),
    column('Node Selector', fieldDoc('core.v1.PodSpec', 'nodeSelector'), (o) =>
      labelsText(at(o, 'spec.template.spec.nodeSelector')),
    ),
    AGE_COLUMN,
    ...containerCells(TEMPLATE_CONTAINERS),
    selector(fieldDoc('apps.v1.DaemonSetSpec', 'selector'), (o) =>
      selectorText(at(o, 'spec.selector')),
    ),
  ],
  controllerrevisions: [
    NAME_COLUMN,
    column('Controller', 'Controller of the object', (o) => {
      const ref = controllerOf(o);
      if (!ref) return '<none>';
      // formatResourceName: the lowercased GroupKind, `statefulset.apps/web`.
      const group = (ref.apiVersion ?? '').includes('/')
        ? (ref.apiVersion ?? '').split('/')[0]
        : '';
      const kind = `${ref.kind ?? ''}${group ? `.${group}` : ''}`.toLowerCase();
      return kind ? `${kind}/${ref.name ?? ''}` : (ref.name ?? '');
    }),
    column('Revision', fieldDoc('apps.v1.ControllerRevision', 'revision'), (o) =>
      String(int(o, 'revision')),
    ),
    AGE_COLUMN,
  ],
} satisfies Record<string, TableColumn[]>;
