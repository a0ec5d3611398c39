import {
  atomicList,
  bool,
  CORE,
  field,
  int32,
  int64,
  intOrString,
  keyedList,
  META,
  object,
  open,
  QUANTITY,
  quantityMap,
  ref,
  str,
  stringList,
  stringMap,
  type Schema,
} from './schema-builders.js';

// k8s.io/api/core/v1 PodSpec and what it is made of, as component schemas. Fields are declared
// with their list semantics (x-kubernetes-patch-merge-key & co from the struct tags), because
// `kubectl apply` computes strategic merge patches from these schemas and gives up (with a
// warning) on any changed map or list it cannot find. The large structs also keep
// x-kubernetes-preserve-unknown-fields, so a field newer than this list is never rejected.

const preserve = { preserveUnknown: true } as const;
const atomic = { mapType: 'atomic' } as const;
const c = (name: string) => `${CORE}.${name}`;

const selectorRef = (name: string, what: string): Record<string, Schema> => ({
  [c(name)]: object(
    `Selects a key of a ${what}.`,
    {
      key: str(`The key of the ${what} to select from.`),
      name: str('Name of the referent.'),
      optional: bool(`Specify whether the ${what} or its key must be defined`),
    },
    { required: ['key'], ...atomic },
  ),
});

const handlers: Record<string, Schema> = {
  [c('ExecAction')]: object('ExecAction describes a "run in container" action.', {
    command: stringList('Command is the command line to execute inside the container.'),
  }),
  [c('HTTPHeader')]: object(
    'HTTPHeader describes a custom header to be used in HTTP probes',
    { name: str('The header field name.'), value: str('The header field value') },
    { required: ['name', 'value'] },
  ),
  [c('HTTPGetAction')]: object(
    'HTTPGetAction describes an action based on HTTP Get requests.',
    {
      host: str('Host name to connect to, defaults to the pod IP.'),
      httpHeaders: atomicList(ref(c('HTTPHeader')), 'Custom headers to set in the request.'),
      path: str('Path to access on the HTTP server.'),
      port: intOrString('Name or number of the port to access on the container.'),
      scheme: str('Scheme to use for connecting to the host. Defaults to HTTP.'),
    },
    { required: ['port'] },
  ),
  [c('TCPSocketAction')]: object(
    'TCPSocketAction describes an action based on opening a socket',
    {
      host: str('Optional: Host name to connect to, defaults to the pod IP.'),
      port: intOrString('Number or name of the port to access on the container.'),
    },
    { required: ['port'] },
  ),
  [c('GRPCAction')]: object(
    'GRPCAction specifies an action involving a GRPC service.',
    {
      port: int32('Port number of the gRPC service.'),
      service: str('Service is the name of the service to place in the gRPC HealthCheckRequest.'),
    },
    { required: ['port'] },
  ),
  [c('SleepAction')]: object(
    'SleepAction describes a "sleep" action.',
    { seconds: int64('Seconds is the number of seconds to sleep.') },
    { required: ['seconds'] },
  ),
  [c('Probe')]: object(
    'Probe describes a health check to be performed against a container to determine whether it is alive or ready to receive traffic.',
    {
      exec: field(c('ExecAction'), 'Exec specifies a command to execute in the container.'),
      failureThreshold: int32(
        'Minimum consecutive failures for the probe to be considered failed after having succeeded.',
      ),
      grpc: field(c('GRPCAction'), 'GRPC specifies a GRPC HealthCheckRequest.'),
      httpGet: field(c('HTTPGetAction'), 'HTTPGet specifies an HTTP GET request to perform.'),
      initialDelaySeconds: int32(
        'Number of seconds after the container has started before liveness probes are initiated.',
      ),
      periodSeconds: int32('How often (in seconds) to perform the probe. Default to 10 seconds.'),
      successThreshold: int32(
        'Minimum consecutive successes for the probe to be considered successful after having failed.',
      ),
      tcpSocket: field(c('TCPSocketAction'), 'TCPSocket specifies a connection to a TCP port.'),
      terminationGracePeriodSeconds: int64(
        'Optional duration in seconds the pod needs to terminate gracefully upon probe failure.',
      ),
      timeoutSeconds: int32(
        'Number of seconds after which the probe times out. Defaults to 1 second.',
      ),
    },
    preserve,
  ),
  [c('LifecycleHandler')]: object(
    'LifecycleHandler defines a specific action that should be taken in a lifecycle hook.',
    {
      exec: field(c('ExecAction'), 'Exec specifies a command to execute in the container.'),
      httpGet: field(c('HTTPGetAction'), 'HTTPGet specifies an HTTP GET request to perform.'),
      sleep: field(
        c('SleepAction'),
        'Sleep represents a duration that the container should sleep.',
      ),
      tcpSocket: field(
        c('TCPSocketAction'),
        'Deprecated. TCPSocket is NOT supported as a LifecycleHandler.',
      ),
    },
    preserve,
  ),
  [c('Lifecycle')]: object(
    'Lifecycle describes actions that the management system should take in response to container lifecycle events.',
    {
      postStart: field(
        c('LifecycleHandler'),
        'PostStart is called immediately after a container is created.',
      ),
      preStop: field(
        c('LifecycleHandler'),
        'PreStop is called immediately before a container is terminated.',
      ),
    },
    preserve,
  ),
};

