import { qualifiedResource, type ResourceDefinition } from '@listwatch/api';
import { customResourceDefinitionStrategy } from '../apiextensions/customresourcedefinition-strategy.js';
import { apiServiceStrategy } from '../apiregistration/apiservice-strategy.js';
import { controllerRevisionStrategy } from './apps/controllerrevision/strategy.js';
import { daemonSetStrategy } from './apps/daemonset/strategy.js';
import { deploymentStrategy } from './apps/deployment/strategy.js';
import { replicaSetStrategy } from './apps/replicaset/strategy.js';
import { statefulSetStrategy } from './apps/statefulset/strategy.js';
import {
  localSubjectAccessReviewStrategy,
  selfSubjectAccessReviewStrategy,
  selfSubjectReviewStrategy,
  selfSubjectRulesReviewStrategy,
  subjectAccessReviewStrategy,
  tokenReviewStrategy,
} from './authorization/review-strategy.js';
import {
  horizontalPodAutoscalerStrategy,
  horizontalPodAutoscalerV1Strategy,
} from './autoscaling/horizontalpodautoscaler/strategy.js';
import { cronJobStrategy } from './batch/cronjob/strategy.js';
import { jobStrategy } from './batch/job/strategy.js';
import { leaseStrategy } from './coordination/lease/strategy.js';
import { configMapStrategy } from './core/configmap/strategy.js';
import { endpointsStrategy } from './core/endpoint/strategy.js';
import { eventStrategy, eventsV1Strategy } from './core/event/strategy.js';
import { limitRangeStrategy } from './core/limitrange/strategy.js';
import { namespaceStrategy } from './core/namespace/strategy.js';
import { nodeStrategy } from './core/node/strategy.js';
import { persistentVolumeStrategy } from './core/persistentvolume/strategy.js';
import { persistentVolumeClaimStrategy } from './core/persistentvolumeclaim/strategy.js';
import { podStrategy } from './core/pod/strategy.js';
import { podTemplateStrategy } from './core/podtemplate/strategy.js';
import { replicationControllerStrategy } from './core/replicationcontroller/strategy.js';
import { resourceQuotaStrategy } from './core/resourcequota/strategy.js';
import { secretStrategy } from './core/secret/strategy.js';
import { serviceStrategy } from './core/service/strategy.js';
import { serviceAccountStrategy } from './core/serviceaccount/strategy.js';
import { endpointSliceStrategy } from './discovery/endpointslice/strategy.js';
import { ingressStrategy } from './networking/ingress/strategy.js';
import { networkPolicyStrategy } from './networking/networkpolicy/strategy.js';
import { podDisruptionBudgetStrategy } from './policy/poddisruptionbudget/strategy.js';
import {
  clusterRoleBindingStrategy,
  clusterRoleStrategy,
  roleBindingStrategy,
  roleStrategy,
} from './rbac/strategy.js';
import type { ResourceStrategy, ServedResource } from './rest/resource-strategy.js';

// The strategy each built-in Store is made with, by group version and resource: kube's
// APIGroupInfo.VersionedResourcesStorageMap, which each group's RESTStorageProvider fills with
// the resource's NewREST(...) (kubernetes pkg/registry/core/rest/storage_core.go,
// pkg/registry/apps/rest/storage_apps.go, ...). The registry is built from these pairs; nothing
// looks a strategy up afterwards.

/** Strategies by `group/version` (`v1` for the core group), then by resource. */
export const builtinStrategies: Readonly<
  Record<string, Readonly<Record<string, ResourceStrategy>>>
> = {
  v1: {
    configmaps: configMapStrategy,
    endpoints: endpointsStrategy,
    events: eventStrategy,
    limitranges: limitRangeStrategy,
    namespaces: namespaceStrategy,
    nodes: nodeStrategy,
    persistentvolumeclaims: persistentVolumeClaimStrategy,
    persistentvolumes: persistentVolumeStrategy,
    pods: podStrategy,
    podtemplates: podTemplateStrategy,
    replicationcontrollers: replicationControllerStrategy,
    resourcequotas: resourceQuotaStrategy,
    secrets: secretStrategy,
    serviceaccounts: serviceAccountStrategy,
    services: serviceStrategy,
  },
  'apps/v1': {
    controllerrevisions: controllerRevisionStrategy,
    daemonsets: daemonSetStrategy,
    deployments: deploymentStrategy,
    replicasets: replicaSetStrategy,
    statefulsets: statefulSetStrategy,
  },
  'events.k8s.io/v1': { events: eventsV1Strategy },
  'authentication.k8s.io/v1': {
    selfsubjectreviews: selfSubjectReviewStrategy,
    tokenreviews: tokenReviewStrategy,
  },
  'authorization.k8s.io/v1': {
    localsubjectaccessreviews: localSubjectAccessReviewStrategy,
    selfsubjectaccessreviews: selfSubjectAccessReviewStrategy,
    selfsubjectrulesreviews: selfSubjectRulesReviewStrategy,
    subjectaccessreviews: subjectAccessReviewStrategy,
  },
  'autoscaling/v1': { horizontalpodautoscalers: horizontalPodAutoscalerV1Strategy },
  'autoscaling/v2': { horizontalpodautoscalers: horizontalPodAutoscalerStrategy },
  'batch/v1': { cronjobs: cronJobStrategy, jobs: jobStrategy },
  'networking.k8s.io/v1': { ingresses: ingressStrategy, networkpolicies: networkPolicyStrategy },
  'policy/v1': { poddisruptionbudgets: podDisruptionBudgetStrategy },
  'rbac.authorization.k8s.io/v1': {
    clusterrolebindings: clusterRoleBindingStrategy,
    clusterroles: clusterRoleStrategy,
    rolebindings: roleBindingStrategy,
    roles: roleStrategy,
  },
  'coordination.k8s.io/v1': { leases: leaseStrategy },
  'discovery.k8s.io/v1': { endpointslices: endpointSliceStrategy },
  'apiextensions.k8s.io/v1': { customresourcedefinitions: customResourceDefinitionStrategy },
  'apiregistration.k8s.io/v1': { apiservices: apiServiceStrategy },
};

/**
 * A built-in definition with the strategy its Store is made with; a definition the table has
 * no row for is refused (a served resource without a strategy is a bug, not the generic steps).
 */
export function withBuiltinStrategy(definition: ResourceDefinition): ServedResource {
  const { group, version, plural } = definition;
  const byResource = builtinStrategies[group ? `${group}/${version}` : version];
  const strategy = byResource && Object.hasOwn(byResource, plural) ? byResource[plural] : undefined;
  if (!strategy)
    throw new Error(
      `no strategy for the served resource ${qualifiedResource(definition)}/${version}`,
    );
  return { definition, strategy };
}

/** withBuiltinStrategy of each definition: what the server's registry is built from. */
export function withBuiltinStrategies(
  definitions: readonly ResourceDefinition[],
): ServedResource[] {
  return definitions.map(withBuiltinStrategy);
}
