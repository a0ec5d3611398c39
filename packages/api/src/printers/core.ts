import type { KubeObject } from '../object-meta.js';
import type { TableColumn } from '../resource-definition.js';
import { nestedField as at } from '../unstructured.js';
import {
  AGE_COLUMN,
  array,
  column,
  containerCells,
  CREATED_AT,
  fieldDoc,
  fieldText,
  labelsText,
  NAME_COLUMN,
  replicaCountColumns,
  selector,
  TEMPLATE_CONTAINERS,
  text,
  wide,
} from './columns.js';

// The Table printers of the core group (kubernetes pkg/printers/internalversion/printers.go:
// printPod, printNode, printService, printPersistentVolume(Claim), printResourceQuota, ...).

interface ContainerStatus {
  ready?: boolean;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string };
    terminated?: { reason?: string; exitCode?: number; signal?: number };
  };
}

/** printers.go printPod's STATUS: the phase, overridden by the most telling container reason. */
function podStatus(pod: KubeObject): string {
  let reason = text(pod, 'status.reason', '') || text(pod, 'status.phase', 'Pending');
  const statuses = array(pod, 'status.containerStatuses') as ContainerStatus[];
  for (const cs of statuses) {
    const waiting = cs.state?.waiting?.reason;
    const terminated = cs.state?.terminated;
    if (waiting) reason = waiting;
    else if (terminated?.reason) reason = terminated.reason;
    else if (terminated) {
      reason = terminated.signal
        ? `Signal:${terminated.signal}`
        : `ExitCode:${terminated.exitCode ?? 0}`;
    }
  }
  if (pod.metadata.deletionTimestamp) reason = 'Terminating';
  return reason;
}

function dataCount(o: KubeObject): number {
  const count = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v).length : 0);
  return count(o['data']) + count(o['binaryData']);
}

interface NodeCondition {
  type?: string;
  status?: string;
}

function address(node: KubeObject, type: string): string {
  const found = (array(node, 'status.addresses') as { type?: string; address?: string }[]).find(
    (a) => a.type === type,
  );
  return found?.address ?? '<none>';
}

interface ServicePort {
  port?: number;
  protocol?: string;
  nodePort?: number;
}

interface EndpointSubset {
  addresses?: { ip?: string }[];
  ports?: { port?: number }[];
}

/** net.JoinHostPort: an IPv6 address is bracketed. */
function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** formatEndpoints: up to three `ip:port`, then `+ N more...`; `<none>` without subsets. */
function endpointsText(o: KubeObject): string {
  const subsets = array(o, 'subsets') as EndpointSubset[];
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    const ports = subset.ports ?? [];
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) if (list.length < max) list.push(a.ip ?? '');
    } else {
      for (const p of ports) {
        count += addresses.length;
        for (const a of addresses)
          if (list.length < max) list.push(hostPort(a.ip ?? '', p.port ?? 0));
      }
    }
  }
  const joined = list.join(',');
  return count > max ? `${joined} + ${count - max} more...` : joined;
}

/** GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
function accessModes(o: KubeObject, path: string): string {
  const modes = array(o, path);
  return [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]
    .filter(([mode]) => modes.includes(mode))
    .map(([, short]) => short)
    .join(',');
}

/** GetPersistentVolume(Claim)Class: the beta annotation first, then spec.storageClassName. */
function storageClassOf(o: KubeObject): string {
  const annotation = o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  return annotation ?? text(o, 'spec.storageClassName', '');
}

function phaseOrTerminating(o: KubeObject): string {
  return o.metadata.deletionTimestamp ? 'Terminating' : text(o, 'status.phase', '');
}

/** printResourceQuota: `name: used/hard` for each hard limit, sorted; `limits.*` on the right. */
function quotaCells(o: KubeObject, limits: boolean): string {
  const hard = (at(o, 'spec.hard') ?? {}) as Record<string, unknown>;
  const used = (at(o, 'status.used') ?? {}) as Record<string, unknown>;
  const statusHard = (at(o, 'status.hard') ?? {}) as Record<string, unknown>;
  const quantity = (v: unknown) =>
    typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '0';
  return Object.keys(hard)
    .sort()
    .filter((name) => (name.split('.').length > 1 && name.split('.')[0] === 'limits') === limits)
    .map((name) => `${name}: ${quantity(used[name])}/${quantity(statusHard[name])}`)
    .join(', ');
}