const security: Record<string, Schema> = {
  [c('Capabilities')]: object('Adds and removes POSIX capabilities from running containers.', {
    add: stringList('Added capabilities'),
    drop: stringList('Removed capabilities'),
  }),
  [c('SELinuxOptions')]: object('SELinuxOptions are the labels to be applied to the container', {
    level: str('Level is SELinux level label that applies to the container.'),
    role: str('Role is a SELinux role label that applies to the container.'),
    type: str('Type is a SELinux type label that applies to the container.'),
    user: str('User is a SELinux user label that applies to the container.'),
  }),
  [c('SeccompProfile')]: object(
    "SeccompProfile defines a pod/container's seccomp profile settings.",
    {
      localhostProfile: str(
        'localhostProfile indicates a profile defined in a file on the node should be used.',
      ),
      type: str(
        'type indicates which kind of seccomp profile will be applied: Localhost, RuntimeDefault or Unconfined.',
      ),
    },
    { required: ['type'] },
  ),
  [c('AppArmorProfile')]: object(
    "AppArmorProfile defines a pod or container's AppArmor settings.",
    {
      localhostProfile: str(
        'localhostProfile indicates a profile loaded on the node that should be used.',
      ),
      type: str(
        'type indicates which kind of AppArmor profile will be applied: Localhost, RuntimeDefault or Unconfined.',
      ),
    },
    { required: ['type'] },
  ),
  [c('WindowsSecurityContextOptions')]: object(
    'WindowsSecurityContextOptions contain Windows-specific options and credentials.',
    {
      gmsaCredentialSpec: str(
        'GMSACredentialSpec is where the GMSA admission webhook inlines the contents of the GMSA credential spec.',
      ),
      gmsaCredentialSpecName: str(
        'GMSACredentialSpecName is the name of the GMSA credential spec to use.',
      ),
      hostProcess: bool(
        "HostProcess determines if a container should be run as a 'Host Process' container.",
      ),
      runAsUserName: str('The UserName in Windows to run the entrypoint of the container process.'),
    },
  ),
  [c('SecurityContext')]: object(
    'SecurityContext holds security configuration that will be applied to a container.',
    {
      allowPrivilegeEscalation: bool(
        'AllowPrivilegeEscalation controls whether a process can gain more privileges than its parent process.',
      ),
      appArmorProfile: field(
        c('AppArmorProfile'),
        'appArmorProfile is the AppArmor options to use by this container.',
      ),
      capabilities: field(
        c('Capabilities'),
        'The capabilities to add/drop when running containers.',
      ),
      privileged: bool('Run container in privileged mode.'),
      procMount: str('procMount denotes the type of proc mount to use for the containers.'),
      readOnlyRootFilesystem: bool('Whether this container has a read-only root filesystem.'),
      runAsGroup: int64('The GID to run the entrypoint of the container process.'),
      runAsNonRoot: bool('Indicates that the container must run as a non-root user.'),
      runAsUser: int64('The UID to run the entrypoint of the container process.'),
      seLinuxOptions: field(
        c('SELinuxOptions'),
        'The SELinux context to be applied to the container.',
      ),
      seccompProfile: field(c('SeccompProfile'), 'The seccomp options to use by this container.'),
      windowsOptions: field(
        c('WindowsSecurityContextOptions'),
        'The Windows specific settings applied to all containers.',
      ),
    },
    preserve,
  ),
  [c('Sysctl')]: object(
    'Sysctl defines a kernel parameter to be set',
    { name: str('Name of a property to set'), value: str('Value of a property to set') },
    { required: ['name', 'value'] },
  ),
  [c('PodSecurityContext')]: object(
    'PodSecurityContext holds pod-level security attributes and common container settings.',
    {
      appArmorProfile: field(
        c('AppArmorProfile'),
        'appArmorProfile is the AppArmor options to use by the containers in this pod.',
      ),
      fsGroup: int64('A special supplemental group that applies to all containers in a pod.'),
      fsGroupChangePolicy: str(
        'fsGroupChangePolicy defines behavior of changing ownership and permission of the volume before being exposed inside Pod.',
      ),
      runAsGroup: int64('The GID to run the entrypoint of the container process.'),
      runAsNonRoot: bool('Indicates that the container must run as a non-root user.'),
      runAsUser: int64('The UID to run the entrypoint of the container process.'),
      seLinuxChangePolicy: str(
        "seLinuxChangePolicy defines how the container's SELinux label is applied to all volumes used by the Pod.",
      ),
      seLinuxOptions: field(
        c('SELinuxOptions'),
        'The SELinux context to be applied to all containers.',
      ),
      seccompProfile: field(
        c('SeccompProfile'),
        'The seccomp options to use by the containers in this pod.',
      ),
      supplementalGroups: atomicList(
        { type: 'integer', format: 'int64' },
        'A list of groups applied to the first process run in each container.',
      ),
      supplementalGroupsPolicy: str(
        'Defines how supplemental groups of the first container processes are calculated.',
      ),
      sysctls: atomicList(
        ref(c('Sysctl')),
        'Sysctls hold a list of namespaced sysctls used for the pod.',
      ),
      windowsOptions: field(
        c('WindowsSecurityContextOptions'),
        'The Windows specific settings applied to all containers.',
      ),
    },
    preserve,
  ),
};

