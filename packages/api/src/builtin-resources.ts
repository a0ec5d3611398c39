import {
  builtinFieldLabels,
  selectableFieldsOf,
  type FieldLabels,
} from './builtin-field-labels.js';
import type { builtinTableColumns } from './builtin-table-printers.js';
import type { NameRule } from './names.js';
import type { ResourceDefinition, Verb } from './resource-definition.js';

// The built-in resources as discovery serves them: group, version, kind, names, scope, verbs
// and subresources. Each one's field labels are builtin-field-labels.ts's; its Table printer is
// named here and attached by builtin-resource-definitions.ts, so this table (all a client needs)
// does not load the printers, whose column descriptions come from the 673 KB schema source.

/** The key of a resource's Table columns in builtin-table-printers.ts. */
export type BuiltinPrinter = keyof typeof builtinTableColumns;

/** A built-in resource without its Table columns: `printer` names them. */
export type BuiltinKind = Omit<ResourceDefinition, 'tableColumns'> & {
  readonly printer: BuiltinPrinter;
};

/** The verbs of a resource that supports every operation. */
export const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

interface Spec extends FieldLabels {
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
  columns: BuiltinPrinter;
}

function define(spec: Spec): BuiltinKind {
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
    selectableFields: selectableFieldsOf(spec),
    indexes: spec.indexes ?? {},
    printer: spec.columns,
  };
}

const pods = define({
  kind: 'Pod',
  plural: 'pods',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status', 'binding', 'log', 'exec', 'attach', 'portforward'],
  ...builtinFieldLabels.pods,
  columns: 'pods',
});

const namespaces = define({
  kind: 'Namespace',
  plural: 'namespaces',
  shortNames: ['ns'],
  namespaced: false,
  nameRule: 'dns1123Label',
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status', 'finalize'],
  ...builtinFieldLabels.namespaces,
  columns: 'namespaces',
});

const configmaps = define({
  kind: 'ConfigMap',
  plural: 'configmaps',
  shortNames: ['cm'],
  namespaced: true,
  columns: 'configmaps',
});

const secrets = define({
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  ...builtinFieldLabels.secrets,
  columns: 'secrets',
});

const serviceaccounts = define({
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  shortNames: ['sa'],
  namespaced: true,
  subresources: ['token'],
  columns: 'serviceaccounts',
});

const nodes = define({
  kind: 'Node',
  plural: 'nodes',
  shortNames: ['no'],
  namespaced: false,
  subresources: ['status'],
  ...builtinFieldLabels.nodes,
  columns: 'nodes',
});

const services = define({
  kind: 'Service',
  plural: 'services',
  shortNames: ['svc'],
  categories: ['all'],
  namespaced: true,
  nameRule: 'dns1035Label',
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status'],
  columns: 'services',
});

const events = define({
  kind: 'Event',
  plural: 'events',
  shortNames: ['ev'],
  namespaced: true,
  ...builtinFieldLabels.events,
  columns: 'events',
});

/**
 * What a ReplicaSet and a ReplicationController share: in `kubectl get all`, a scale subresource,
 * and a field selector on status.replicas (kube's ReplicaSet and RC SelectableFields).
 */
const REPLICATED = {
  categories: ['all'],
  namespaced: true,
  subresources: ['status', 'scale'],
  ...builtinFieldLabels.replicated,
} satisfies Partial<Spec>;

const replicasets = define({
  group: 'apps',
  kind: 'ReplicaSet',
  plural: 'replicasets',
  shortNames: ['rs'],
  ...REPLICATED,
  columns: 'replicasets',
});

