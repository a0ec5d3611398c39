import type { KubeObject, TableColumn } from '@listwatch/api';
import { translateTimestampSince } from '../table-age.js';

// A pods-like table definition for tests, shaped like kube's printers for pods (pkg/printers/
// internalversion/printers.go podColumnDefinitions): NAME and AGE come from the definition.

interface PodLike extends KubeObject {
  status?: {
    phase?: string;
    podIP?: string;
    containerStatuses?: { ready?: boolean; restartCount?: number }[];
  };
  spec?: { nodeName?: string };
}

function status(object: KubeObject): NonNullable<PodLike['status']> {
  return (object as PodLike).status ?? {};
}

export const podTableColumns: TableColumn[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace.',
    priority: 0,
    cell: (o) => o.metadata.name ?? '',
  },
  {
    name: 'Ready',
    type: 'string',
    description: 'The aggregate readiness state of this pod for accepting traffic.',
    priority: 0,
    cell: (o) => {
      const containers = status(o).containerStatuses ?? [];
      return `${containers.filter((c) => c.ready).length}/${containers.length}`;
    },
  },
  {
    name: 'Status',
    type: 'string',
    description: 'The aggregate status of the containers in this pod.',
    priority: 0,
    cell: (o) => status(o).phase ?? 'Unknown',
  },
  {
    name: 'Restarts',
    type: 'string',
    description: 'The number of times the containers in this pod have been restarted.',
    priority: 0,
    cell: (o) =>
      String((status(o).containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0)),
  },
  {
    name: 'Age',
    type: 'string',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    priority: 0,
    cell: (o, now) => translateTimestampSince(o.metadata.creationTimestamp, now),
  },
  {
    name: 'IP',
    type: 'string',
    description: 'IP address allocated to the pod.',
    priority: 1,
    cell: (o) => status(o).podIP ?? '<none>',
  },
  {
    name: 'Node',
    type: 'string',
    description: 'Name of the Node this pod is scheduled on.',
    priority: 1,
    cell: (o) => (o as PodLike).spec?.nodeName ?? '<none>',
  },
];

export const podDefinition = { tableColumns: podTableColumns };