const env: Record<string, Schema> = {
  [c('ObjectFieldSelector')]: object(
    'ObjectFieldSelector selects an APIVersioned field of an object.',
    {
      apiVersion: str(
        'Version of the schema the FieldPath is written in terms of, defaults to "v1".',
      ),
      fieldPath: str('Path of the field to select in the specified API version.'),
    },
    { required: ['fieldPath'], ...atomic },
  ),
  [c('ResourceFieldSelector')]: object(
    'ResourceFieldSelector represents container resources (cpu, memory) and their output format',
    {
      containerName: str('Container name: required for volumes, optional for env vars'),
      divisor: ref(QUANTITY),
      resource: str('Required: resource to select'),
    },
    { required: ['resource'], ...atomic },
  ),
  ...selectorRef('ConfigMapKeySelector', 'ConfigMap'),
  ...selectorRef('SecretKeySelector', 'Secret'),
  [c('EnvVarSource')]: object('EnvVarSource represents a source for the value of an EnvVar.', {
    configMapKeyRef: field(c('ConfigMapKeySelector'), 'Selects a key of a ConfigMap.'),
    fieldRef: field(c('ObjectFieldSelector'), 'Selects a field of the pod.'),
    resourceFieldRef: field(c('ResourceFieldSelector'), 'Selects a resource of the container.'),
    secretKeyRef: field(c('SecretKeySelector'), "Selects a key of a secret in the pod's namespace"),
  }),
  [c('EnvVar')]: object(
    'EnvVar represents an environment variable present in a Container.',
    {
      name: str('Name of the environment variable.'),
      value: str(
        'Variable references $(VAR_NAME) are expanded using the previously defined environment variables.',
      ),
      valueFrom: field(c('EnvVarSource'), "Source for the environment variable's value."),
    },
    { required: ['name'] },
  ),
  [c('ConfigMapEnvSource')]: object(
    'ConfigMapEnvSource selects a ConfigMap to populate the environment variables with.',
    {
      name: str('Name of the referent.'),
      optional: bool('Specify whether the ConfigMap must be defined'),
    },
  ),
  [c('SecretEnvSource')]: object(
    'SecretEnvSource selects a Secret to populate the environment variables with.',
    {
      name: str('Name of the referent.'),
      optional: bool('Specify whether the Secret must be defined'),
    },
  ),
  [c('EnvFromSource')]: object(
    'EnvFromSource represents the source of a set of ConfigMaps or Secrets',
    {
      configMapRef: field(c('ConfigMapEnvSource'), 'The ConfigMap to select from'),
      prefix: str('Optional text to prepend to the name of each environment variable.'),
      secretRef: field(c('SecretEnvSource'), 'The Secret to select from'),
    },
  ),
};

const containerProperties: Record<string, Schema> = {
  args: stringList('Arguments to the entrypoint.'),
  command: stringList('Entrypoint array. Not executed within a shell.'),
  env: keyedList(c('EnvVar'), ['name'], {
    description: 'List of environment variables to set in the container.',
  }),
  envFrom: atomicList(
    ref(c('EnvFromSource')),
    'List of sources to populate environment variables in the container.',
  ),
  image: str('Container image name.'),
  imagePullPolicy: str('Image pull policy. One of Always, Never, IfNotPresent.'),
  lifecycle: field(
    c('Lifecycle'),
    'Actions that the management system should take in response to container lifecycle events.',
  ),
  livenessProbe: field(c('Probe'), 'Periodic probe of container liveness.'),
  name: str(
    'Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name (DNS_LABEL).',
  ),
  ports: keyedList(c('ContainerPort'), ['containerPort', 'protocol'], {
    description: 'List of ports to expose from the container.',
  }),
  readinessProbe: field(c('Probe'), 'Periodic probe of container service readiness.'),
  resizePolicy: atomicList(
    ref(c('ContainerResizePolicy')),
    'Resources resize policy for the container.',
  ),
  resources: field(c('ResourceRequirements'), 'Compute Resources required by this container.'),
  restartPolicy: str(
    'RestartPolicy defines the restart behavior of individual containers in a pod.',
  ),
  securityContext: field(
    c('SecurityContext'),
    'SecurityContext defines the security options the container should be run with.',
  ),
  startupProbe: field(
    c('Probe'),
    'StartupProbe indicates that the Pod has successfully initialized.',
  ),
  stdin: bool(
    'Whether this container should allocate a buffer for stdin in the container runtime.',
  ),
  stdinOnce: bool(
    'Whether the container runtime should close the stdin channel after it has been opened by a single attach.',
  ),
  terminationMessagePath: str(
    "Path at which the file to which the container's termination message will be written is mounted into the container's filesystem.",
  ),
  terminationMessagePolicy: str('Indicate how the termination message should be populated.'),
  tty: bool('Whether this container should allocate a TTY for itself.'),
  volumeDevices: keyedList(c('VolumeDevice'), ['devicePath'], {
    description: 'volumeDevices is the list of block devices to be used by the container.',
  }),
  volumeMounts: keyedList(c('VolumeMount'), ['mountPath'], {
    description: "Pod volumes to mount into the container's filesystem.",
  }),
  workingDir: str("Container's working directory."),
};

