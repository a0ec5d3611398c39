import { ageSince } from './human-duration.js';
import type { NameRule } from './names.js';
import type { KubeObject } from './object-meta.js';
import type {
  FieldGetter,
  IndexGetter,
  ResourceDefinition,
  TableColumn,
  Verb,
} from './resource-definition.js';

// The built-in resources, as data. Table columns follow kube's printers
// (kubernetes/pkg/printers/internalversion/printers.go); selectable fields follow each type's
// field label conversion funcs (pkg/apis/core/v1/conversion.go & co).

/** Reads a dotted path out of an object without trusting its shape. */
function at(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A field as a field selector sees it: strings as they are, booleans as "true"/"false". */
function field(path: string): FieldGetter {
  return (object) => {
    const value = at(object, path);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return value === undefined || value === null ? '' : JSON.stringify(value);
  };
}

function text(object: unknown, path: string, fallback = '<none>'): string {
  const value = at(object, path);
  if (value === undefined || value === null || value === '') return fallback;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function array(object: unknown, path: string): unknown[] {
  const value = at(object, path);
  return Array.isArray(value) ? value : [];
}

function int(object: unknown, path: string): number {
  const value = at(object, path);
  return typeof value === 'number' ? value : 0;
}

const NAME: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
  priority: 0,
  cell: (o) => o.metadata.name ?? '',
};

const AGE: TableColumn = {
  name: 'Age',
  type: 'string',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (o, now) => ageSince(o.metadata.creationTimestamp, now),
};

function column(
  name: string,
  description: string,
  cell: TableColumn['cell'],
  options: { priority?: number; type?: TableColumn['type'] } = {},
): TableColumn {
  return {
    name,
    type: options.type ?? 'string',
    description,
    priority: options.priority ?? 0,
    cell,
  };
}

const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

interface Spec {
  group?: string;
  version?: string;
  kind: string;
  plural: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  verbs?: readonly Verb[];
  subresources?: string[];
  nameRule?: NameRule;
  fields?: string[];
  indexes?: Record<string, IndexGetter>;
  columns: TableColumn[];
}

function define(spec: Spec): ResourceDefinition {
  return {
    group: spec.group ?? '',
    version: spec.version ?? 'v1',
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    namespaced: spec.namespaced,
    verbs: spec.verbs ?? ALL_VERBS,
    nameRule: spec.nameRule ?? 'dns1123Subdomain',
    subresources: spec.subresources ?? [],
    selectableFields: Object.fromEntries((spec.fields ?? []).map((f) => [f, field(f)])),
    indexes: spec.indexes ?? {},
    tableColumns: spec.columns,
  };
}

// --- pods ---------------------------------------------------------------------------------

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

const pods = define({
  kind: 'Pod',
  plural: 'pods',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status', 'binding'],
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
  indexes: { 'spec.nodeName': (o) => [field('spec.nodeName')(o)] },
  columns: [
    NAME,
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
    AGE,
    column('IP', 'The IP address assigned to the pod', (o) => text(o, 'status.podIP'), {
      priority: 1,
    }),
    column('Node', 'The name of the node the pod is assigned to', (o) => text(o, 'spec.nodeName'), {
      priority: 1,
    }),
    column(
      'Nominated Node',
      'The name of the node the pod is nominated to',
      (o) => text(o, 'status.nominatedNodeName'),
      { priority: 1 },
    ),
    column(
      'Readiness Gates',
      'The readiness gates of the pod',
      (o) => {
        const gates = array(o, 'spec.readinessGates');
        return gates.length === 0 ? '<none>' : `0/${gates.length}`;
      },
      { priority: 1 },
    ),
  ],
});

// --- the rest -----------------------------------------------------------------------------

const namespaces = define({
  kind: 'Namespace',
  plural: 'namespaces',
  shortNames: ['ns'],
  namespaced: false,
  nameRule: 'dns1123Label',
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status', 'finalize'],
  fields: ['status.phase'],
  columns: [
    NAME,
    column('Status', 'The status of the namespace', (o) => text(o, 'status.phase', 'Active')),
    AGE,
  ],
});

function dataCount(o: KubeObject): number {
  const count = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v).length : 0);
  return count(o['data']) + count(o['binaryData']);
}

const configmaps = define({
  kind: 'ConfigMap',
  plural: 'configmaps',
  shortNames: ['cm'],
  namespaced: true,
  columns: [
    NAME,
    column('Data', 'Number of data in configmap', dataCount, { type: 'integer' }),
    AGE,
  ],
});