const deployments = define({
  group: 'apps',
  kind: 'Deployment',
  plural: 'deployments',
  shortNames: ['deploy'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status', 'scale'],
  columns: 'deployments',
});

const leases = define({
  group: 'coordination.k8s.io',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  columns: 'leases',
});

/**
 * A review: a question the apiserver answers and forgets (kubernetes pkg/registry/authentication
 * and pkg/registry/authorization: REST storages that are only a rest.Creater). Discovery lists
 * them with the create verb alone; they have no list kind and nothing is stored.
 */
function review(group: string, kind: string, namespaced = false): BuiltinKind {
  return define({
    group,
    kind,
    plural: `${kind.toLowerCase()}s`,
    namespaced,
    verbs: ['create'],
    columns: 'review',
  });
}

const AUTHENTICATION_GROUP = 'authentication.k8s.io';
const AUTHORIZATION_GROUP = 'authorization.k8s.io';
const selfsubjectreviews = review(AUTHENTICATION_GROUP, 'SelfSubjectReview');
const tokenreviews = review(AUTHENTICATION_GROUP, 'TokenReview');
const localsubjectaccessreviews = review(AUTHORIZATION_GROUP, 'LocalSubjectAccessReview', true);
const selfsubjectaccessreviews = review(AUTHORIZATION_GROUP, 'SelfSubjectAccessReview');
const selfsubjectrulesreviews = review(AUTHORIZATION_GROUP, 'SelfSubjectRulesReview');
const subjectaccessreviews = review(AUTHORIZATION_GROUP, 'SubjectAccessReview');

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** An RBAC kind and its cluster-scoped twin (Role/ClusterRole, RoleBinding/ClusterRoleBinding). */
function rbacScopes(
  kind: string,
  plural: string,
  columns: BuiltinPrinter,
): [BuiltinKind, BuiltinKind] {
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

const [roles, clusterroles] = rbacScopes('Role', 'roles', 'roles');
const [rolebindings, clusterrolebindings] = rbacScopes(
  'RoleBinding',
  'rolebindings',
  'rolebindings',
);

const statefulsets = define({
  group: 'apps',
  kind: 'StatefulSet',
  plural: 'statefulsets',
  shortNames: ['sts'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status', 'scale'],
  columns: 'statefulsets',
});

const daemonsets = define({
  group: 'apps',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  shortNames: ['ds'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status'],
  columns: 'daemonsets',
});

const controllerrevisions = define({
  group: 'apps',
  kind: 'ControllerRevision',
  plural: 'controllerrevisions',
  namespaced: true,
  columns: 'controllerrevisions',
});

const jobs = define({
  group: 'batch',
  kind: 'Job',
  plural: 'jobs',
  categories: ['all'],
  namespaced: true,
  subresources: ['status'],
  ...builtinFieldLabels.jobs,
  columns: 'jobs',
});

const cronjobs = define({
  group: 'batch',
  kind: 'CronJob',
  plural: 'cronjobs',
  shortNames: ['cj'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status'],
  columns: 'cronjobs',
});

const endpoints = define({
  kind: 'Endpoints',
  plural: 'endpoints',
  shortNames: ['ep'],
  namespaced: true,
  columns: 'endpoints',
});

const endpointslices = define({
  group: 'discovery.k8s.io',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  namespaced: true,
  columns: 'endpointslices',
});

const persistentvolumeclaims = define({
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  shortNames: ['pvc'],
  namespaced: true,
  subresources: ['status'],
  columns: 'persistentvolumeclaims',
});

const persistentvolumes = define({
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  shortNames: ['pv'],
  namespaced: false,
  subresources: ['status'],
  columns: 'persistentvolumes',
});

const resourcequotas = define({
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  shortNames: ['quota'],
  namespaced: true,
  subresources: ['status'],
  columns: 'resourcequotas',
});

const limitranges = define({
  kind: 'LimitRange',
  plural: 'limitranges',
  shortNames: ['limits'],
  namespaced: true,
  columns: 'limitranges',
});

const podtemplates = define({
  kind: 'PodTemplate',
  plural: 'podtemplates',
  namespaced: true,
  columns: 'podtemplates',
});

const replicationcontrollers = define({
  kind: 'ReplicationController',
  plural: 'replicationcontrollers',
  shortNames: ['rc'],
  ...REPLICATED,
  columns: 'replicationcontrollers',
});

const ingresses = define({
  group: 'networking.k8s.io',
  kind: 'Ingress',
  plural: 'ingresses',
  shortNames: ['ing'],
  namespaced: true,
  subresources: ['status'],
  columns: 'ingresses',
});

const networkpolicies = define({
  group: 'networking.k8s.io',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  shortNames: ['netpol'],
  namespaced: true,
  columns: 'networkpolicies',
});

const poddisruptionbudgets = define({
  group: 'policy',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  shortNames: ['pdb'],
  namespaced: true,
  subresources: ['status'],
  columns: 'poddisruptionbudgets',
});

const eventsV1 = define({
  group: 'events.k8s.io',
  kind: 'Event',
  plural: 'events',
  shortNames: ['ev'],
  namespaced: true,
  columns: 'eventsV1',
});

/** What both served versions of HorizontalPodAutoscalers are. */
const HPA: Omit<Spec, 'columns'> = {
  group: 'autoscaling',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  shortNames: ['hpa'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status'],
};

const horizontalpodautoscalers = define({
  ...HPA,
  columns: 'horizontalpodautoscalers',
});

const horizontalpodautoscalersV2 = define({
  ...HPA,
  version: 'v2',
  columns: 'horizontalpodautoscalersV2',
});

/**
 * Every built-in resource. Discovery lists the groups in the order they first appear here, which
 * is kube-apiserver's (its group priority: apps, events.k8s.io, authentication.k8s.io,
 * authorization.k8s.io, autoscaling, batch, networking,
 * policy, rbac, coordination, discovery).
 */
export const builtinKinds: readonly BuiltinKind[] = [
  namespaces,
  pods,
  configmaps,
  secrets,
  serviceaccounts,
  nodes,
  services,
  events,
  endpoints,
  persistentvolumeclaims,
  persistentvolumes,
  resourcequotas,
  limitranges,
  podtemplates,
  replicationcontrollers,
  replicasets,
  deployments,
  statefulsets,
  daemonsets,
  controllerrevisions,
  eventsV1,
  selfsubjectreviews,
  tokenreviews,
  localsubjectaccessreviews,
  selfsubjectaccessreviews,
  selfsubjectrulesreviews,
  subjectaccessreviews,
  horizontalpodautoscalersV2,
  horizontalpodautoscalers,
  jobs,
  cronjobs,
  ingresses,
  networkpolicies,
  poddisruptionbudgets,
  roles,
  clusterroles,
  rolebindings,
  clusterrolebindings,
  leases,
  endpointslices,
];

/** Looks a built-in resource up by plural, singular, short name or kind (as kubectl does). */
export function findBuiltinKind(name: string, group?: string): BuiltinKind | undefined {
  const lower = name.toLowerCase();
  return builtinKinds.find(
    (r) =>
      (group === undefined || r.group === group) &&
      (r.plural === lower ||
        r.singular === lower ||
        r.kind.toLowerCase() === lower ||
        r.shortNames.includes(lower)),
  );
}
