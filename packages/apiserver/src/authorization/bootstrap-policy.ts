import { ApiError, type KubeObject } from '@listwatch/api';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { loopbackContext, type LoopbackParts } from '../registry/rest/loopback-context.js';
import type { PolicyRule } from './policy-rule.js';

// The default roles and bindings every cluster starts with, a subset of
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go for the resources served here.

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const API_VERSION = `${RBAC_GROUP}/v1`;
const BOOTSTRAP = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };
const AGGREGATE = (to: 'admin' | 'edit' | 'view') => `rbac.authorization.k8s.io/aggregate-to-${to}`;

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({
  verbs,
  nonResourceURLs,
});

function clusterRole(
  name: string,
  rules: PolicyRule[],
  extra: { labels?: Record<string, string>; aggregateTo?: 'admin' | 'edit' | 'view' } = {},
): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP, ...extra.labels }, annotations: AUTOUPDATE },
    ...(extra.aggregateTo
      ? {
          aggregationRule: {
            clusterRoleSelectors: [{ matchLabels: { [AGGREGATE(extra.aggregateTo)]: 'true' } }],
          },
          rules: [],
        }
      : { rules }),
  };
}

function binding(name: string, role: string, groups: string[]): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: BOOTSTRAP, annotations: AUTOUPDATE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((group) => ({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Group',
      name: group,
    })),
  };
}

const CORE_WORKLOADS = [
  'pods',
  'configmaps',
  'services',
  'events',
  'endpoints',
  'persistentvolumeclaims',
];
const APPS = ['deployments', 'replicasets', 'statefulsets', 'daemonsets'];

/** The default ClusterRoles: cluster-admin, the aggregated admin/edit/view, discovery, auth-delegator. */
export const BOOTSTRAP_CLUSTER_ROLES: readonly KubeObject[] = [
  clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
  clusterRole('admin', [], { aggregateTo: 'admin' }),
  clusterRole('edit', [], { aggregateTo: 'edit', labels: { [AGGREGATE('admin')]: 'true' } }),
  clusterRole('view', [], { aggregateTo: 'view', labels: { [AGGREGATE('edit')]: 'true' } }),
  clusterRole(
    'system:aggregate-to-admin',
    [
      rule([...READ, ...WRITE], ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']),
      rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
    ],
    { labels: { [AGGREGATE('admin')]: 'true' } },
  ),
  clusterRole(
    'system:aggregate-to-edit',
    [
      rule(
        [...READ, ...WRITE],
        [''],
        [...CORE_WORKLOADS, 'secrets', 'serviceaccounts', 'pods/exec', 'pods/eviction'],
      ),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(
        [...READ, ...WRITE],
        ['apps'],
        [...APPS, 'deployments/scale', 'replicasets/scale', 'statefulsets/scale'],
      ),
      rule([...READ, ...WRITE], [''], ['replicationcontrollers', 'replicationcontrollers/scale']),
      rule([...READ, ...WRITE], ['autoscaling'], ['horizontalpodautoscalers']),
      rule([...READ, ...WRITE], ['batch'], ['jobs', 'cronjobs']),
      rule([...READ, ...WRITE], ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
      rule([...READ, ...WRITE], ['policy'], ['poddisruptionbudgets']),
      rule([...READ, ...WRITE], ['coordination.k8s.io'], ['leases']),
      rule(['impersonate'], [''], ['serviceaccounts']),
    ],
    { labels: { [AGGREGATE('edit')]: 'true', [AGGREGATE('admin')]: 'true' } },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      rule(
        READ,
        [''],
        [
          ...CORE_WORKLOADS,
          'pods/log',
          'pods/status',
          'namespaces',
          'namespaces/status',
          'serviceaccounts',
        ],
      ),
      rule(
        READ,
        ['apps'],
        [
          ...APPS,
          'deployments/scale',
          'replicasets/scale',
          'deployments/status',
          'replicasets/status',
          'statefulsets/scale',
          'statefulsets/status',
          'daemonsets/status',
          'controllerrevisions',
        ],
      ),
      rule(
        READ,
        [''],
        [
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'replicationcontrollers/status',
          'persistentvolumeclaims/status',
          'resourcequotas',
          'resourcequotas/status',
          'limitranges',
        ],
      ),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['jobs', 'jobs/status', 'cronjobs', 'cronjobs/status']),
      rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(READ, ['coordination.k8s.io'], ['leases']),
    ],
    {
      labels: {
        [AGGREGATE('view')]: 'true',
        [AGGREGATE('edit')]: 'true',
        [AGGREGATE('admin')]: 'true',
      },
    },
  ),
  clusterRole('system:discovery', [
    urls(
      ['get'],
      [
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
        '/healthz',
        '/livez',
        '/openapi',
        '/openapi/*',
        '/readyz',
        '/version',
        '/version/',
      ],
    ),
  ]),
  clusterRole('system:basic-user', [
    rule(
      ['create'],
      ['authorization.k8s.io'],
      ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    ),
    rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
  ]),
  clusterRole('system:service-account-issuer-discovery', [
    urls(
      ['get'],
      [
        '/.well-known/openid-configuration',
        '/.well-known/openid-configuration/',
        '/openid/v1/jwks',
        '/openid/v1/jwks/',
      ],
    ),
  ]),
  // Bound by delegating authenticators and authorizers (webhook token / authz clients).
  clusterRole('system:auth-delegator', [
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  ]),
  clusterRole('system:public-info-viewer', [
    urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/']),
  ]),
];

/** The default bindings: system:masters are cluster-admin; everyone may discover and ask. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly KubeObject[] = [
  binding('cluster-admin', 'cluster-admin', ['system:masters']),
  binding('system:discovery', 'system:discovery', ['system:authenticated']),
  binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
  binding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [
    'system:serviceaccounts',
  ]),
  binding('system:public-info-viewer', 'system:public-info-viewer', [
    'system:authenticated',
    'system:unauthenticated',
  ]),
];

/**
 * Creates the default roles and bindings that are missing (the rbac/bootstrap-roles post-start
 * hook), through the RBAC resources' Stores as the loopback client.
 */
export async function ensureBootstrapPolicy(
  registry: ResourceRegistry,
  loopback: LoopbackParts,
): Promise<void> {
  const create = async (resource: string, object: KubeObject) => {
    const store = registry.lookup(RBAC_GROUP, 'v1', resource)?.store;
    if (!store) return;
    const ctx = loopbackContext(loopback, { verb: 'create', apiGroup: RBAC_GROUP, resource });
    await store
      .create(ctx, undefined, structuredClone(object), { dryRun: false })
      .catch((err: unknown) => {
        if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
      });
  };
  for (const role of BOOTSTRAP_CLUSTER_ROLES) await create('clusterroles', role);
  for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) await create('clusterrolebindings', b);
}
