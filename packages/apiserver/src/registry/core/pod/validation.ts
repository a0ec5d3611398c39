import {
  fieldErrors,
  goSyntax,
  isDNS1123Label,
  isQualifiedName,
  isRecord,
  isValidLabelValue,
  labelSelectorFromMetaV1,
  validateLabels,
  type FieldError,
  type LabelSelector,
  type MetaLabelSelector,
} from '@listwatch/api';
import { semanticEqual } from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type * as metav1 from 'kubernetes-types/meta/v1.js';
import type { Decoded } from '../../rest/typed-object.js';
import { validateAffinity, validateResourceRequirements } from './scheduling-validation.js';

// The validation of pods and pod templates users meet most: k8s.io/kubernetes
// pkg/apis/core/validation/validation.go (ValidatePodSpec, validateContainers, ValidateEnv,
// validateContainerPorts, ValidatePodUpdate, ValidatePodTemplateSpecForReplicaSet) and
// apimachinery pkg/util/validation (IsValidPortNum, IsValidPortName, IsRelaxedEnvVarName),
// with their field paths and messages. Values are already of their Go types (decoding checked):
// kubernetes-types' core/v1 types as decoded (rest/typed-object.ts).

export type PodSpec = Decoded<corev1.PodSpec>;
export type PodTemplateSpec = Decoded<corev1.PodTemplateSpec>;
type Container = Decoded<corev1.Container>;
/** A label selector as decoded (metav1.LabelSelector). */
export type LabelSelectorSpec = Decoded<metav1.LabelSelector>;

/** The records of a list that is not typed yet (pod admission's). */
export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** IsValidPortNum. */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** IsValidPortName: an IANA_SVC_NAME. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on by default since 1.32). */
function isRelaxedEnvVarName(name: string): string[] {
  for (const ch of name) {
    const code = ch.codePointAt(0) ?? 0;
    if (code > 126 || code < 32 || ch === '=')
      return [
        "a valid environment variable name must consist only of printable ASCII characters other than '='",
      ];
  }
  return [];
}

function validateDNS1123Label(value: string, field: string): FieldError[] {
  return isDNS1123Label(value).map((msg) => fieldErrors.invalid(field, value, msg));
}

/** field.NotSupported for a string enum, "" being Required. */
function validateEnum(
  value: string | undefined,
  field: string,
  supported: readonly string[],
  requiredWhenEmpty = true,
): FieldError[] {
  const v = value ?? '';
  if (v === '') return requiredWhenEmpty ? [fieldErrors.required(field)] : [];
  return supported.includes(v) ? [] : [fieldErrors.notSupported(field, v, supported)];
}