const secrets = define({
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  fields: ['type'],
  columns: [
    NAME,
    column('Type', 'The type of the secret', (o) => text(o, 'type', 'Opaque')),
    column('Data', 'The number of data in the secret', dataCount, { type: 'integer' }),
    AGE,
  ],
});

const serviceaccounts = define({
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  shortNames: ['sa'],
  namespaced: true,
  subresources: ['token'],
  columns: [
    NAME,
    // printServiceAccount: the count of secrets, in a column typed string.
    column(
      'Secrets',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
      (o) => array(o, 'secrets').length,
    ),
    AGE,
  ],
});

interface NodeCondition {
  type?: string;
  status?: string;
}

const nodes = define({
  kind: 'Node',
  plural: 'nodes',
  shortNames: ['no'],
  namespaced: false,
  subresources: ['status'],
  fields: ['spec.unschedulable'],
  columns: [
    NAME,
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
    AGE,
    column('Version', 'Kubelet Version reported by the node.', (o) =>
      text(o, 'status.nodeInfo.kubeletVersion', ''),
    ),
    column('Internal-IP', 'List of internal IPs for the node.', (o) => address(o, 'InternalIP'), {
      priority: 1,
    }),
    column('External-IP', 'List of external IPs for the node.', (o) => address(o, 'ExternalIP'), {
      priority: 1,
    }),
    column(
      'OS-Image',
      'OS image reported by the node.',
      (o) => text(o, 'status.nodeInfo.osImage'),
      {
        priority: 1,
      },
    ),
    column(
      'Kernel-Version',
      'Kernel version reported by the node.',
      (o) => text(o, 'status.nodeInfo.kernelVersion'),
      { priority: 1 },
    ),
    column(
      'Container-Runtime',
      'Container runtime and version reported by the node.',
      (o) => text(o, 'status.nodeInfo.containerRuntimeVersion'),
      { priority: 1 },
    ),
  ],
});

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

const services = define({
  kind: 'Service',
  plural: 'services',
  shortNames: ['svc'],
  categories: ['all'],
  namespaced: true,
  nameRule: 'dns1035Label',
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status'],
  columns: [
    NAME,
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
    AGE,
    column('Selector', 'The selector of the service', (o) => labelsText(at(o, 'spec.selector')), {
      priority: 1,
    }),
  ],
});

function labelsText(value: unknown): string {
  if (!value || typeof value !== 'object') return '<none>';
  const entries = Object.entries(value as Record<string, string>);
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}

const events = define({
  kind: 'Event',
  plural: 'events',
  shortNames: ['ev'],
  namespaced: true,
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
  columns: [
    column('Last Seen', 'Time when last this event was observed', (o, now) =>
      ageSince(
        text(o, 'lastTimestamp', '') || text(o, 'eventTime', '') || o.metadata.creationTimestamp,
        now,
      ),
    ),
    column('Type', 'Type of this event', (o) => text(o, 'type', '')),
    column('Reason', 'Reason why this event was generated', (o) => text(o, 'reason', '')),
    column(
      'Object',
      'The object this event is about',
      (o) =>
        `${text(o, 'involvedObject.kind', '').toLowerCase()}/${text(o, 'involvedObject.name', '')}`,
    ),
    column('Message', 'A human-readable description of the status of this operation.', (o) =>
      text(o, 'message', ''),
    ),
  ],
});

function workloadColumns(): TableColumn[] {
  const containers = (o: KubeObject) =>
    array(o, 'spec.template.spec.containers') as { name?: string; image?: string }[];
  return [
    column(
      'Containers',
      'Names of each container in the template.',
      (o) =>
        containers(o)
          .map((c) => c.name ?? '')
          .join(','),
      { priority: 1 },
    ),
    column(
      'Images',
      'Images referenced by each container in the template.',
      (o) =>
        containers(o)
          .map((c) => c.image ?? '')
          .join(','),
      { priority: 1 },
    ),
    column(
      'Selector',
      'Label selector for pods.',
      (o) => labelsText(at(o, 'spec.selector.matchLabels')),
      {
        priority: 1,
      },
    ),
  ];
}

