import { ageSince } from './human-duration.js';
import { labelSelectorFromMetaV1 } from './label-selector.js';
import type { KubeObject } from './object-meta.js';
import type { TableColumn } from './resource-definition.js';
import { fieldAtPath } from './schema.js';
import { nestedField as at } from './unstructured.js';

// The Table printers of the built-in resources (kubernetes/pkg/printers/internalversion/
// printers.go): each resource's columns and how a cell is read from an object. Column
// descriptions come from the schema source as kube's come from the Go types' SwaggerDoc, so this
// module loads generated/schemas.ts; discovery data and field labels stay apart from it.

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

/**
 * The documentation of the field at `path` below a type of the schema source (`batch.v1.CronJob`,
 * `spec.schedule`), as kube's printers take a column's description from the Go type
 * (printers.go: `batchv1.CronJobSpec{}.SwaggerDoc()["schedule"]`).
 */
function fieldDoc(type: string, path: string): string {
  const description = fieldAtPath(`io.k8s.api.${type}`, path)?.description;
  if (description === undefined) throw new Error(`the schema source has no ${type} ${path}`);
  return description;
}

/** The Name column every Table starts with (kube's printers and default table convertor). */
export const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
  priority: 0,
  cell: (o) => o.metadata.name ?? '',
};

/** The Age column (kube's printers: translateTimestampSince of creationTimestamp). */
export const AGE_COLUMN: TableColumn = {
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

/** A column kubectl shows only with `-o wide` (priority 1). */
function wide(name: string, description: string, cell: TableColumn['cell']): TableColumn {
  return column(name, description, cell, { priority: 1 });
}

/** An integer column read from a path of the object (replica counts and the like). */
function intColumn(name: string, description: string, path: string): TableColumn {
  return column(name, description, (o) => int(o, path), { type: 'integer' });
}

/** The text at `path` of an object of `type`, described by that field's documentation. */
function fieldText(
  name: string,
  type: string,
  path: string,
  fallback?: string,
  options?: { priority?: number },
): TableColumn {
  return column(name, fieldDoc(type, path), (o) => text(o, path, fallback), options);
}

/** The integer at `path` of an object of `type`, described by that field's documentation. */
function intField(name: string, type: string, path: string): TableColumn {
  return intColumn(name, fieldDoc(type, path), path);
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

// --- the rest -----------------------------------------------------------------------------

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

function labelsText(value: unknown): string {
  if (!value || typeof value !== 'object') return '<none>';
  const entries = Object.entries(value as Record<string, string>);
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}

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

/** Name, Desired, Current, Ready and Age of a ReplicaSet or RC, from its schema (printers.go). */
function replicaCountColumns(type: string): TableColumn[] {
  return [
    NAME_COLUMN,
    intField('Desired', type, 'spec.replicas'),
    intField('Current', type, 'status.replicas'),
    intField('Ready', type, 'status.readyReplicas'),
    AGE_COLUMN,
  ];
}

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
  NAME_COLUMN,
  column('Role', 'RoleRef is the reference to the role the binding grants.', roleRef),
  AGE_COLUMN,
  wide('Users', 'Users in the binding', (o) => subjects(o, 'User')),
  wide('Groups', 'Groups in the binding', (o) => subjects(o, 'Group')),
  wide('ServiceAccounts', 'ServiceAccounts in the binding', (o) => subjects(o, 'ServiceAccount')),
];

// --- more workloads and the kinds around them ------------------------------------------------

/** metav1.FormatLabelSelector: `<none>` for an empty selector, `<error>` for an invalid one. */
function selectorText(value: unknown): string {
  if (!value || typeof value !== 'object') return '<none>';
  try {
    return labelSelectorFromMetaV1(value).toString() || '<none>';
  } catch {
    return '<error>';
  }
}

/** A `{count}/{desired}` cell whose desired count is spec.replicas (1 when unset, as defaulted). */
function readyOf(o: KubeObject): string {
  const replicas = at(o, 'spec.replicas');
  return `${int(o, 'status.readyReplicas')}/${typeof replicas === 'number' ? replicas : 1}`;
}

const TEMPLATE_CONTAINERS = 'spec.template.spec.containers';

/** layoutContainerCells: the containers' names and images, comma-separated. */
function containerCells(path: string, priority = 1): TableColumn[] {
  const containers = (o: KubeObject) => array(o, path) as { name?: string; image?: string }[];
  return [
    column(
      'Containers',
      'Names of each container in the template.',
      (o) =>
        containers(o)
          .map((c) => c.name ?? '')
          .join(','),
      { priority },
    ),
    column(
      'Images',
      'Images referenced by each container in the template.',
      (o) =>
        containers(o)
          .map((c) => c.image ?? '')
          .join(','),
      { priority },
    ),
  ];
}

/** A column named Selector, its description as kube's (the field's doc). */
function selector(description: string, cell: TableColumn['cell']): TableColumn {
  return wide('Selector', description, cell);
}

/** metav1.GetControllerOf: the owner reference marked controller. */
function controllerOf(
  o: KubeObject,
): { apiVersion?: string; kind?: string; name?: string } | undefined {
  return (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
}

interface Condition {
  type?: string;
  status?: string;
}

function hasCondition(o: KubeObject, type: string): boolean {
  return (array(o, 'status.conditions') as Condition[]).some(
    (c) => c.type === type && c.status === 'True',
  );
}

/** printJob's STATUS: the terminal condition, else Terminating, Suspended…, else Running. */
function jobStatus(o: KubeObject): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  if (hasCondition(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** printJob's COMPLETIONS: `succeeded/completions`, or `n/1 of p` for a work queue. */
function jobCompletions(o: KubeObject): string {
  const succeeded = int(o, 'status.succeeded');
  const completions = at(o, 'spec.completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = at(o, 'spec.parallelism');
  if (typeof parallelism === 'number' && parallelism > 1) return `${succeeded}/1 of ${parallelism}`;
  return `${succeeded}/1`;
}

function jobDuration(o: KubeObject, now: number): string {
  const start = text(o, 'status.startTime', '');
  if (!start) return '';
  const end = text(o, 'status.completionTime', '');
  return ageSince(start, end ? Date.parse(end) : now);
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

/** The first `max` items, then kube printers' `+ N more...`. */
function abbreviated(items: string[], max: number, separator: string): string {
  const joined = items.slice(0, max).join(separator);
  return items.length > max ? `${joined} + ${items.length - max} more...` : joined;
}

/** formatDiscoveryPorts / formatDiscoveryEndpoints: up to three, then `+ N more...`. */
function firstThree(items: string[]): string {
  return items.length === 0 ? '<unset>' : abbreviated(items, 3, ',');
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

/** formatHosts: up to three rule hosts, `*` when none names one. */
function ingressHosts(o: KubeObject): string {
  const rules = array(o, 'spec.rules') as { host?: string }[];
  const list = rules.slice(0, 3).flatMap((r) => (r.host ? [r.host] : []));
  if (list.length === 0) return '*';
  const joined = list.join(',');
  return rules.length > 3 ? `${joined} + ${rules.length - 3} more...` : joined;
}

/** ingressLoadBalancerStatusStringer (not wide): IPs and hostnames, cut at 16 characters. */
function ingressAddress(o: KubeObject): string {
  const all = (array(o, 'status.loadBalancer.ingress') as { ip?: string; hostname?: string }[])
    .flatMap((i) => [...(i.ip ? [i.ip] : []), ...(i.hostname ? [i.hostname] : [])])
    .join(',');
  return all.length > 16 ? `${all.slice(0, 13)}...` : all;
}

/** An IntOrString cell: the number or the string, `N/A` when unset. */
function intOrString(o: KubeObject, path: string): string {
  const value = at(o, path);
  return typeof value === 'number' || typeof value === 'string' ? String(value) : 'N/A';
}

/**
 * events.k8s.io/v1 Events: the same objects as core/v1 Events (one resource, two group versions),
 * printed by the same printer, which reads the internal Event (note is message, regarding is
 * involvedObject).
 */
/** printHorizontalPodAutoscaler's columns, `targets` printing the metrics of the version. */
function hpaColumns(targets: (o: KubeObject) => string): TableColumn[] {
  return [
    NAME_COLUMN,
    column(
      'Reference',
      fieldDoc('autoscaling.v2.HorizontalPodAutoscalerSpec', 'scaleTargetRef'),
      (o) =>
        `${text(o, 'spec.scaleTargetRef.kind', '')}/${text(o, 'spec.scaleTargetRef.name', '')}`,
    ),
    column(
      'Targets',
      'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.',
      targets,
    ),
    column(
      'MinPods',
      'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down. It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.',
      (o) => {
        const min = at(o, 'spec.minReplicas');
        return typeof min === 'number' ? String(min) : '<unset>';
      },
    ),
    column('MaxPods', fieldDoc('autoscaling.v2.HorizontalPodAutoscalerSpec', 'maxReplicas'), (o) =>
      String(int(o, 'spec.maxReplicas')),
    ),
    column(
      'Replicas',
      fieldDoc('autoscaling.v2.HorizontalPodAutoscalerStatus', 'currentReplicas'),
      (o) => String(int(o, 'status.currentReplicas')),
    ),
    AGE_COLUMN,
  ];
}

/** printHorizontalPodAutoscaler for autoscaling/v1: the CPU target as its only metric. */
function hpaTargets(o: KubeObject): string {
  const target = at(o, 'spec.targetCPUUtilizationPercentage');
  if (typeof target !== 'number') return '<none>';
  const current = at(o, 'status.currentCPUUtilizationPercentage');
  return `cpu: ${typeof current === 'number' ? `${current}%` : '<unknown>'}/${target}%`;
}

/**
 * formatHPAMetrics (kubernetes pkg/printers/internalversion/printers.go): each metric as
 * `current/target`, resource metrics named, at most two and how many more.
 */
function hpaMetrics(o: KubeObject): string {
  const specs = array(o, 'spec.metrics') as Record<string, unknown>[];
  if (specs.length === 0) return '<none>';
  const statuses = array(o, 'status.currentMetrics') as Record<string, unknown>[];
  // A Quantity's String(): the canonical text the decode stored, `0` when unset.
  const str = (value: unknown) =>
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '0';
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    const source = (key: string) =>
      at(spec, `${key}.target`) as Record<string, unknown> | undefined;
    const current = (key: string, field: string): unknown =>
      status ? at(status, `${key}.current.${field}`) : undefined;
    const has = (key: string) => status !== undefined && typeof status[key] === 'object';
    switch (spec['type']) {
      case 'External':
      case 'Object': {
        const key = spec['type'] === 'External' ? 'external' : 'object';
        const target = source(key) ?? {};
        if (target['averageValue'] != null) {
          const now = current(key, 'averageValue');
          return `${now != null ? str(now) : '<unknown>'}/${str(target['averageValue'])} (avg)`;
        }
        return `${has(key) ? str(current(key, 'value')) : '<unknown>'}/${str(target['value'])}`;
      }
      case 'Pods':
        return `${has('pods') ? str(current('pods', 'averageValue')) : '<unknown>'}/${str(source('pods')?.['averageValue'])}`;
      case 'Resource':
      case 'ContainerResource': {
        const key = spec['type'] === 'Resource' ? 'resource' : 'containerResource';
        const name = text(spec, `${key}.name`, '');
        const target = source(key) ?? {};
        if (target['averageValue'] != null)
          return `${name}: ${has(key) ? str(current(key, 'averageValue')) : '<unknown>'}/${str(target['averageValue'])}`;
        const now = current(key, 'averageUtilization');
        const utilization = target['averageUtilization'];
        return `${name}: ${typeof now === 'number' ? `${now}%` : '<unknown>'}/${typeof utilization === 'number' ? `${utilization}%` : '<auto>'}`;
      }
      default:
        return '<unknown type>';
    }
  });
  return abbreviated(list, 2, ', ');
}

/**
 * autoscaling/v2 HorizontalPodAutoscalers, kube's storage version (autoscaling/v1 is a view of
 * the same objects), printed by printHorizontalPodAutoscaler.
 */

/** Each built-in resource's Table columns, by the resource (builtin-resources.ts names them). */
export const builtinTableColumns = {
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
  events: [
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
    fieldText('Message', 'core.v1.Event', 'message', ''),
  ],
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
  leases: [
    NAME_COLUMN,
    column('Holder', 'The holder of the lease', (o) => text(o, 'spec.holderIdentity', '')),
    AGE_COLUMN,
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
  jobs: [
    NAME_COLUMN,
    column('Status', 'Status of the job.', jobStatus),
    column('Completions', fieldDoc('batch.v1.JobStatus', 'succeeded'), jobCompletions),
    column('Duration', 'Time required to complete the job.', jobDuration),
    AGE_COLUMN,
    ...containerCells(TEMPLATE_CONTAINERS),
    selector(fieldDoc('batch.v1.JobSpec', 'selector'), (o) => selectorText(at(o, 'spec.selector'))),
  ],
  cronjobs: [
    NAME_COLUMN,
    fieldText('Schedule', 'batch.v1.CronJob', 'spec.schedule', ''),
    fieldText('Timezone', 'batch.v1.CronJob', 'spec.timeZone'),
    column(
      'Suspend',
      fieldDoc('batch.v1.CronJobSpec', 'suspend'),
      (o) => {
        const suspend = at(o, 'spec.suspend');
        return typeof suspend === 'boolean' ? (suspend ? 'True' : 'False') : '<unset>';
      },
      { type: 'boolean' },
    ),
    column(
      'Active',
      fieldDoc('batch.v1.CronJobStatus', 'active'),
      (o) => array(o, 'status.active').length,
      {
        type: 'integer',
      },
    ),
    column('Last Schedule', fieldDoc('batch.v1.CronJobStatus', 'lastScheduleTime'), (o, now) => {
      const last = text(o, 'status.lastScheduleTime', '');
      return last ? ageSince(last, now) : '<none>';
    }),
    AGE_COLUMN,
    ...containerCells('spec.jobTemplate.spec.template.spec.containers'),
    selector(fieldDoc('batch.v1.JobSpec', 'selector'), (o) =>
      selectorText(at(o, 'spec.jobTemplate.spec.selector')),
    ),
  ],
  endpoints: [
    NAME_COLUMN,
    column('Endpoints', fieldDoc('core.v1.Endpoints', 'subsets'), endpointsText),
    AGE_COLUMN,
  ],
  endpointslices: [
    NAME_COLUMN,
    fieldText('AddressType', 'discovery.v1.EndpointSlice', 'addressType', ''),
    column('Ports', fieldDoc('discovery.v1.EndpointSlice', 'ports'), (o) =>
      firstThree(
        (array(o, 'ports') as { port?: number }[]).map((p) =>
          typeof p.port === 'number' ? String(p.port) : '<unset>',
        ),
      ),
    ),
    column('Endpoints', fieldDoc('discovery.v1.EndpointSlice', 'endpoints'), (o) =>
      firstThree(
        (array(o, 'endpoints') as { addresses?: string[] }[]).flatMap((e) => e.addresses ?? []),
      ),
    ),
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
  ingresses: [
    NAME_COLUMN,
    column(
      'Class',
      'The name of the IngressClass resource that should be used for additional configuration',
      (o) => text(o, 'spec.ingressClassName'),
    ),
    column(
      'Hosts',
      'Hosts that incoming requests are matched against before the ingress rule',
      ingressHosts,
    ),
    column(
      'Address',
      'Address is a list containing ingress points for the load-balancer',
      ingressAddress,
    ),
    column('Ports', 'Ports of TLS configurations that open', (o) =>
      array(o, 'spec.tls').length > 0 ? '80, 443' : '80',
    ),
    AGE_COLUMN,
  ],
  networkpolicies: [
    NAME_COLUMN,
    column(
      'Pod-Selector',
      'Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.',
      (o) => selectorText(at(o, 'spec.podSelector') ?? {}),
    ),
    AGE_COLUMN,
  ],
  poddisruptionbudgets: [
    NAME_COLUMN,
    column('Min Available', 'The minimum number of pods that must be available.', (o) =>
      intOrString(o, 'spec.minAvailable'),
    ),
    column('Max Unavailable', 'The maximum number of pods that may be unavailable.', (o) =>
      intOrString(o, 'spec.maxUnavailable'),
    ),
    intColumn(
      'Allowed Disruptions',
      'Calculated number of pods that may be disrupted at this time.',
      'status.disruptionsAllowed',
    ),
    AGE_COLUMN,
  ],
  eventsV1: [
    column('Last Seen', 'Time when last this event was observed', (o, now) => {
      const last =
        text(o, 'series.lastObservedTime', '') ||
        text(o, 'deprecatedLastTimestamp', '') ||
        text(o, 'eventTime', '');
      return ageSince(last || o.metadata.creationTimestamp, now);
    }),
    column('Type', 'Type of this event', (o) => text(o, 'type', '')),
    column('Reason', 'Reason why this event was generated', (o) => text(o, 'reason', '')),
    column(
      'Object',
      'The object this event is about',
      (o) => `${text(o, 'regarding.kind', '').toLowerCase()}/${text(o, 'regarding.name', '')}`,
    ),
    column('Message', fieldDoc('core.v1.Event', 'message'), (o) => text(o, 'note', '')),
  ],
  horizontalpodautoscalers: hpaColumns(hpaTargets),
  horizontalpodautoscalersV2: hpaColumns(hpaMetrics),
  review: [NAME_COLUMN, AGE_COLUMN],
  roles: [NAME_COLUMN, CREATED_AT],
  rolebindings: bindingColumns(),
} satisfies Record<string, TableColumn[]>;