function validateContainerPorts(ports: Container['ports'] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const at = `${path}[${i}]`;
    const name = port.name ?? '';
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length)
        for (const msg of msgs) errs.push(fieldErrors.invalid(`${at}.name`, name, msg));
      else if (names.has(name)) errs.push(fieldErrors.duplicate(`${at}.name`, name));
      else names.add(name);
    }
    const containerPort = port.containerPort ?? 0;
    if (containerPort === 0) errs.push(fieldErrors.required(`${at}.containerPort`));
    else
      for (const msg of isValidPortNum(containerPort))
        errs.push(fieldErrors.invalid(`${at}.containerPort`, containerPort, msg));
    const hostPort = port.hostPort ?? 0;
    if (hostPort !== 0)
      for (const msg of isValidPortNum(hostPort))
        errs.push(fieldErrors.invalid(`${at}.hostPort`, hostPort, msg));
    errs.push(...validateEnum(port.protocol, `${at}.protocol`, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

function validateEnv(env: Container['env'] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (env ?? []).forEach((variable, i) => {
    const name = variable.name ?? '';
    if (name === '') errs.push(fieldErrors.required(`${path}[${i}].name`));
    else
      for (const msg of isRelaxedEnvVarName(name))
        errs.push(fieldErrors.invalid(`${path}[${i}].name`, name, msg));
  });
  return errs;
}

/** ValidatePortNumOrName: an IntOrString port is a number in range or an IANA_SVC_NAME. */
function validatePortNumOrName(port: number | string | undefined, path: string): FieldError[] {
  if (typeof port === 'string' && port !== '')
    return isValidPortName(port).map((msg) => fieldErrors.invalid(path, port, msg));
  const number = typeof port === 'number' ? port : 0;
  return isValidPortNum(number).map((msg) => fieldErrors.invalid(path, number, msg));
}

/**
 * validateHandler (probes) and validateLifecycleHandler: exactly one handler, and the port of an
 * httpGet, tcpSocket or grpc one valid (typed clients require it: a probe without a port would
 * make every list of its kind undecodable).
 */
function validateHandler(
  handler: Handler | undefined,
  path: string,
  kinds: readonly HandlerKind[],
): FieldError[] {
  if (!handler) return [];
  const set = kinds.filter((k) => handler[k] !== undefined);
  if (set.length === 0) return [fieldErrors.required(path, 'must specify a handler type')];
  if (set.length > 1)
    return [fieldErrors.forbidden(`${path}.${set[1]}`, 'may not specify more than 1 handler type')];
  const kind = set[0]!;
  if (kind === 'httpGet' || kind === 'tcpSocket')
    return validatePortNumOrName(handler[kind]?.port, `${path}.${kind}.port`);
  if (kind === 'grpc') {
    const port = handler.grpc?.port ?? 0;
    return isValidPortNum(port).map((msg) => fieldErrors.invalid(`${path}.grpc.port`, port, msg));
  }
  return [];
}

/** A probe's or a lifecycle hook's handler: the fields of both. */
type Handler = Decoded<corev1.Probe> & Decoded<corev1.LifecycleHandler>;
type HandlerKind = 'exec' | 'httpGet' | 'tcpSocket' | 'grpc' | 'sleep';

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'] as const;

/** The probes and lifecycle hooks of a container. */
function validateHandlers(container: Container, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const)
    errs.push(...validateHandler(container[probe], `${path}.${probe}`, PROBE_HANDLERS));
  const lifecycle = container.lifecycle ?? {};
  for (const hook of ['postStart', 'preStop'] as const)
    errs.push(...validateHandler(lifecycle[hook], `${path}.lifecycle.${hook}`, LIFECYCLE_HANDLERS));
  return errs;
}

/** validateContainerCommon. */
function validateContainer(container: Container, path: string, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const name = container.name ?? '';
  if (name === '') errs.push(fieldErrors.required(`${path}.name`));
  else errs.push(...validateDNS1123Label(name, `${path}.name`));
  if (!container.image) errs.push(fieldErrors.required(`${path}.image`));
  errs.push(
    ...validateEnum(container.terminationMessagePolicy, `${path}.terminationMessagePolicy`, [
      'File',
      'FallbackToLogsOnError',
    ]),
  );
  errs.push(...validateContainerPorts(container.ports, `${path}.ports`));
  errs.push(...validateEnv(container.env, `${path}.env`));
  errs.push(...validateResourceRequirements(container.resources, `${path}.resources`));
  errs.push(...validateHandlers(container, path));
  errs.push(
    ...validateEnum(container.imagePullPolicy, `${path}.imagePullPolicy`, [
      'Always',
      'IfNotPresent',
      'Never',
    ]),
  );
  (container.volumeMounts ?? []).forEach((mount, i) => {
    const at = `${path}.volumeMounts[${i}]`;
    const mountName = mount.name ?? '';
    if (mountName === '') errs.push(fieldErrors.required(`${at}.name`));
    else if (!volumes.has(mountName)) errs.push(notFound(`${at}.name`, mountName));
    if (!mount.mountPath) errs.push(fieldErrors.required(`${at}.mountPath`));
  });
  return errs;
}

function notFound(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, badValue: value };
}

export interface PodSpecOptions {
  /** A pod itself, not a template: its images may not have surrounding whitespace. */
  pod: boolean;
}

