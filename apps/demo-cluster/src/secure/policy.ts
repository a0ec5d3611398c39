import { isApiError, type KubeObject } from '@listwatch/api';
import type { RestClient } from '@listwatch/client';
import { CONTROLLERS_LEASE } from '../demo-cluster.js';

// The least-privilege roles of `pnpm demo --secure`, after kube's bootstrap policy
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go for the controllers'
// system:controller:* roles bound to their kube-system service accounts, policy.go for
// system:kube-scheduler, system:kube-controller-manager and system:node), cut down to the
// resources the demo serves and its components use.

const RBAC = 'rbac.authorization.k8s.io';
const READ = ['get', 'list', 'watch'];

interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const rule = (verbs: string[], apiGroups: string[], resources: string[]): Rule => ({
  verbs,
  apiGroups,
  resources,
});

interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  apiGroup?: string;
  namespace?: string;
}

/** controller_policy.go's eventsRule. */
const eventsRule = rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);

/** The user a component's client certificate names (CN) and its groups (O). */
export interface Identity {
  user: string;
  groups: string[];
}

/**
 * A controller of kube-controller-manager acts as its service account in kube-system
 * (--use-service-account-credentials); here the same user is named by a client certificate.
 */
export function controllerIdentity(controller: string): Identity {
  return {
    user: `system:serviceaccount:kube-system:${controller}`,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
  };
}

/** A kubelet: system:node:<name> in system:nodes, as its client certificate says in kube. */
export function nodeIdentity(node: string): Identity {
  return { user: `system:node:${node}`, groups: ['system:nodes'] };
}

export const CONTROLLER_MANAGER: Identity = { user: 'system:kube-controller-manager', groups: [] };
export const SCHEDULER: Identity = { user: 'system:kube-scheduler', groups: [] };
/** The dashboard reads nodes, workloads and /metrics, nothing else. */
export const DASHBOARD: Identity = { user: 'listwatch-demo-dashboard', groups: [] };
/** kubeadm's admin.conf user. */
export const ADMIN: Identity = { user: 'kubernetes-admin', groups: ['system:masters'] };