const containers: Record<string, Schema> = {
  [c('ContainerPort')]: object(
    'ContainerPort represents a network port in a single container.',
    {
      containerPort: int32("Number of port to expose on the pod's IP address."),
      hostIP: str('What host IP to bind the external port to.'),
      hostPort: int32('Number of port to expose on the host.'),
      name: str('If specified, this must be an IANA_SVC_NAME and unique within the pod.'),
      protocol: str('Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".'),
    },
    { required: ['containerPort'] },
  ),
  [c('VolumeMount')]: object(
    'VolumeMount describes a mounting of a Volume within a container.',
    {
      mountPath: str('Path within the container at which the volume should be mounted.'),
      mountPropagation: str(
        'mountPropagation determines how mounts are propagated from the host to container and the other way around.',
      ),
      name: str('This must match the Name of a Volume.'),
      readOnly: bool('Mounted read-only if true, read-write otherwise.'),
      recursiveReadOnly: str(
        'RecursiveReadOnly specifies whether read-only mounts should be handled recursively.',
      ),
      subPath: str("Path within the volume from which the container's volume should be mounted."),
      subPathExpr: str(
        "Expanded path within the volume from which the container's volume should be mounted.",
      ),
    },
    { required: ['name', 'mountPath'] },
  ),
  [c('VolumeDevice')]: object(
    'volumeDevice describes a mapping of a raw block device within a container.',
    {
      devicePath: str(
        'devicePath is the path inside of the container that the device will be mapped to.',
      ),
      name: str('name must match the name of a persistentVolumeClaim in the pod'),
    },
    { required: ['name', 'devicePath'] },
  ),
  [c('ResourceClaim')]: object(
    'ResourceClaim references one entry in PodSpec.ResourceClaims.',
    {
      name: str(
        'Name must match the name of one entry in pod.spec.resourceClaims of the Pod where this field is used.',
      ),
      request: str('Request is the name chosen for a request in the referenced claim.'),
    },
    { required: ['name'] },
  ),
  [c('ResourceRequirements')]: object(
    'ResourceRequirements describes the compute resource requirements.',
    {
      // listType=map but no patchStrategy in k8s.io/api: strategic merge replaces it whole.
      claims: keyedList(c('ResourceClaim'), ['name'], {
        description:
          'Claims lists the names of resources, defined in spec.resourceClaims, that are used by this container.',
        patch: false,
      }),
      limits: quantityMap('Limits describes the maximum amount of compute resources allowed.'),
      requests: quantityMap('Requests describes the minimum amount of compute resources required.'),
    },
  ),
  [c('ContainerResizePolicy')]: object(
    'ContainerResizePolicy represents resource resize policy for the container.',
    {
      resourceName: str(
        'Name of the resource to which this resource resize policy applies. Supported values: cpu, memory.',
      ),
      restartPolicy: str('Restart policy to apply when specified resource is resized.'),
    },
    { required: ['resourceName', 'restartPolicy'] },
  ),
  [c('Container')]: object(
    'A single application container that you want to run within a pod.',
    containerProperties,
    {
      required: ['name'],
      ...preserve,
    },
  ),
  [c('EphemeralContainer')]: object(
    'An EphemeralContainer is a temporary container that you may add to an existing Pod for user-initiated activities such as debugging.',
    {
      ...containerProperties,
      targetContainerName: str(
        'If set, the name of the container from PodSpec that this ephemeral container targets.',
      ),
    },
    { required: ['name'], ...preserve },
  ),
};

const keyToPath = atomicList(
  ref(c('KeyToPath')),
  'If unspecified, each key-value pair in the Data field of the referenced object will be projected into the volume as a file whose name is the key and content is the value.',
);