export const coreTableColumns = {
  pods: [
    NAME_COLUMN,
    column('Ready', 'The aggregate readiness state of this pod for accepting traffic.', (o) => {
      const statuses = array(o, 'status.containerStatuses') as ContainerStatus[];
      const total = array(o, 'spec.containers').length;
      return `${statuses.filter((s) => s.ready).length}/${total}`;
    }),
    column('Status', 'The aggregate status of the containers in this pod.', podStatus),
    column(
      'Restarts',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      (o) =>
        String(
          (array(o, 'status.containerStatuses') as ContainerStatus[]).reduce(
            (n, s) => n + (s.restartCount ?? 0),
            0,
          ),
        ),
    ),
    AGE_COLUMN,
    wide('IP', 'The IP address assigned to the pod', (o) => text(o, 'status.podIP')),
    wide('Node', 'The name of the node the pod is assigned to', (o) => text(o, 'spec.nodeName')),
    wide('Nominated Node', 'The name of the node the pod is nominated to', (o) =>
      text(o, 'status.nominatedNodeName'),
    ),
    wide('Readiness Gates', 'The readiness gates of the pod', (o) => {
      const gates = array(o, 'spec.readinessGates');
      return gates.length === 0 ? '<none>' : `0/${gates.length}`;
    }),
  ],
  namespaces: [
    NAME_COLUMN,
    column('Status', 'The status of the namespace', (o) => text(o, 'status.phase', 'Active')),
    AGE_COLUMN,
  ],
  configmaps: [
    NAME_COLUMN,
    column('Data', 'Number of data in configmap', dataCount, { type: 'integer' }),
    AGE_COLUMN,
  ],
  secrets: [
    NAME_COLUMN,
    column('Type', 'The type of the secret', (o) => text(o, 'type', 'Opaque')),
    column('Data', 'The number of data in the secret', dataCount, { type: 'integer' }),
    AGE_COLUMN,
  ],
  serviceaccounts: [
    NAME_COLUMN,
    // printServiceAccount: the count of secrets, in a column typed string.
    column(
      'Secrets',
      fieldDoc('core.v1.ServiceAccount', 'secrets'),
      (o) => array(o, 'secrets').length,
    ),
    AGE_COLUMN,
  ],
  nodes: [
    NAME_COLUMN,
    column('Status', 'The status of the node', (o) => {
      const ready = (array(o, 'status.conditions') as NodeCondition[]).find(
        (c) => c.type === 'Ready',
      );
      let status = ready?.status === 'True' ? 'Ready' : ready ? 'NotReady' : 'Unknown';
      if (at(o, 'spec.unschedulable') === true) status += ',SchedulingDisabled';
      return status;
    }),
    column('Roles', 'The roles of the node', (o) => {
      const roles = Object.keys(o.metadata.labels ?? {})
        .filter((k) => k.startsWith('node-role.kubernetes.io/'))
        .map((k) => k.slice('node-role.kubernetes.io/'.length));
      return roles.length ? roles.sort().join(',') : '<none>';
    }),
    AGE_COLUMN,
    fieldText('Version', 'core.v1.Node', 'status.nodeInfo.kubeletVersion', ''),
    wide('Internal-IP', 'List of internal IPs for the node.', (o) => address(o, 'InternalIP')),
    wide('External-IP', 'List of external IPs for the node.', (o) => address(o, 'ExternalIP')),
    wide('OS-Image', 'OS image reported by the node.', (o) => text(o, 'status.nodeInfo.osImage')),
    wide('Kernel-Version', 'Kernel version reported by the node.', (o) =>
      text(o, 'status.nodeInfo.kernelVersion'),
    ),
    wide('Container-Runtime', 'Container runtime and version reported by the node.', (o) =>
      text(o, 'status.nodeInfo.containerRuntimeVersion'),
    ),
  ],
  services: [
    NAME_COLUMN,
    column('Type', 'The type of the service', (o) => text(o, 'spec.type', 'ClusterIP')),
    column('Cluster-IP', 'The cluster ip of the service', (o) => text(o, 'spec.clusterIP')),
    column('External-IP', 'The external ip of the service', (o) => {
      const ips = array(o, 'spec.externalIPs') as string[];
      return ips.length ? ips.join(',') : '<none>';
    }),
    column('Port(s)', 'The ports of the service', (o) => {
      const ports = array(o, 'spec.ports') as ServicePort[];
      if (!ports.length) return '<none>';
      return ports
        .map((p) => `${p.port ?? 0}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`)
        .join(',');
    }),
    AGE_COLUMN,
    wide('Selector', 'The selector of the service', (o) => labelsText(at(o, 'spec.selector'))),
  ],
  endpoints: [
    NAME_COLUMN,
    column('Endpoints', fieldDoc('core.v1.Endpoints', 'subsets'), endpointsText),
    AGE_COLUMN,
  ],
  persistentvolumeclaims: [
    NAME_COLUMN,
    column('Status', fieldDoc('core.v1.PersistentVolumeClaimStatus', 'phase'), phaseOrTerminating),
    fieldText('Volume', 'core.v1.PersistentVolumeClaim', 'spec.volumeName', ''),
    column('Capacity', fieldDoc('core.v1.PersistentVolumeClaimStatus', 'capacity'), (o) =>
      text(o, 'spec.volumeName', '') ? text(o, 'status.capacity.storage', '') : '',
    ),
    column('Access Modes', fieldDoc('core.v1.PersistentVolumeClaimStatus', 'accessModes'), (o) =>
      text(o, 'spec.volumeName', '') ? accessModes(o, 'status.accessModes') : '',
    ),
    column('StorageClass', 'StorageClass of the pvc', storageClassOf),
    column('VolumeAttributesClass', 'VolumeAttributesClass of the pvc', (o) =>
      text(o, 'spec.volumeAttributesClassName', '<unset>'),
    ),
    AGE_COLUMN,
    fieldText('VolumeMode', 'core.v1.PersistentVolumeClaim', 'spec.volumeMode', '<unset>', {
      priority: 1,
    }),
  ],
  persistentvolumes: [
    NAME_COLUMN,
    column('Capacity', fieldDoc('core.v1.PersistentVolumeSpec', 'capacity'), (o) =>
      text(o, 'spec.capacity.storage', ''),
    ),
    column('Access Modes', fieldDoc('core.v1.PersistentVolumeSpec', 'accessModes'), (o) =>
      accessModes(o, 'spec.accessModes'),
    ),
    column(
      'Reclaim Policy',
      fieldDoc('core.v1.PersistentVolumeSpec', 'persistentVolumeReclaimPolicy'),
      (o) => text(o, 'spec.persistentVolumeReclaimPolicy', ''),
    ),
    column('Status', fieldDoc('core.v1.PersistentVolumeStatus', 'phase'), phaseOrTerminating),
    column('Claim', fieldDoc('core.v1.PersistentVolumeSpec', 'claimRef'), (o) => {
      const ref = at(o, 'spec.claimRef') as { namespace?: string; name?: string } | undefined;
      return ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
    }),
    column('StorageClass', 'StorageClass of the pv', storageClassOf),
    column('VolumeAttributesClass', 'VolumeAttributesClass of the pv', (o) =>
      text(o, 'spec.volumeAttributesClassName', '<unset>'),
    ),
    fieldText('Reason', 'core.v1.PersistentVolume', 'status.reason', ''),
    AGE_COLUMN,
    fieldText('VolumeMode', 'core.v1.PersistentVolume', 'spec.volumeMode', '<unset>', {
      priority: 1,
    }),
  ],
  resourcequotas: [
    NAME_COLUMN,
    AGE_COLUMN,
    column(
      'Request',
      'Request represents a minimum amount of cpu/memory that a container may consume.',
      (o) => quotaCells(o, false),
    ),
    column(
      'Limit',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      (o) => quotaCells(o, true),
    ),
  ],
  limitranges: [NAME_COLUMN, CREATED_AT],
  podtemplates: [
    NAME_COLUMN,
    ...containerCells('template.spec.containers', 0),
    column('Pod Labels', 'The labels for the pod template.', (o) =>
      labelsText(at(o, 'template.metadata.labels')),
    ),
  ],
  replicationcontrollers: [
    ...replicaCountColumns('core.v1.ReplicationController'),
    ...containerCells(TEMPLATE_CONTAINERS),
    selector(fieldDoc('core.v1.ReplicationControllerSpec', 'selector'), (o) =>
      labelsText(at(o, 'spec.selector')),
    ),
  ],
} satisfies Record<string, TableColumn[]>;