/** controller_policy.go's roles of the controllers the demo runs, by controller name. */
export const CONTROLLER_ROLES: Readonly<Record<string, Rule[]>> = {
  'deployment-controller': [
    rule(['get', 'list', 'watch', 'update'], ['apps'], ['deployments']),
    // patch besides kube's update: the demo's controller writes status by server-side apply.
    rule(['update', 'patch'], ['apps'], ['deployments/status']),
    rule(['update'], ['apps'], ['deployments/finalizers']),
    rule(
      ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      ['apps'],
      ['replicasets'],
    ),
    rule(['get', 'list', 'watch', 'update'], [''], ['pods']),
    eventsRule,
  ],
  'replicaset-controller': [
    rule(['get', 'list', 'watch', 'update'], ['apps'], ['replicasets']),
    // patch besides kube's update: the demo's controller writes status by server-side apply.
    rule(['update', 'patch'], ['apps'], ['replicasets/status']),
    rule(['update'], ['apps'], ['replicasets/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
    eventsRule,
  ],
  'generic-garbage-collector': [
    rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']),
    eventsRule,
  ],
  'namespace-controller': [
    rule(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
    rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
    // patch besides kube's update: the demo's controller writes status by server-side apply.
    rule(['patch'], [''], ['namespaces/status']),
    rule(['get', 'list', 'watch', 'delete', 'deletecollection'], ['*'], ['*']),
  ],
  'job-controller': [
    rule(['get', 'list', 'watch', 'update', 'patch'], ['batch'], ['jobs']),
    rule(['update', 'patch'], ['batch'], ['jobs/status']),
    rule(['update', 'patch'], ['batch'], ['jobs/finalizers']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
    eventsRule,
  ],
  'cronjob-controller': [
    rule(['get', 'list', 'watch', 'update'], ['batch'], ['cronjobs']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], ['batch'], ['jobs']),
    rule(['update', 'patch'], ['batch'], ['cronjobs/status']),
    rule(['update'], ['batch'], ['cronjobs/finalizers']),
    rule(['list', 'delete'], [''], ['pods']),
    eventsRule,
  ],
  'endpointslice-controller': [
    rule(READ, [''], ['services', 'pods', 'nodes']),
    rule(['update'], [''], ['services/finalizers']),
    rule(['get', 'list', 'create', 'update', 'delete'], ['discovery.k8s.io'], ['endpointslices']),
    eventsRule,
  ],
  // kubernetes/sample-controller: reads Foos, writes their status, owns their Deployments.
  'sample-controller': [
    rule(READ, ['samplecontroller.k8s.io'], ['foos']),
    rule(['patch'], ['samplecontroller.k8s.io'], ['foos/status']),
    rule(['update'], ['samplecontroller.k8s.io'], ['foos/finalizers']),
    rule([...READ, 'create', 'update'], ['apps'], ['deployments']),
    eventsRule,
  ],
};

/** Roles of the components that are not kube-controller-manager controllers, by role name. */
const COMPONENT_ROLES: Readonly<Record<string, { rules: Rule[]; subjects: Subject[] }>> = {
  // policy.go: the shared informers list and watch everything; leader election on one Lease.
  'system:kube-controller-manager': {
    rules: [
      eventsRule,
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      {
        verbs: ['get', 'update'],
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: [CONTROLLERS_LEASE.name],
      },
      rule(['get'], [''], ['namespaces']),
      rule(['list', 'watch'], ['*'], ['*']),
    ],
    subjects: [user(CONTROLLER_MANAGER.user)],
  },
  // policy.go's system:kube-scheduler without pods delete (kube's preemption; the demo's
  // scheduler binds, it never evicts) and without its own leader Lease (it runs under the
  // controllers' one).
  'system:kube-scheduler': {
    rules: [
      eventsRule,
      rule(READ, [''], ['nodes']),
      rule(READ, [''], ['pods']),
      rule(['create'], [''], ['pods/binding', 'bindings']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(READ, [''], ['services', 'replicationcontrollers']),
      rule(READ, ['apps'], ['replicasets', 'statefulsets']),
    ],
    subjects: [user(SCHEDULER.user)],
  },
  // policy.go's NodeRules, for what a simulated kubelet does. kube binds no one to it and
  // authorizes kubelets with the Node authorizer; the demo binds the system:nodes group.
  'system:node': {
    rules: [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(READ, [''], ['services']),
      rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
      rule(['update', 'patch'], [''], ['nodes/status']),
      rule(['update', 'patch'], [''], ['nodes']),
      rule(['create', 'update', 'patch'], [''], ['events']),
      rule(READ, [''], ['pods']),
      rule(['create', 'delete'], [''], ['pods']),
      rule(['update', 'patch'], [''], ['pods/status']),
      rule(['get'], [''], ['configmaps', 'secrets']),
      rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
    ],
    subjects: [group('system:nodes')],
  },
  [DASHBOARD.user]: {
    rules: [
      rule(READ, [''], ['nodes', 'pods']),
      rule(READ, ['apps'], ['deployments', 'replicasets']),
      rule(READ, ['samplecontroller.k8s.io'], ['foos']),
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
    ],
    subjects: [user(DASHBOARD.user)],
  },
};

function user(name: string): Subject {
  return { apiGroup: RBAC, kind: 'User', name };
}
function group(name: string): Subject {
  return { apiGroup: RBAC, kind: 'Group', name };
}

const LABELS = { 'app.kubernetes.io/part-of': 'listwatch-demo' };

/** The ClusterRoles and ClusterRoleBindings of the secure demo. */
export function demoPolicy(extraControllers: Readonly<Record<string, Rule[]>> = {}): {
  roles: KubeObject[];
  bindings: KubeObject[];
} {
  const roles: KubeObject[] = [];
  const bindings: KubeObject[] = [];
  const add = (name: string, rules: Rule[], subjects: Subject[]) => {
    roles.push({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name, labels: LABELS },
      rules,
    });
    bindings.push({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: LABELS },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name },
      subjects,
    });
  };
  for (const [controller, rules] of Object.entries({ ...CONTROLLER_ROLES, ...extraControllers }))
    add(`system:controller:${controller}`, rules, [
      { kind: 'ServiceAccount', name: controller, namespace: 'kube-system' },
    ]);
  for (const [name, { rules, subjects }] of Object.entries(COMPONENT_ROLES))
    add(name, rules, subjects);
  return { roles, bindings };
}

/**
 * Creates or replaces the policy's roles and bindings, as kube-apiserver's bootstrap-roles
 * reconciliation does at each start (a binding's roleRef never changes, so replacing keeps it).
 */
export async function ensurePolicy(
  admin: RestClient,
  policy: { roles: KubeObject[]; bindings: KubeObject[] },
): Promise<void> {
  const put = async (plural: string, object: KubeObject) => {
    const path = `/apis/${RBAC}/v1/${plural}`;
    try {
      await admin.request({ method: 'POST', path, body: object });
    } catch (err) {
      if (!isApiError(err) || err.code !== 409) throw err;
      const name = object.metadata.name ?? '';
      const current = await admin.request<KubeObject>({ method: 'GET', path: `${path}/${name}` });
      await admin.request({
        method: 'PUT',
        path: `${path}/${name}`,
        body: {
          ...object,
          metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion },
        },
      });
    }
  };
  for (const role of policy.roles) await put('clusterroles', role);
  for (const binding of policy.bindings) await put('clusterrolebindings', binding);
}