const volumes: Record<string, Schema> = {
  [c('KeyToPath')]: object(
    'Maps a string key to a path within a volume.',
    {
      key: str('key is the key to project.'),
      mode: int32('mode is Optional: mode bits used to set permissions on this file.'),
      path: str('path is the relative path of the file to map the key to.'),
    },
    { required: ['key', 'path'] },
  ),
  [c('ConfigMapVolumeSource')]: object('Adapts a ConfigMap into a volume.', {
    defaultMode: int32(
      'defaultMode is optional: mode bits used to set permissions on created files by default.',
    ),
    items: keyToPath,
    name: str('Name of the referent.'),
    optional: bool('optional specify whether the ConfigMap or its keys must be defined'),
  }),
  [c('SecretVolumeSource')]: object('Adapts a Secret into a volume.', {
    defaultMode: int32(
      'defaultMode is Optional: mode bits used to set permissions on created files by default.',
    ),
    items: keyToPath,
    optional: bool('optional field specify whether the Secret or its keys must be defined'),
    secretName: str("secretName is the name of the secret in the pod's namespace to use."),
  }),
  [c('EmptyDirVolumeSource')]: object('Represents an empty directory for a pod.', {
    medium: str('medium represents what type of storage medium should back this directory.'),
    sizeLimit: ref(QUANTITY),
  }),
  [c('HostPathVolumeSource')]: object(
    'Represents a host path mapped into a pod.',
    {
      path: str('path of the directory on the host.'),
      type: str('type for HostPath Volume. Defaults to ""'),
    },
    { required: ['path'] },
  ),
  [c('PersistentVolumeClaimVolumeSource')]: object(
    "PersistentVolumeClaimVolumeSource references the user's PVC in the same namespace.",
    {
      claimName: str(
        'claimName is the name of a PersistentVolumeClaim in the same namespace as the pod using this volume.',
      ),
      readOnly: bool('readOnly Will force the ReadOnly setting in VolumeMounts.'),
    },
    { required: ['claimName'] },
  ),
  [c('DownwardAPIVolumeFile')]: object(
    'DownwardAPIVolumeFile represents information to create the file containing the pod field',
    {
      fieldRef: field(c('ObjectFieldSelector'), 'Required: Selects a field of the pod.'),
      mode: int32('Optional: mode bits used to set permissions on this file.'),
      path: str(
        "Required: Path is the relative path name of the file to be created. Must not be absolute or contain the '..' path.",
      ),
      resourceFieldRef: field(c('ResourceFieldSelector'), 'Selects a resource of the container.'),
    },
    { required: ['path'] },
  ),
  [c('DownwardAPIVolumeSource')]: object(
    'DownwardAPIVolumeSource represents a volume containing downward API info.',
    {
      defaultMode: int32('Optional: mode bits to use on created files by default.'),
      items: atomicList(
        ref(c('DownwardAPIVolumeFile')),
        'Items is a list of downward API volume file',
      ),
    },
  ),
  [c('ServiceAccountTokenProjection')]: object(
    'ServiceAccountTokenProjection represents a projected service account token volume.',
    {
      audience: str('audience is the intended audience of the token.'),
      expirationSeconds: int64(
        'expirationSeconds is the requested duration of validity of the service account token.',
      ),
      path: str(
        'path is the path relative to the mount point of the file to project the token into.',
      ),
    },
    { required: ['path'] },
  ),
  [c('ConfigMapProjection')]: object('Adapts a ConfigMap into a projected volume.', {
    items: keyToPath,
    name: str('Name of the referent.'),
    optional: bool('optional specify whether the ConfigMap or its keys must be defined'),
  }),
  [c('SecretProjection')]: object('Adapts a secret into a projected volume.', {
    items: keyToPath,
    name: str('Name of the referent.'),
    optional: bool('optional field specify whether the Secret or its key must be defined'),
  }),
  [c('DownwardAPIProjection')]: object(
    'Represents downward API info for projecting into a projected volume.',
    {
      items: atomicList(
        ref(c('DownwardAPIVolumeFile')),
        'Items is a list of DownwardAPIVolume file',
      ),
    },
  ),
  [c('VolumeProjection')]: object(
    'Projection that may be projected along with other supported volume types.',
    {
      clusterTrustBundle: open(
        'ClusterTrustBundle allows a pod to access the `.spec.trustBundle` field of ClusterTrustBundle objects in an auto-updating file.',
      ),
      configMap: field(
        c('ConfigMapProjection'),
        'configMap information about the configMap data to project',
      ),
      downwardAPI: field(
        c('DownwardAPIProjection'),
        'downwardAPI information about the downwardAPI data to project',
      ),
      secret: field(c('SecretProjection'), 'secret information about the secret data to project'),
      serviceAccountToken: field(
        c('ServiceAccountTokenProjection'),
        'serviceAccountToken is information about the serviceAccountToken data to project',
      ),
    },
    preserve,
  ),
  [c('ProjectedVolumeSource')]: object('Represents a projected volume source', {
    defaultMode: int32(
      'defaultMode are the mode bits used to set permissions on created files by default.',
    ),
    sources: atomicList(ref(c('VolumeProjection')), 'sources is the list of volume projections.'),
  }),
  [c('NFSVolumeSource')]: object(
    'Represents an NFS mount that lasts the lifetime of a pod.',
    {
      path: str('path that is exported by the NFS server.'),
      readOnly: bool(
        'readOnly here will force the NFS export to be mounted with read-only permissions.',
      ),
      server: str('server is the hostname or IP address of the NFS server.'),
    },
    { required: ['server', 'path'] },
  ),
  [c('CSIVolumeSource')]: object(
    'Represents a source location of a volume to mount, managed by an external CSI driver',
    {
      driver: str('driver is the name of the CSI driver that handles this volume.'),
      fsType: str('fsType to mount. Ex. "ext4", "xfs", "ntfs".'),
      nodePublishSecretRef: field(
        c('LocalObjectReference'),
        'nodePublishSecretRef is a reference to the secret object containing sensitive information to pass to the CSI driver.',
      ),
      readOnly: bool('readOnly specifies a read-only configuration for the volume.'),
      volumeAttributes: stringMap(
        'volumeAttributes stores driver-specific properties that are passed to the CSI driver.',
      ),
    },
    { required: ['driver'] },
  ),
  [c('ImageVolumeSource')]: object('ImageVolumeSource represents a image volume resource.', {
    pullPolicy: str(
      'Policy for pulling OCI objects. Possible values are: Always, Never, IfNotPresent.',
    ),
    reference: str('Required: Image or artifact reference to be used.'),
  }),
  [c('Volume')]: object(
    'Volume represents a named volume in a pod that may be accessed by any container in the pod. Less common volume sources are kept as given.',
    {
      configMap: field(
        c('ConfigMapVolumeSource'),
        'configMap represents a configMap that should populate this volume',
      ),
      csi: field(
        c('CSIVolumeSource'),
        'csi (Container Storage Interface) represents ephemeral storage that is handled by certain external CSI drivers.',
      ),
      downwardAPI: field(
        c('DownwardAPIVolumeSource'),
        'downwardAPI represents downward API about the pod that should populate this volume',
      ),
      emptyDir: field(
        c('EmptyDirVolumeSource'),
        "emptyDir represents a temporary directory that shares a pod's lifetime.",
      ),
      ephemeral: open('ephemeral represents a volume that is handled by a cluster storage driver.'),
      hostPath: field(
        c('HostPathVolumeSource'),
        'hostPath represents a pre-existing file or directory on the host machine that is directly exposed to the container.',
      ),
      image: field(
        c('ImageVolumeSource'),
        "image represents an OCI object (a container image or artifact) pulled and mounted on the kubelet's host machine.",
      ),
      name: str('name of the volume. Must be a DNS_LABEL and unique within the pod.'),
      nfs: field(
        c('NFSVolumeSource'),
        "nfs represents an NFS mount on the host that shares a pod's lifetime",
      ),
      persistentVolumeClaim: field(
        c('PersistentVolumeClaimVolumeSource'),
        'persistentVolumeClaimVolumeSource represents a reference to a PersistentVolumeClaim in the same namespace.',
      ),
      projected: field(
        c('ProjectedVolumeSource'),
        'projected items for all in one resources secrets, configmaps, and downward API',
      ),
      secret: field(
        c('SecretVolumeSource'),
        'secret represents a secret that should populate this volume.',
      ),
    },
    { required: ['name'], ...preserve },
  ),
};

