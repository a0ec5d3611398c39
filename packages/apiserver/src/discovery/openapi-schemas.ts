import type { ResourceDefinition } from '@listwatch/api';
import { podSpecSchemas } from './pod-spec-schemas.js';
import {
  atomicList,
  bool,
  CORE,
  field,
  int32,
  int64,
  INT_OR_STRING,
  intOrString,
  keyedList,
  META,
  object,
  open,
  QUANTITY,
  ref,
  SCHEMA_REF_PREFIX,
  str,
  stringList,
  stringMap,
  type Schema,
} from './schema-builders.js';
import type { GroupVersionKind } from './subresources.js';

export { META, SCHEMA_REF_PREFIX, type Schema } from './schema-builders.js';

// The component schemas of our OpenAPI documents, named as kube names them
// (api/openapi-spec/v3/*.json). Each kind declares its top-level fields exactly, so a typo like
// `spce:` is an unknown field; its spec declares the fields kubectl diffs on apply, with their
// list merge keys, and keeps x-kubernetes-preserve-unknown-fields for anything newer.

const API_VERSION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.';
const KIND =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase.';

/** `x-kubernetes-group-version-kind` as schemas carry it: a list. */
export function gvkExtension(...gvks: GroupVersionKind[]): Schema {
  return {
    'x-kubernetes-group-version-kind': gvks.map(({ group, kind, version }) => ({
      group,
      kind,
      version,
    })),
  };
}

// --- k8s.io/apimachinery meta/v1 ------------------------------------------------------------

