/**
 * The object types of the built-in resources, kubernetes-types' (generated from Kubernetes'
 * OpenAPI), re-exported so a program names `Pod` or `Deployment` from this package alone and
 * never adds kubernetes-types itself (client-go's k8s.io/api, which its clientsets re-export).
 * Two kinds named Event exist: `CoreV1Event` (core/v1) and `EventsV1Event` (events.k8s.io/v1),
 * as client-node names them.
 */
export type {
  Binding,
  ConfigMap,
  Container,
  ContainerStatus,
  Endpoints,
  EnvVar,
  Event as CoreV1Event,
  LimitRange,
  Namespace,
  Node,
  ObjectReference,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodCondition,
  PodSpec,
  PodStatus,
  PodTemplate,
  PodTemplateSpec,
  ReplicationController,
  ResourceQuota,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-types/core/v1.js';
export type {
  ControllerRevision,
  DaemonSet,
  Deployment,
  DeploymentCondition,
  DeploymentSpec,
  DeploymentStatus,
  ReplicaSet,
  StatefulSet,
} from 'kubernetes-types/apps/v1.js';
export type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
export type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
export type { Lease } from 'kubernetes-types/coordination/v1.js';
export type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
export type { Event as EventsV1Event, EventSeries } from 'kubernetes-types/events/v1.js';
export type { Ingress, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
export type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
export type {
  ClusterRole,
  ClusterRoleBinding,
  PolicyRule,
  Role,
  RoleBinding,
} from 'kubernetes-types/rbac/v1.js';
export type { TokenReview } from 'kubernetes-types/authentication/v1.js';
export type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
export type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
export type {
  Condition,
  LabelSelector,
  ListMeta,
  ManagedFieldsEntry,
  MicroTime,
  ObjectMeta,
  OwnerReference,
  Time,
} from 'kubernetes-types/meta/v1.js';