const scheduling: Record<string, Schema> = {
  [c('Toleration')]: object(
    'The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>.',
    {
      effect: str(
        'Effect indicates the taint effect to match. Empty means match all taint effects.',
      ),
      key: str(
        'Key is the taint key that the toleration applies to. Empty means match all taint keys.',
      ),
      operator: str(
        "Operator represents a key's relationship to the value. Valid operators are Exists and Equal.",
      ),
      tolerationSeconds: int64(
        'TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute) tolerates the taint.',
      ),
      value: str('Value is the taint value the toleration matches to.'),
    },
  ),
  [c('NodeSelectorRequirement')]: object(
    'A node selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
    {
      key: str('The label key that the selector applies to.'),
      operator: str(
        "Represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists, DoesNotExist. Gt, and Lt.",
      ),
      values: stringList('An array of string values.'),
    },
    { required: ['key', 'operator'] },
  ),
  [c('NodeSelectorTerm')]: object(
    'A null or empty node selector term matches no objects. The requirements of them are ANDed.',
    {
      matchExpressions: atomicList(
        ref(c('NodeSelectorRequirement')),
        "A list of node selector requirements by node's labels.",
      ),
      matchFields: atomicList(
        ref(c('NodeSelectorRequirement')),
        "A list of node selector requirements by node's fields.",
      ),
    },
    atomic,
  ),
  [c('NodeSelector')]: object(
    'A node selector represents the union of the results of one or more label queries over a set of nodes.',
    {
      nodeSelectorTerms: atomicList(
        ref(c('NodeSelectorTerm')),
        'Required. A list of node selector terms. The terms are ORed.',
      ),
    },
    { required: ['nodeSelectorTerms'], ...atomic },
  ),
  [c('PreferredSchedulingTerm')]: object(
    'An empty preferred scheduling term matches all objects with implicit weight 0.',
    {
      preference: field(
        c('NodeSelectorTerm'),
        'A node selector term, associated with the corresponding weight.',
      ),
      weight: int32(
        'Weight associated with matching the corresponding nodeSelectorTerm, in the range 1-100.',
      ),
    },
    { required: ['weight', 'preference'] },
  ),
  [c('NodeAffinity')]: object('Node affinity is a group of node affinity scheduling rules.', {
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(
      ref(c('PreferredSchedulingTerm')),
      'The scheduler will prefer to schedule pods to nodes that satisfy the affinity expressions specified by this field.',
    ),
    requiredDuringSchedulingIgnoredDuringExecution: field(
      c('NodeSelector'),
      'If the affinity requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node.',
    ),
  }),
  [c('PodAffinityTerm')]: object(
    'Defines a set of pods that this pod should be co-located (affinity) or not co-located (anti-affinity) with.',
    {
      labelSelector: field(
        `${META}.LabelSelector`,
        'A label query over a set of resources, in this case pods.',
      ),
      matchLabelKeys: stringList(
        'MatchLabelKeys is a set of pod label keys to select which pods will be taken into consideration.',
      ),
      mismatchLabelKeys: stringList(
        'MismatchLabelKeys is a set of pod label keys to select which pods will be taken into consideration.',
      ),
      namespaceSelector: field(
        `${META}.LabelSelector`,
        'A label query over the set of namespaces that the term applies to.',
      ),
      namespaces: stringList(
        'namespaces specifies a static list of namespace names that the term applies to.',
      ),
      topologyKey: str(
        'This pod should be co-located (affinity) or not co-located (anti-affinity) with the pods matching the labelSelector in the specified namespaces.',
      ),
    },
    { required: ['topologyKey'] },
  ),
  [c('WeightedPodAffinityTerm')]: object(
    'The weights of all of the matched WeightedPodAffinityTerm fields are added per-node to find the most preferred node(s)',
    {
      podAffinityTerm: field(
        c('PodAffinityTerm'),
        'Required. A pod affinity term, associated with the corresponding weight.',
      ),
      weight: int32(
        'weight associated with matching the corresponding podAffinityTerm, in the range 1-100.',
      ),
    },
    { required: ['weight', 'podAffinityTerm'] },
  ),
  ...Object.fromEntries(
    (['PodAffinity', 'PodAntiAffinity'] as const).map((name) => [
      c(name),
      object(
        `${name === 'PodAffinity' ? 'Pod affinity' : 'Pod anti affinity'} is a group of inter pod ${name === 'PodAffinity' ? 'affinity' : 'anti affinity'} scheduling rules.`,
        {
          preferredDuringSchedulingIgnoredDuringExecution: atomicList(
            ref(c('WeightedPodAffinityTerm')),
            'The scheduler will prefer to schedule pods to nodes that satisfy these expressions.',
          ),
          requiredDuringSchedulingIgnoredDuringExecution: atomicList(
            ref(c('PodAffinityTerm')),
            'If these requirements are not met at scheduling time, the pod will not be scheduled onto the node.',
          ),
        },
      ),
    ]),
  ),
  [c('Affinity')]: object('Affinity is a group of affinity scheduling rules.', {
    nodeAffinity: field(c('NodeAffinity'), 'Describes node affinity scheduling rules for the pod.'),
    podAffinity: field(c('PodAffinity'), 'Describes pod affinity scheduling rules.'),
    podAntiAffinity: field(c('PodAntiAffinity'), 'Describes pod anti-affinity scheduling rules.'),
  }),
  [c('TopologySpreadConstraint')]: object(
    'TopologySpreadConstraint specifies how to spread matching pods among the given topology.',
    {
      labelSelector: field(`${META}.LabelSelector`, 'LabelSelector is used to find matching pods.'),
      matchLabelKeys: stringList(
        'MatchLabelKeys is a set of pod label keys to select the pods over which spreading will be calculated.',
      ),
      maxSkew: int32('MaxSkew describes the degree to which pods may be unevenly distributed.'),
      minDomains: int32('MinDomains indicates a minimum number of eligible domains.'),
      nodeAffinityPolicy: str(
        "NodeAffinityPolicy indicates how we will treat Pod's nodeAffinity/nodeSelector when calculating pod topology spread skew.",
      ),
      nodeTaintsPolicy: str(
        'NodeTaintsPolicy indicates how we will treat node taints when calculating pod topology spread skew.',
      ),
      topologyKey: str('TopologyKey is the key of node labels.'),
      whenUnsatisfiable: str(
        "WhenUnsatisfiable indicates how to deal with a pod if it doesn't satisfy the spread constraint.",
      ),
    },
    { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] },
  ),
};