/** ValidatePodSpec's common rules: volumes, containers, restart and DNS policies. */
export function validatePodSpec(
  spec: PodSpec | undefined,
  path: string,
  options: PodSpecOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  const s = spec ?? {};
  const volumes = new Set<string>();
  (s.volumes ?? []).forEach((volume, i) => {
    const at = `${path}.volumes[${i}].name`;
    const name = volume.name ?? '';
    if (name === '') errs.push(fieldErrors.required(at));
    else {
      errs.push(...validateDNS1123Label(name, at));
      if (volumes.has(name)) errs.push(fieldErrors.duplicate(at, name));
      volumes.add(name);
    }
  });
  const names = new Set<string>();
  const containerList = (field: 'initContainers' | 'containers', required: boolean) => {
    const containers = s[field] ?? [];
    if (required && containers.length === 0) errs.push(fieldErrors.required(`${path}.${field}`));
    containers.forEach((container, i) => {
      const at = `${path}.${field}[${i}]`;
      errs.push(...validateContainer(container, at, volumes));
      const image = container.image ?? '';
      if (options.pod && image !== image.trim())
        errs.push(
          fieldErrors.invalid(`${at}.image`, image, 'must not have leading or trailing whitespace'),
        );
      const name = container.name ?? '';
      if (name === '') return;
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${at}.name`, name));
      names.add(name);
    });
  };
  containerList('initContainers', false);
  containerList('containers', true);
  errs.push(
    ...validateEnum(s.restartPolicy, `${path}.restartPolicy`, ['Always', 'OnFailure', 'Never']),
  );
  errs.push(
    ...validateEnum(s.dnsPolicy, `${path}.dnsPolicy`, [
      'ClusterFirstWithHostNet',
      'ClusterFirst',
      'Default',
      'None',
    ]),
  );
  errs.push(...validateAffinity(s.affinity, `${path}.affinity`));
  const deadline = s.activeDeadlineSeconds;
  if (deadline !== undefined && (deadline < 1 || deadline > 2 ** 31 - 1))
    errs.push(
      fieldErrors.invalid(
        `${path}.activeDeadlineSeconds`,
        deadline,
        `must be between 1 and ${2 ** 31 - 1}, inclusive`,
      ),
    );
  return errs;
}

/** ValidatePodTemplateSpec: the template's labels and annotations, and its spec. */
export function validatePodTemplateSpec(
  template: PodTemplateSpec | undefined,
  path: string,
): FieldError[] {
  return [
    ...validateLabels(template?.metadata?.labels, `${path}.metadata.labels`),
    ...validatePodSpec(template?.spec, `${path}.spec`, { pod: false }),
  ];
}

const KNOWN_OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * The values a label or field selector requirement's operator needs (metav1validation): some
 * for In and NotIn, none for Exists and DoesNotExist; other operators are left to the caller.
 */
export function operatorValuesErrors(
  operator: string,
  values: readonly unknown[],
  path: string,
): FieldError[] {
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0)
    return [
      fieldErrors.required(
        `${path}.values`,
        "must be specified when `operator` is 'In' or 'NotIn'",
      ),
    ];
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0)
    return [
      fieldErrors.forbidden(
        `${path}.values`,
        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ),
    ];
  return [];
}

/**
 * metav1validation.ValidateLabelSelectorRequirement: values as the operator needs them, the key a
 * label name, each value a label value. `allowUnknownOperator` for requirements from newer
 * clients (the access reviews).
 */
export function validateLabelSelectorRequirement(
  requirement: Decoded<metav1.LabelSelectorRequirement>,
  path: string,
  { allowUnknownOperator = false } = {},
): FieldError[] {
  const operator = requirement.operator ?? '';
  const values = requirement.values ?? [];
  const errs = operatorValuesErrors(operator, values, path);
  if (!KNOWN_OPERATORS.has(operator) && !allowUnknownOperator)
    errs.push(fieldErrors.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
  const key = requirement.key ?? '';
  for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(`${path}.key`, key, msg));
  values.forEach((value, i) => {
    for (const msg of isValidLabelValue(value))
      errs.push(fieldErrors.invalid(`${path}.values[${i}]`, value, msg));
  });
  return errs;
}

/** metav1validation.ValidateLabelSelector. */
export function validateLabelSelector(
  selector: LabelSelectorSpec | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateLabels(selector?.matchLabels, `${path}.matchLabels`));
  (selector?.matchExpressions ?? []).forEach((expression, i) => {
    errs.push(...validateLabelSelectorRequirement(expression, `${path}.matchExpressions[${i}]`));
  });
  return errs;
}

/** The spec fields Deployments and ReplicaSets share. */
export interface WorkloadSpec {
  replicas?: number;
  selector?: LabelSelectorSpec;
  template?: PodTemplateSpec;
}

/**
 * ValidateDeploymentSpec / ValidateReplicaSetSpec's shared part: replicas not negative, a
 * selector that is not empty and matches the template's labels
 * (ValidatePodTemplateSpecForReplicaSet: restartPolicy Always, no activeDeadlineSeconds), and
 * the template itself. `kind` words the empty-selector error (`deployment`, `replicaset`).
 */
export function validateWorkloadSpec(spec: WorkloadSpec, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  const { replicas, selector } = spec;
  if (replicas !== undefined && replicas < 0)
    errs.push(fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  // The template is a Go struct value: always there, maybe empty.
  const template = spec.template ?? {};
  if (!selector) {
    errs.push(fieldErrors.required('spec.selector'));
  } else {
    errs.push(...validateLabelSelector(selector, 'spec.selector'));
    const count =
      Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length;
    if (count === 0)
      errs.push(
        fieldErrors.invalid(
          'spec.selector',
          goSyntax.labelSelector(selector),
          `empty selector is invalid for ${kind}`,
        ),
      );
  }
  // LabelSelectorAsSelector: no selector selects nothing, an empty one everything (not checked).
  let parsed: LabelSelector | undefined;
  try {
    // LabelSelectorAsSelector checks the operators the decoded type leaves as strings.
    parsed = labelSelectorFromMetaV1((selector ?? null) as MetaLabelSelector | null);
  } catch {
    errs.push(
      fieldErrors.invalid(
        'spec.selector',
        goSyntax.labelSelector(selector),
        'invalid label selector',
      ),
    );
  }
  const labels = template.metadata?.labels;
  if (parsed && !parsed.isEmpty() && !parsed.matches(labels ?? {}))
    errs.push(
      fieldErrors.invalid(
        'spec.template.metadata.labels',
        goSyntax.stringMap(labels),
        '`selector` does not match template `labels`',
      ),
    );
  errs.push(...validatePodTemplateSpec(template, 'spec.template'));
  const podSpec = template.spec ?? {};
  const restart = podSpec.restartPolicy ?? '';
  if (restart && restart !== 'Always')
    errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restart, ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined)
    errs.push(
      fieldErrors.forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        `activeDeadlineSeconds in ${kind === 'deployment' ? 'Deployment' : 'ReplicaSet'} is not Supported`,
      ),
    );
  return errs;
}

/** The fields ValidatePodUpdate lets an update of a pod's spec change (kube 1.32 wording). */
const UPDATABLE_POD_SPEC_FIELDS =
  '`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/**
 * ValidatePodUpdate's spec rule: the new spec, with the fields an update may change put back to
 * their old values, must be the old spec. (kube appends a diff of the two; this does not.)
 */
export function validatePodSpecUpdate(
  next: PodSpec | undefined,
  old: PodSpec | undefined,
): FieldError[] {
  const spec = structuredClone(next ?? {});
  const before = old ?? {};
  const errs: FieldError[] = [];
  for (const field of ['containers', 'initContainers'] as const) {
    const now = spec[field] ?? [];
    const then = before[field] ?? [];
    if (now.length === then.length)
      now.forEach((container, i) => {
        setOrDelete(container, 'image', then[i]?.image);
      });
  }
  const deadline = spec.activeDeadlineSeconds;
  const oldDeadline = before.activeDeadlineSeconds;
  if (deadline !== undefined && (oldDeadline === undefined || deadline <= oldDeadline))
    setOrDelete(spec, 'activeDeadlineSeconds', oldDeadline);
  const grace = before.terminationGracePeriodSeconds;
  if (grace !== undefined && grace < 0 && spec.terminationGracePeriodSeconds === 1)
    spec.terminationGracePeriodSeconds = grace;
  const tolerations = spec.tolerations ?? [];
  const oldTolerations = before.tolerations ?? [];
  if (oldTolerations.every((t) => tolerations.some((n) => semanticEqual(n, t))))
    setOrDelete(spec, 'tolerations', before.tolerations);
  else
    errs.push(
      fieldErrors.forbidden(
        'spec.tolerations',
        'existing toleration can not be modified except its tolerationSeconds',
      ),
    );
  if (!semanticEqual(spec, before))
    errs.push(
      fieldErrors.forbidden(
        'spec',
        `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS}`,
      ),
    );
  return errs;
}

/** `object[key] = value`, an undefined value leaving the field out (exact optional fields). */
function setOrDelete<T extends object, K extends keyof T>(
  object: T,
  key: K,
  value: T[K] | undefined,
) {
  if (value === undefined) delete object[key];
  else object[key] = value;
}
