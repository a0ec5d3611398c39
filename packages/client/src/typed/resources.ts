import { builtinKinds } from '@listwatch/api';
import type * as apiextensionsv1 from 'kubernetes-types/apiextensions/v1.js';
import type { APIService } from './apiregistration.js';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type * as authenticationv1 from 'kubernetes-types/authentication/v1.js';
import type * as authorizationv1 from 'kubernetes-types/authorization/v1.js';
import type * as autoscalingv1 from 'kubernetes-types/autoscaling/v1.js';
import type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import type * as coordinationv1 from 'kubernetes-types/coordination/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type * as discoveryv1 from 'kubernetes-types/discovery/v1.js';
import type * as eventsv1 from 'kubernetes-types/events/v1.js';
import type * as networkingv1 from 'kubernetes-types/networking/v1.js';
import type * as policyv1 from 'kubernetes-types/policy/v1.js';
import type * as rbacv1 from 'kubernetes-types/rbac/v1.js';
import type { ResourceRef } from '../rest/resource-client.js';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';

/** Carries a reference's object type at compile time only; no such property exists. */
export declare const objectType: unique symbol;

/**
 * A resource reference that knows its object type, so `client.resource(coreV1.pods)` is a
 * `ResourceClient<Pod>` and informers and listers made from it hold `Pod`s (client-go's typed
 * clientsets, kubernetes/client-go kubernetes/typed/<group>/<version>). The types are
 * kubernetes-types', generated from Kubernetes' OpenAPI.
 */
export interface TypedResourceRef<T extends KubernetesObject> extends ResourceRef {
  readonly kind: string;
  readonly [objectType]?: T;
}

/** A reference as `resource()` and `informerFor()` take it: typed or not. */
export type ResourceRefOf<T extends KubernetesObject> = ResourceRef & {
  readonly [objectType]?: T;
};

/**
 * The object type of a typed reference: `ObjectOf<typeof appsV1.deployments>` is `Deployment`,
 * `ObjectOf<typeof foos>` the `Foo` that `typedResource<Foo>` was given.
 */
export type ObjectOf<R> = R extends { readonly [objectType]?: infer T }
  ? Exclude<T, undefined> extends never
    ? KubernetesObject
    : Exclude<T, undefined>
  : never;

/**
 * A typed reference to a resource whose name and scope are anything's: a custom resource
 * (`typedResource<Foo>({ group: 'samplecontroller.k8s.io', version: 'v1alpha1', kind: 'Foo',
 * plural: 'foos', namespaced: true })`), or one RESTMapper found.
 */
export function typedResource<T extends KubernetesObject>(
  ref: ResourceRef & { kind: string },
): TypedResourceRef<T> {
  const { group, version, kind, plural, namespaced } = ref;
  return Object.freeze({ group, version, kind, plural, namespaced });
}

/** The plural and scope come from @listwatch/api's definitions, the one source of both. */
function builtin<T extends KubernetesObject>(
  group: string,
  version: string,
  kind: string,
): TypedResourceRef<T> {
  const def = builtinKinds.find(
    (r) => r.group === group && r.version === version && r.kind === kind,
  );
  if (!def) throw new Error(`no built-in resource ${group}/${version} ${kind}`);
  return typedResource<T>(def);
}

export const coreV1 = {
  configmaps: builtin<corev1.ConfigMap>('', 'v1', 'ConfigMap'),
  endpoints: builtin<corev1.Endpoints>('', 'v1', 'Endpoints'),
  events: builtin<corev1.Event>('', 'v1', 'Event'),
  limitranges: builtin<corev1.LimitRange>('', 'v1', 'LimitRange'),
  namespaces: builtin<corev1.Namespace>('', 'v1', 'Namespace'),
  nodes: builtin<corev1.Node>('', 'v1', 'Node'),
  persistentvolumeclaims: builtin<corev1.PersistentVolumeClaim>('', 'v1', 'PersistentVolumeClaim'),
  persistentvolumes: builtin<corev1.PersistentVolume>('', 'v1', 'PersistentVolume'),
  pods: builtin<corev1.Pod>('', 'v1', 'Pod'),
  podtemplates: builtin<corev1.PodTemplate>('', 'v1', 'PodTemplate'),
  replicationcontrollers: builtin<corev1.ReplicationController>('', 'v1', 'ReplicationController'),
  resourcequotas: builtin<corev1.ResourceQuota>('', 'v1', 'ResourceQuota'),
  secrets: builtin<corev1.Secret>('', 'v1', 'Secret'),
  serviceaccounts: builtin<corev1.ServiceAccount>('', 'v1', 'ServiceAccount'),
  services: builtin<corev1.Service>('', 'v1', 'Service'),
} as const;