const pod: Record<string, Schema> = {
  [c('LocalObjectReference')]: object(
    'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.',
    { name: str('Name of the referent.') },
    atomic,
  ),
  [c('HostAlias')]: object(
    "HostAlias holds the mapping between IP and hostnames that will be injected as an entry in the pod's hosts file.",
    {
      hostnames: stringList('Hostnames for the above IP address.'),
      ip: str('IP address of the host file entry.'),
    },
    { required: ['ip'] },
  ),
  [c('PodDNSConfigOption')]: object('PodDNSConfigOption defines DNS resolver options of a pod.', {
    name: str("Name is this DNS resolver option's name."),
    value: str("Value is this DNS resolver option's value."),
  }),
  [c('PodDNSConfig')]: object(
    'PodDNSConfig defines the DNS parameters of a pod in addition to those generated from DNSPolicy.',
    {
      nameservers: stringList('A list of DNS name server IP addresses.'),
      options: atomicList(ref(c('PodDNSConfigOption')), 'A list of DNS resolver options.'),
      searches: stringList('A list of DNS search domains for host-name lookup.'),
    },
  ),
  [c('PodReadinessGate')]: object(
    'PodReadinessGate contains the reference to a pod condition',
    {
      conditionType: str(
        "ConditionType refers to a condition in the pod's condition list with matching type.",
      ),
    },
    { required: ['conditionType'] },
  ),
  [c('PodOS')]: object(
    'PodOS defines the OS parameters of a pod.',
    {
      name: str(
        'Name is the name of the operating system. The currently supported values are linux and windows.',
      ),
    },
    { required: ['name'] },
  ),
  [c('PodSchedulingGate')]: object(
    'PodSchedulingGate is associated to a Pod to guard its scheduling.',
    {
      name: str('Name of the scheduling gate. Each scheduling gate must have a unique name field.'),
    },
    { required: ['name'] },
  ),
  [c('PodResourceClaim')]: object(
    'PodResourceClaim references exactly one ResourceClaim, either directly or by naming a ResourceClaimTemplate.',
    {
      name: str('Name uniquely identifies this resource claim inside the pod.'),
      resourceClaimName: str(
        'ResourceClaimName is the name of a ResourceClaim object in the same namespace as this pod.',
      ),
      resourceClaimTemplateName: str(
        'ResourceClaimTemplateName is the name of a ResourceClaimTemplate object in the same namespace as this pod.',
      ),
    },
    { required: ['name'] },
  ),
  [c('PodSpec')]: object(
    'PodSpec is a description of a pod.',
    {
      activeDeadlineSeconds: int64(
        'Optional duration in seconds the pod may be active on the node relative to StartTime before the system will actively try to mark it failed and kill associated containers.',
      ),
      affinity: field(c('Affinity'), "If specified, the pod's scheduling constraints"),
      automountServiceAccountToken: bool(
        'AutomountServiceAccountToken indicates whether a service account token should be automatically mounted.',
      ),
      containers: keyedList(c('Container'), ['name'], {
        description: 'List of containers belonging to the pod.',
      }),
      dnsConfig: field(c('PodDNSConfig'), 'Specifies the DNS parameters of a pod.'),
      dnsPolicy: str('Set DNS policy for the pod. Defaults to "ClusterFirst".'),
      enableServiceLinks: bool(
        "EnableServiceLinks indicates whether information about services should be injected into pod's environment variables.",
      ),
      ephemeralContainers: keyedList(c('EphemeralContainer'), ['name'], {
        description: 'List of ephemeral containers run in this pod.',
      }),
      hostAliases: keyedList(c('HostAlias'), ['ip'], {
        description:
          "HostAliases is an optional list of hosts and IPs that will be injected into the pod's hosts file.",
      }),
      hostIPC: bool("Use the host's ipc namespace. Optional: Default to false."),
      hostNetwork: bool('Host networking requested for this pod.'),
      hostPID: bool("Use the host's pid namespace. Optional: Default to false."),
      hostUsers: bool("Use the host's user namespace. Optional: Default to true."),
      hostname: str('Specifies the hostname of the Pod.'),
      imagePullSecrets: keyedList(c('LocalObjectReference'), ['name'], {
        description:
          'ImagePullSecrets is an optional list of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec.',
      }),
      initContainers: keyedList(c('Container'), ['name'], {
        description: 'List of initialization containers belonging to the pod.',
      }),
      nodeName: str('NodeName indicates in which node this pod is scheduled.'),
      nodeSelector: stringMap(
        'NodeSelector is a selector which must be true for the pod to fit on a node.',
        { atomic: true },
      ),
      os: field(c('PodOS'), 'Specifies the OS of the containers in the pod.'),
      overhead: quantityMap(
        'Overhead represents the resource overhead associated with running a pod for a given RuntimeClass.',
      ),
      preemptionPolicy: str(
        'PreemptionPolicy is the Policy for preempting pods with lower priority.',
      ),
      priority: int32('The priority value.'),
      priorityClassName: str("If specified, indicates the pod's priority."),
      readinessGates: atomicList(
        ref(c('PodReadinessGate')),
        'If specified, all readiness gates will be evaluated for pod readiness.',
      ),
      resourceClaims: keyedList(c('PodResourceClaim'), ['name'], {
        description:
          'ResourceClaims defines which ResourceClaims must be allocated and reserved before the Pod is allowed to start.',
        strategy: 'merge,retainKeys',
      }),
      resources: field(
        c('ResourceRequirements'),
        'Resources is the total amount of CPU and Memory resources required by all containers in the pod.',
      ),
      restartPolicy: str(
        'Restart policy for all containers within the pod. One of Always, OnFailure, Never.',
      ),
      runtimeClassName: str(
        'RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group.',
      ),
      schedulerName: str('If specified, the pod will be dispatched by specified scheduler.'),
      schedulingGates: keyedList(c('PodSchedulingGate'), ['name'], {
        description:
          'SchedulingGates is an opaque list of values that if specified will block scheduling the pod.',
      }),
      securityContext: field(
        c('PodSecurityContext'),
        'SecurityContext holds pod-level security attributes and common container settings.',
      ),
      serviceAccount: str('DeprecatedServiceAccount is a deprecated alias for ServiceAccountName.'),
      serviceAccountName: str(
        'ServiceAccountName is the name of the ServiceAccount to use to run this pod.',
      ),
      setHostnameAsFQDN: bool(
        "If true the pod's hostname will be configured as the pod's FQDN, rather than the leaf name (the default).",
      ),
      shareProcessNamespace: bool(
        'Share a single process namespace between all of the containers in a pod.',
      ),
      subdomain: str(
        'If specified, the fully qualified Pod hostname will be "<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>".',
      ),
      terminationGracePeriodSeconds: int64(
        'Optional duration in seconds the pod needs to terminate gracefully.',
      ),
      tolerations: atomicList(ref(c('Toleration')), "If specified, the pod's tolerations."),
      topologySpreadConstraints: keyedList(
        c('TopologySpreadConstraint'),
        ['topologyKey', 'whenUnsatisfiable'],
        {
          description:
            'TopologySpreadConstraints describes how a group of pods ought to spread across topology domains.',
        },
      ),
      volumes: keyedList(c('Volume'), ['name'], {
        description: 'List of volumes that can be mounted by containers belonging to the pod.',
        strategy: 'merge,retainKeys',
      }),
    },
    { required: ['containers'], ...preserve },
  ),
  [c('PodTemplateSpec')]: object(
    'PodTemplateSpec describes the data a pod should have when created from a template',
    {
      metadata: field(`${META}.ObjectMeta`, "Standard object's metadata."),
      spec: field(c('PodSpec'), 'Specification of the desired behavior of the pod.'),
    },
  ),
};

/** Every core/v1 schema a PodSpec or PodTemplateSpec refers to, by component name. */
export const podSpecSchemas: Readonly<Record<string, Schema>> = {
  ...handlers,
  ...security,
  ...env,
  ...containers,
  ...volumes,
  ...scheduling,
  ...pod,
};