const replicasets = define({
  group: 'apps',
  kind: 'ReplicaSet',
  plural: 'replicasets',
  shortNames: ['rs'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status', 'scale'],
  fields: ['status.replicas'],
  columns: [
    NAME,
    column('Desired', 'Number of desired pods.', (o) => int(o, 'spec.replicas'), {
      type: 'integer',
    }),
    column('Current', 'Number of actual replicas.', (o) => int(o, 'status.replicas'), {
      type: 'integer',
    }),
    column('Ready', 'The number of ready replicas.', (o) => int(o, 'status.readyReplicas'), {
      type: 'integer',
    }),
    AGE,
    ...workloadColumns(),
  ],
});

const deployments = define({
  group: 'apps',
  kind: 'Deployment',
  plural: 'deployments',
  shortNames: ['deploy'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status', 'scale'],
  columns: [
    NAME,
    column(
      'Ready',
      'Number of the pod with ready state',
      (o) => `${int(o, 'status.readyReplicas')}/${int(o, 'spec.replicas')}`,
    ),
    column(
      'Up-to-date',
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      (o) => int(o, 'status.updatedReplicas'),
      { type: 'integer' },
    ),
    column(
      'Available',
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      (o) => int(o, 'status.availableReplicas'),
      { type: 'integer' },
    ),
    AGE,
    ...workloadColumns(),
  ],
});

const leases = define({
  group: 'coordination.k8s.io',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  columns: [
    NAME,
    column('Holder', 'The holder of the lease', (o) => text(o, 'spec.holderIdentity', '')),
    AGE,
  ],
});

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** `ClusterRole/view`: the ROLE column of bindings, as kubectl's printer shows it. */
function roleRef(o: KubeObject): string {
  const ref = at(o, 'roleRef') as { kind?: string; name?: string } | undefined;
  return ref ? `${ref.kind ?? ''}/${ref.name ?? ''}` : '';
}

/** The subjects of a binding of one kind, comma-separated (printers.go printRoleBinding). */
function subjects(o: KubeObject, kind: string): string {
  return array(o, 'subjects')
    .filter((s) => (s as { kind?: string }).kind === kind)
    .map((s) => {
      const subject = s as { name?: string; namespace?: string };
      return kind === 'ServiceAccount'
        ? `${subject.namespace ?? ''}/${subject.name ?? ''}`
        : (subject.name ?? '');
    })
    .join(', ');
}

const CREATED_AT: TableColumn = {
  name: 'Created At',
  type: 'date',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (o) => o.metadata.creationTimestamp ?? '',
};

const bindingColumns = (): TableColumn[] => [
  NAME,
  column('Role', 'RoleRef is the reference to the role the binding grants.', roleRef),
  AGE,
  column('Users', 'Users in the binding', (o) => subjects(o, 'User'), { priority: 1 }),
  column('Groups', 'Groups in the binding', (o) => subjects(o, 'Group'), { priority: 1 }),
  column(
    'ServiceAccounts',
    'ServiceAccounts in the binding',
    (o) => subjects(o, 'ServiceAccount'),
    {
      priority: 1,
    },
  ),
];

/** An RBAC kind and its cluster-scoped twin (Role/ClusterRole, RoleBinding/ClusterRoleBinding). */
function rbacScopes(
  kind: string,
  plural: string,
  columns: TableColumn[],
): [ResourceDefinition, ResourceDefinition] {
  const scoped = (prefix: string, namespaced: boolean) =>
    define({
      group: RBAC_GROUP,
      kind: `${prefix}${kind}`,
      plural: `${prefix.toLowerCase()}${plural}`,
      namespaced,
      nameRule: 'pathSegment',
      columns,
    });
  return [scoped('', true), scoped('Cluster', false)];
}

const [roles, clusterroles] = rbacScopes('Role', 'roles', [NAME, CREATED_AT]);
const [rolebindings, clusterrolebindings] = rbacScopes(
  'RoleBinding',
  'rolebindings',
  bindingColumns(),
);

/** Every built-in resource, in discovery order. */
export const builtinResources: readonly ResourceDefinition[] = [
  namespaces,
  pods,
  configmaps,
  secrets,
  serviceaccounts,
  nodes,
  services,
  events,
  replicasets,
  deployments,
  leases,
  roles,
  clusterroles,
  rolebindings,
  clusterrolebindings,
];

/** Looks a built-in resource up by plural, singular, short name or kind (as kubectl does). */
export function findBuiltinResource(name: string, group?: string): ResourceDefinition | undefined {
  const lower = name.toLowerCase();
  return builtinResources.find(
    (r) =>
      (group === undefined || r.group === group) &&
      (r.plural === lower ||
        r.singular === lower ||
        r.kind.toLowerCase() === lower ||
        r.shortNames.includes(lower)),
  );
}