export const appsV1 = {
  controllerrevisions: builtin<appsv1.ControllerRevision>('apps', 'v1', 'ControllerRevision'),
  daemonsets: builtin<appsv1.DaemonSet>('apps', 'v1', 'DaemonSet'),
  deployments: builtin<appsv1.Deployment>('apps', 'v1', 'Deployment'),
  replicasets: builtin<appsv1.ReplicaSet>('apps', 'v1', 'ReplicaSet'),
  statefulsets: builtin<appsv1.StatefulSet>('apps', 'v1', 'StatefulSet'),
} as const;

/** The reviews: create-only, answered and not stored (`client.resource(...).create(review)`). */
export const authenticationV1 = {
  selfsubjectreviews: builtin<authenticationv1.SelfSubjectReview>(
    'authentication.k8s.io',
    'v1',
    'SelfSubjectReview',
  ),
  tokenreviews: builtin<authenticationv1.TokenReview>('authentication.k8s.io', 'v1', 'TokenReview'),
} as const;

export const authorizationV1 = {
  localsubjectaccessreviews: builtin<authorizationv1.LocalSubjectAccessReview>(
    'authorization.k8s.io',
    'v1',
    'LocalSubjectAccessReview',
  ),
  selfsubjectaccessreviews: builtin<authorizationv1.SelfSubjectAccessReview>(
    'authorization.k8s.io',
    'v1',
    'SelfSubjectAccessReview',
  ),
  selfsubjectrulesreviews: builtin<authorizationv1.SelfSubjectRulesReview>(
    'authorization.k8s.io',
    'v1',
    'SelfSubjectRulesReview',
  ),
  subjectaccessreviews: builtin<authorizationv1.SubjectAccessReview>(
    'authorization.k8s.io',
    'v1',
    'SubjectAccessReview',
  ),
} as const;

export const autoscalingV1 = {
  horizontalpodautoscalers: builtin<autoscalingv1.HorizontalPodAutoscaler>(
    'autoscaling',
    'v1',
    'HorizontalPodAutoscaler',
  ),
} as const;

export const autoscalingV2 = {
  horizontalpodautoscalers: builtin<autoscalingv2.HorizontalPodAutoscaler>(
    'autoscaling',
    'v2',
    'HorizontalPodAutoscaler',
  ),
} as const;

export const batchV1 = {
  cronjobs: builtin<batchv1.CronJob>('batch', 'v1', 'CronJob'),
  jobs: builtin<batchv1.Job>('batch', 'v1', 'Job'),
} as const;

export const coordinationV1 = {
  leases: builtin<coordinationv1.Lease>('coordination.k8s.io', 'v1', 'Lease'),
} as const;

export const discoveryV1 = {
  endpointslices: builtin<discoveryv1.EndpointSlice>('discovery.k8s.io', 'v1', 'EndpointSlice'),
} as const;

export const eventsV1 = {
  events: builtin<eventsv1.Event>('events.k8s.io', 'v1', 'Event'),
} as const;

export const networkingV1 = {
  ingresses: builtin<networkingv1.Ingress>('networking.k8s.io', 'v1', 'Ingress'),
  networkpolicies: builtin<networkingv1.NetworkPolicy>('networking.k8s.io', 'v1', 'NetworkPolicy'),
} as const;

export const policyV1 = {
  poddisruptionbudgets: builtin<policyv1.PodDisruptionBudget>(
    'policy',
    'v1',
    'PodDisruptionBudget',
  ),
} as const;

export const rbacV1 = {
  clusterrolebindings: builtin<rbacv1.ClusterRoleBinding>(
    'rbac.authorization.k8s.io',
    'v1',
    'ClusterRoleBinding',
  ),
  clusterroles: builtin<rbacv1.ClusterRole>('rbac.authorization.k8s.io', 'v1', 'ClusterRole'),
  rolebindings: builtin<rbacv1.RoleBinding>('rbac.authorization.k8s.io', 'v1', 'RoleBinding'),
  roles: builtin<rbacv1.Role>('rbac.authorization.k8s.io', 'v1', 'Role'),
} as const;

/** The apiserver serves CRDs itself (apiextensions-apiserver), outside @listwatch/api's list. */
export const apiextensionsV1 = {
  customresourcedefinitions: typedResource<apiextensionsv1.CustomResourceDefinition>({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  }),
} as const;

/** The aggregator's APIServices (kube-aggregator), outside @listwatch/api's list too. */
export const apiregistrationV1 = {
  apiservices: typedResource<APIService>({
    group: 'apiregistration.k8s.io',
    version: 'v1',
    kind: 'APIService',
    plural: 'apiservices',
    namespaced: false,
  }),
} as const;

/** Every typed reference above, for iteration. */
export const typedResources: readonly TypedResourceRef<KubernetesObject>[] = [
  coreV1,
  appsV1,
  authenticationV1,
  authorizationV1,
  autoscalingV1,
  autoscalingV2,
  batchV1,
  coordinationV1,
  discoveryV1,
  eventsV1,
  networkingV1,
  policyV1,
  rbacV1,
  apiextensionsV1,
  apiregistrationV1,
].flatMap((group) => Object.values(group) as TypedResourceRef<KubernetesObject>[]);