const metaSchemas: Record<string, Schema> = {
  [`${META}.Time`]: {
    description:
      'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON (RFC 3339).',
    type: 'string',
    format: 'date-time',
  },
  [`${META}.MicroTime`]: {
    description: 'MicroTime is version of Time with microsecond level precision.',
    type: 'string',
    format: 'date-time',
  },
  [`${META}.FieldsV1`]: {
    description: 'FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.',
    type: 'object',
  },
  [`${META}.ManagedFieldsEntry`]: object(
    'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
    {
      apiVersion: str(
        'APIVersion defines the version of this resource that this field set applies to.',
      ),
      fieldsType: str(
        'FieldsType is the discriminator for the different fields format and version.',
      ),
      fieldsV1: ref(`${META}.FieldsV1`),
      manager: str('Manager is an identifier of the workflow managing these fields.'),
      operation: str(
        'Operation is the type of operation which lead to this ManagedFieldsEntry being created.',
      ),
      subresource: str('Subresource is the name of the subresource used to update that object.'),
      time: ref(`${META}.Time`),
    },
  ),
  [`${META}.OwnerReference`]: object(
    'OwnerReference contains enough information to let you identify an owning object.',
    {
      apiVersion: str('API version of the referent.'),
      blockOwnerDeletion: bool(
        'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.',
      ),
      controller: bool('If true, this reference points to the managing controller.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
    },
    { required: ['apiVersion', 'kind', 'name', 'uid'], mapType: 'atomic' },
  ),
  [`${META}.ObjectMeta`]: object(
    'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    {
      annotations: stringMap(
        'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.',
      ),
      creationTimestamp: field(
        `${META}.Time`,
        'CreationTimestamp is a timestamp representing the server time when this object was created.',
      ),
      deletionGracePeriodSeconds: int64(
        'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.',
      ),
      deletionTimestamp: field(
        `${META}.Time`,
        'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.',
      ),
      finalizers: {
        ...stringList('Must be empty before the object is deleted from the registry.', 'set'),
        'x-kubernetes-patch-strategy': 'merge',
      },
      generateName: str(
        'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.',
      ),
      generation: int64(
        'A sequence number representing a specific generation of the desired state.',
      ),
      labels: stringMap(
        'Map of string keys and values that can be used to organize and categorize (scope and select) objects.',
      ),
      managedFields: atomicList(
        ref(`${META}.ManagedFieldsEntry`),
        'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
      ),
      name: str('Name must be unique within a namespace. Is required when creating resources.'),
      namespace: str('Namespace defines the space within which each name must be unique.'),
      ownerReferences: keyedList(`${META}.OwnerReference`, ['uid'], {
        description: 'List of objects depended by this object.',
      }),
      resourceVersion: str(
        'An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed.',
      ),
      selfLink: str(
        'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
      ),
      uid: str('UID is the unique in time and space value for this object.'),
    },
  ),
  [`${META}.ListMeta`]: object(
    'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    {
      continue: str(
        'continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available.',
      ),
      remainingItemCount: int64(
        'remainingItemCount is the number of subsequent items in the list which are not included in this list response.',
      ),
      resourceVersion: str(
        "String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed.",
      ),
      selfLink: str(
        'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
      ),
    },
  ),
  [`${META}.LabelSelectorRequirement`]: object(
    'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
    {
      key: str('key is the label key that the selector applies to.'),
      operator: str(
        "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
      ),
      values: stringList('values is an array of string values.'),
    },
    { required: ['key', 'operator'] },
  ),
  [`${META}.LabelSelector`]: object(
    'A label selector is a label query over a set of resources.',
    {
      matchExpressions: atomicList(
        ref(`${META}.LabelSelectorRequirement`),
        'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
      ),
      matchLabels: stringMap('matchLabels is a map of {key,value} pairs.'),
    },
    { mapType: 'atomic' },
  ),
  [`${META}.StatusCause`]: object(
    'StatusCause provides more information about an api.Status failure.',
    {
      field: str(
        'The field of the resource that has caused this error, as named by its JSON serialization.',
      ),
      message: str('A human-readable description of the cause of the error.'),
      reason: str('A machine-readable description of the cause of the error.'),
    },
  ),
  [`${META}.StatusDetails`]: object(
    'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
    {
      causes: atomicList(
        ref(`${META}.StatusCause`),
        'The Causes array includes more details associated with the StatusReason failure.',
      ),
      group: str('The group attribute of the resource associated with the status StatusReason.'),
      kind: str('The kind attribute of the resource associated with the status StatusReason.'),
      name: str('The name attribute of the resource associated with the status StatusReason.'),
      retryAfterSeconds: int32(
        'If specified, the time in seconds before the operation should be retried.',
      ),
      uid: str('UID of the resource.'),
    },
  ),
  [`${META}.Status`]: {
    ...object("Status is a return value for calls that don't return other objects.", {
      apiVersion: str(API_VERSION),
      code: int32('Suggested HTTP return code for this status, 0 if not set.'),
      details: ref(`${META}.StatusDetails`),
      kind: str(KIND),
      message: str('A human-readable description of the status of this operation.'),
      metadata: ref(`${META}.ListMeta`),
      reason: str(
        'A machine-readable description of why this operation is in the "Failure" status.',
      ),
      status: str('Status of the operation. One of: "Success" or "Failure".'),
    }),
    ...gvkExtension({ group: '', version: 'v1', kind: 'Status' }),
  },
  [`${META}.Preconditions`]: object(
    'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
    {
      resourceVersion: str('Specifies the target ResourceVersion'),
      uid: str('Specifies the target UID.'),
    },
  ),
  [`${META}.DeleteOptions`]: {
    ...object('DeleteOptions may be provided when deleting an API object.', {
      apiVersion: str(API_VERSION),
      dryRun: stringList('When present, indicates that modifications should not be persisted.'),
      gracePeriodSeconds: int64('The duration in seconds before the object should be deleted.'),
      ignoreStoreReadErrorWithClusterBreakingPotential: bool(
        'if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error.',
      ),
      kind: str(KIND),
      orphanDependents: bool('Deprecated: please use the PropagationPolicy.'),
      preconditions: ref(`${META}.Preconditions`),
      propagationPolicy: str(
        'Whether and how garbage collection will be performed: Orphan, Background or Foreground.',
      ),
    }),
    ...gvkExtension(
      { group: '', version: 'v1', kind: 'DeleteOptions' },
      { group: 'apps', version: 'v1', kind: 'DeleteOptions' },
      { group: 'coordination.k8s.io', version: 'v1', kind: 'DeleteOptions' },
      { group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' },
    ),
  },
  [`${META}.Patch`]: {
    description:
      'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    type: 'object',
  },
  [`${META}.APIResource`]: object(
    'APIResource specifies the name of a resource and whether it is namespaced.',
    {
      categories: stringList(
        "categories is a list of the grouped resources this resource belongs to (e.g. 'all')",
      ),
      group: str('group is the preferred group of the resource.'),
      kind: str("kind is the kind for the resource (e.g. 'Foo' is the kind for a resource 'foo')"),
      name: str('name is the plural name of the resource.'),
      namespaced: bool('namespaced indicates if a resource is namespaced or not.'),
      shortNames: stringList('shortNames is a list of suggested short names of the resource.'),
      singularName: str('singularName is the singular name of the resource.'),
      storageVersionHash: str(
        'The hash value of the storage version, the version this resource is converted to when written to the data store.',
      ),
      verbs: stringList('verbs is a list of supported kube verbs.'),
      version: str('version is the preferred version of the resource.'),
    },
    { required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'] },
  ),
  [`${META}.APIResourceList`]: {
    ...object(
      'APIResourceList is a list of APIResource, it is used to expose the name of the resources supported in a specific group and version, and if the resource is namespaced.',
      {
        apiVersion: str(API_VERSION),
        groupVersion: str('groupVersion is the group and version this APIResourceList is for.'),
        kind: str(KIND),
        resources: atomicList(
          ref(`${META}.APIResource`),
          'resources contains the name of the resources and if they are namespaced.',
        ),
      },
      { required: ['groupVersion', 'resources'] },
    ),
    ...gvkExtension({ group: '', version: 'v1', kind: 'APIResourceList' }),
  },
  [QUANTITY]: {
    description: 'Quantity is a fixed-point representation of a number, such as `500m` or `1Gi`.',
    oneOf: [{ type: 'string' }, { type: 'number' }],
  },
  [INT_OR_STRING]: {
    description: 'IntOrString is a type that can hold an int32 or a string.',
    type: 'string',
    format: 'int-or-string',
    'x-kubernetes-int-or-string': true,
  },
};

// --- other k8s.io/api types the built-in kinds use ---------------------------------------------

const c = (name: string) => `${CORE}.${name}`;

const kindFieldSchemas: Record<string, Schema> = {
  [c('ObjectReference')]: object(
    'ObjectReference contains enough information to let you inspect or modify the referred object.',
    {
      apiVersion: str('API version of the referent.'),
      fieldPath: str(
        'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
      ),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent.'),
      resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
      uid: str('UID of the referent.'),
    },
    { mapType: 'atomic' },
  ),
  [c('EventSource')]: object('EventSource contains information for an event.', {
    component: str('Component from which the event is generated.'),
    host: str('Node name on which the event is generated.'),
  }),
  [c('EventSeries')]: object('EventSeries contain information on series of events.', {
    count: int32('Number of occurrences in this series up to the last heartbeat time'),
    lastObservedTime: field(`${META}.MicroTime`, 'Time of the last occurrence observed'),
  }),
  [c('ServicePort')]: object(
    "ServicePort contains information on service's port.",
    {
      appProtocol: str('The application protocol for this port.'),
      name: str('The name of this port within the service.'),
      nodePort: int32(
        'The port on each node on which this service is exposed when type is NodePort or LoadBalancer.',
      ),
      port: int32('The port that will be exposed by this service.'),
      protocol: str(
        'The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.',
      ),
      targetPort: intOrString(
        'Number or name of the port to access on the pods targeted by the service.',
      ),
    },
    { required: ['port'] },
  ),
  [c('ClientIPConfig')]: object(
    'ClientIPConfig represents the configurations of Client IP based session affinity.',
    {
      timeoutSeconds: int32(
        'timeoutSeconds specifies the seconds of ClientIP type session sticky time.',
      ),
    },
  ),
  [c('SessionAffinityConfig')]: object(
    'SessionAffinityConfig represents the configurations of session affinity.',
    {
      clientIP: field(
        c('ClientIPConfig'),
        'clientIP contains the configurations of Client IP based session affinity.',
      ),
    },
  ),
  [c('Taint')]: object(
    'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.',
    {
      effect: str('Required. The effect of the taint on pods that do not tolerate the taint.'),
      key: str('Required. The taint key to be applied to a node.'),
      timeAdded: field(
        `${META}.Time`,
        'TimeAdded represents the time at which the taint was added.',
      ),
      value: str('The taint value corresponding to the taint key.'),
    },
    { required: ['key', 'effect'] },
  ),
  'io.k8s.api.apps.v1.RollingUpdateDeployment': object(
    'Spec to control the desired behavior of rolling update.',
    {
      maxSurge: intOrString(
        'The maximum number of pods that can be scheduled above the desired number of pods.',
      ),
      maxUnavailable: intOrString(
        'The maximum number of pods that can be unavailable during the update.',
      ),
    },
  ),
  'io.k8s.api.apps.v1.DeploymentStrategy': object(
    'DeploymentStrategy describes how to replace existing pods with new ones.',
    {
      rollingUpdate: field(
        'io.k8s.api.apps.v1.RollingUpdateDeployment',
        'Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.',
      ),
      type: str(
        'Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.',
      ),
    },
  ),
};

// --- the built-in kinds ---------------------------------------------------------------------

/** The fields of one kind besides apiVersion, kind and metadata. */
interface KindShape {
  description: string;
  properties: Record<string, Schema>;
  required?: string[];
}

const OBJECT_META = "Standard object's metadata.";
const SPEC = (kind: string) => `Spec defines the behavior of the ${kind}.`;
const status = (what: string): Schema =>
  open(`Most recently observed status of the ${what}. Populated by the system. Read-only.`);

function spec(kind: string, properties: Record<string, Schema>, required?: string[]): Schema {
  // preserve-unknown: a field newer than this list is kept, never rejected.
  return object(`${kind}Spec is the specification of a ${kind}.`, properties, {
    preserveUnknown: true,
    ...(required ? { required } : {}),
  });
}

/**
 * DeploymentSpec and ReplicaSetSpec are listed field for field (k8s.io/api apps/v1 types.go),
 * so they are closed: server-side field validation catches `spec.replica` typos.
 */
function workloadSpec(kind: string, extra: Record<string, Schema>): Schema {
  return object(
    `${kind}Spec is the specification of a ${kind}.`,
    {
      minReadySeconds: int32(
        'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available.',
      ),
      replicas: int32('Number of desired pods. Defaults to 1.'),
      selector: field(
        `${META}.LabelSelector`,
        "Label selector for pods. It must match the pod template's labels.",
      ),
      template: field(
        c('PodTemplateSpec'),
        'Template is the object that describes the pod that will be created.',
      ),
      ...extra,
    },
    { required: ['selector'] },
  );
}

const byteMap = (description: string): Schema => ({
  description,
  type: 'object',
  additionalProperties: { type: 'string', format: 'byte' },
});

const builtinKinds: Record<string, KindShape> = {
  'v1/Namespace': {
    description: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
    properties: {
      spec: spec('Namespace', {
        finalizers: stringList(
          'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.',
        ),
      }),
      status: status('namespace'),
    },
  },
  'v1/Pod': {
    description:
      'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.',
    properties: { spec: field(c('PodSpec'), SPEC('pod')), status: status('pod') },
  },
  'v1/ConfigMap': {
    description: 'ConfigMap holds configuration data for pods to consume.',
    properties: {
      binaryData: byteMap('BinaryData contains the binary data, base64 encoded.'),
      data: stringMap('Data contains the configuration data.'),
      immutable: bool(
        'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified).',
      ),
    },
  },
  'v1/Secret': {
    description:
      'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.',
    properties: {
      data: byteMap('Data contains the secret data, base64 encoded.'),
      immutable: bool(
        'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified).',
      ),
      stringData: stringMap(
        'stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience.',
      ),
      type: str('Used to facilitate programmatic handling of secret data.'),
    },
  },
  'v1/Node': {
    description:
      'Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).',
    properties: {
      spec: spec('Node', {
        configSource: open(
          "Deprecated: Previously used to specify the source of the node's configuration for the DynamicKubeletConfig feature.",
        ),
        externalID: str('Deprecated. Not all kubelets will set this field.'),
        podCIDR: str('PodCIDR represents the pod IP range assigned to the node.'),
        podCIDRs: {
          ...stringList(
            'podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node.',
            'set',
          ),
          'x-kubernetes-patch-strategy': 'merge',
        },
        providerID: str('ID of the node assigned by the cloud provider.'),
        taints: atomicList(ref(c('Taint')), "If specified, the node's taints."),
        unschedulable: bool('Unschedulable controls node schedulability of new pods.'),
      }),
      status: status('node'),
    },
  },
  'v1/Service': {
    description:
      'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
    properties: {
      spec: spec('Service', {
        allocateLoadBalancerNodePorts: bool(
          'allocateLoadBalancerNodePorts defines if NodePorts will be automatically allocated for services with type LoadBalancer.',
        ),
        clusterIP: str(
          'clusterIP is the IP address of the service and is usually assigned randomly.',
        ),
        clusterIPs: stringList('ClusterIPs is a list of IP addresses assigned to this service.'),
        externalIPs: stringList(
          'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
        ),
        externalName: str(
          'externalName is the external reference that discovery mechanisms will return as an alias for this service (e.g. a DNS CNAME record).',
        ),
        externalTrafficPolicy: str(
          'externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service\'s "externally-facing" addresses.',
        ),
        healthCheckNodePort: int32(
          'healthCheckNodePort specifies the healthcheck nodePort for the service.',
        ),
        internalTrafficPolicy: str(
          'InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP.',
        ),
        ipFamilies: stringList(
          'IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service.',
        ),
        ipFamilyPolicy: str(
          'IPFamilyPolicy represents the dual-stack-ness requested or required by this Service.',
        ),
        loadBalancerClass: str(
          'loadBalancerClass is the class of the load balancer implementation this Service belongs to.',
        ),
        loadBalancerIP: str('Only applies to Service Type: LoadBalancer. Deprecated.'),
        loadBalancerSourceRanges: stringList(
          'If specified and supported by the platform, traffic through the cloud-provider load-balancer will be restricted to the specified client IPs.',
        ),
        ports: keyedList(c('ServicePort'), ['port', 'protocol'], {
          description: 'The list of ports that are exposed by this service.',
        }),
        publishNotReadyAddresses: bool(
          'publishNotReadyAddresses indicates that any agent which deals with endpoints for this Service should disregard any indications of ready/not-ready.',
        ),
        selector: stringMap(
          'Route service traffic to pods with label keys and values matching this selector.',
          { atomic: true },
        ),
        sessionAffinity: str('Supports "ClientIP" and "None". Used to maintain session affinity.'),
        sessionAffinityConfig: field(
          c('SessionAffinityConfig'),
          'sessionAffinityConfig contains the configurations of session affinity.',
        ),
        trafficDistribution: str(
          'TrafficDistribution offers a way to express preferences for how traffic is distributed to Service endpoints.',
        ),
        type: str(
          'type determines how the Service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.',
        ),
      }),
      status: status('service'),
    },
  },
  'v1/Event': {
    description: 'Event is a report of an event somewhere in the cluster.',
    required: ['metadata', 'involvedObject'],
    properties: {
      action: str('What action was taken/failed regarding to the Regarding object.'),
      count: int32('The number of times this event has occurred.'),
      eventTime: field(`${META}.MicroTime`, 'Time when this Event was first observed.'),
      firstTimestamp: field(`${META}.Time`, 'The time at which the event was first recorded.'),
      involvedObject: field(c('ObjectReference'), 'The object that this event is about.'),
      lastTimestamp: field(
        `${META}.Time`,
        'The time at which the most recent occurrence of this event was recorded.',
      ),
      message: str('A human-readable description of the status of this operation.'),
      reason: str(
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      related: field(c('ObjectReference'), 'Optional secondary object for more complex actions.'),
      reportingComponent: str(
        'Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.',
      ),
      reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
      series: field(
        c('EventSeries'),
        "Data about the Event series this event represents or nil if it's a singleton Event.",
      ),
      source: field(c('EventSource'), 'The component reporting this event.'),
      type: str('Type of this event (Normal, Warning), new types could be added in the future'),
    },
  },
  'apps/v1/ReplicaSet': {
    description:
      'ReplicaSet ensures that a specified number of pod replicas are running at any given time.',
    properties: { spec: workloadSpec('ReplicaSet', {}), status: status('ReplicaSet') },
  },
  'apps/v1/Deployment': {
    description: 'Deployment enables declarative updates for Pods and ReplicaSets.',
    properties: {
      spec: workloadSpec('Deployment', {
        paused: bool('Indicates that the deployment is paused.'),
        progressDeadlineSeconds: int32(
          'The maximum time in seconds for a deployment to make progress before it is considered to be failed.',
        ),
        revisionHistoryLimit: int32('The number of old ReplicaSets to retain to allow rollback.'),
        strategy: {
          ...field(
            'io.k8s.api.apps.v1.DeploymentStrategy',
            'The deployment strategy to use to replace existing pods with new ones.',
          ),
          'x-kubernetes-patch-strategy': 'retainKeys',
        },
      }),
      status: status('Deployment'),
    },
  },
  'coordination.k8s.io/v1/Lease': {
    description: 'Lease defines a lease concept.',
    properties: {
      spec: spec('Lease', {
        acquireTime: field(
          `${META}.MicroTime`,
          'acquireTime is a time when the current lease was acquired.',
        ),
        holderIdentity: str(
          'holderIdentity contains the identity of the holder of a current lease.',
        ),
        leaseDurationSeconds: int32(
          'leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it.',
        ),
        leaseTransitions: int32(
          'leaseTransitions is the number of transitions of a lease between holders.',
        ),
        preferredHolder: str(
          'PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up.',
        ),
        renewTime: field(
          `${META}.MicroTime`,
          'renewTime is a time when the current holder of a lease has last updated the lease.',
        ),
        strategy: str(
          'Strategy indicates the strategy for picking the leader for coordinated leader election.',
        ),
      }),
    },
  },
};

/** Kinds that only appear as the body of a subresource. */
const subresourceKinds: Record<string, KindShape> = {
  'v1/Binding': {
    description:
      'Binding ties one object to another; for example, a pod is bound to a node by a scheduler.',
    required: ['target'],
    properties: {
      target: field(
        c('ObjectReference'),
        'The target object that you want to bind to the standard object.',
      ),
    },
  },
  'autoscaling/v1/Scale': {
    description: 'Scale represents a scaling request for a resource.',
    properties: {
      spec: object('ScaleSpec describes the attributes of a scale subresource.', {
        replicas: int32('replicas is the desired number of instances for the scaled object.'),
      }),
      status: object(
        'ScaleStatus represents the current status of a scale subresource.',
        {
          replicas: int32(
            'replicas is the actual number of observed instances of the scaled object.',
          ),
          selector: str(
            'selector is the label query over pods that should match the replicas count.',
          ),
        },
        { required: ['replicas'] },
      ),
    },
  },
  'policy/v1/Eviction': {
    description:
      'Eviction evicts a pod from its node subject to certain policies and safety constraints.',
    properties: { deleteOptions: field(`${META}.DeleteOptions`, 'DeleteOptions may be provided') },
  },
};

function apiVersionOfGvk(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

/**
 * The component name of a kind, as kube names it: `io.k8s.api.core.v1.Pod`,
 * `io.k8s.api.apps.v1.Deployment`; a group outside k8s.io reads reversed, like CRDs
 * (`com.example.v1.Widget`).
 */
export function schemaNameOf(gvk: GroupVersionKind): string {
  const { group, version, kind } = gvk;
  if (group === '') return `io.k8s.api.core.${version}.${kind}`;
  if (!group.includes('.') || group.endsWith('.k8s.io')) {
    return `io.k8s.api.${group.split('.')[0] ?? group}.${version}.${kind}`;
  }
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function genericShape(kind: string): KindShape {
  return {
    description: `${kind} is served by listwatch; its spec and status are kept as given.`,
    properties: { spec: open(SPEC(kind)), status: status(kind) },
  };
}

/** The schema of one kind: apiVersion, kind, metadata and its own fields. */
export function kindSchema(gvk: GroupVersionKind): Schema {
  const key = `${apiVersionOfGvk(gvk)}/${gvk.kind}`;
  const shape = builtinKinds[key] ?? subresourceKinds[key] ?? genericShape(gvk.kind);
  return {
    description: shape.description,
    type: 'object',
    ...(shape.required ? { required: shape.required } : {}),
    properties: {
      apiVersion: str(API_VERSION),
      kind: str(KIND),
      metadata: field(`${META}.ObjectMeta`, OBJECT_META),
      ...shape.properties,
    },
    ...gvkExtension(gvk),
  };
}

/** The schema of a resource's list kind (`PodList`). */
export function listSchema(def: ResourceDefinition): Schema {
  return {
    description: `${def.listKind} is a list of ${def.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: str(API_VERSION),
      items: {
        description: `List of ${def.plural}.`,
        type: 'array',
        items: ref(schemaNameOf(def)),
      },
      kind: str(KIND),
      metadata: field(`${META}.ListMeta`, 'Standard list metadata.'),
    },
    ...gvkExtension({ group: def.group, version: def.version, kind: def.listKind }),
  };
}

/** The shared (non-kind) component schemas, by name. */
export const sharedSchemas: Readonly<Record<string, Schema>> = {
  ...metaSchemas,
  ...podSpecSchemas,
  ...kindFieldSchemas,
};

function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_REF_PREFIX)) {
        into.add(inner.slice(SCHEMA_REF_PREFIX.length));
      } else {
        collectRefs(inner, into);
      }
    }
  }
}

/**
 * Completes a set of component schemas with every shared schema they or `alsoReferencedBy`
 * reference, transitively, so each OpenAPI document stands alone (as kube's per-group-version v3
 * documents do). Sorted by name, for a stable document and ETag.
 */
export function withReferencedSchemas(
  schemas: Record<string, Schema>,
  alsoReferencedBy: unknown,
): Record<string, Schema> {
  const all: Record<string, Schema> = { ...schemas };
  const pending = new Set<string>();
  collectRefs(alsoReferencedBy, pending);
  collectRefs(schemas, pending);
  // A Set visits what is added while iterating it: this walks the reference graph to the end.
  for (const name of pending) {
    if (all[name]) continue;
    const shared = sharedSchemas[name];
    if (!shared) continue;
    all[name] = shared;
    collectRefs(shared, pending);
  }
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
