import { fieldErrors, isDNS1123Label, type FieldError } from '@listwatch/api';
import { oneOf } from '../../kind-helpers.js';
import type { PodSpec, PodTemplateSpec } from './validation.js';

// The pod template of the workload kinds (StatefulSet, DaemonSet, Job, CronJob, ReplicationController,
// PodTemplate): a small part of pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec, _Container,
// _ContainerPort) and of pkg/apis/core/validation (ValidatePodTemplateSpec). The full pod
// defaulting and validation live with the Pod's own strategy; this keeps to what a workload's
// template needs so that it reads back as from a real cluster.

type Container = NonNullable<PodSpec['containers']>[number];

/** SetDefaults_Container's pull policy: Always for `:latest` or an untagged image. */
function pullPolicy(image: string | undefined): string {
  if (image === undefined) return 'IfNotPresent';
  const name = image.split('@')[0] ?? '';
  const lastSlash = name.lastIndexOf('/');
  const tagAt = name.lastIndexOf(':');
  const tag = tagAt > lastSlash ? name.slice(tagAt + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(container: Container): void {
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
  container.imagePullPolicy ??= pullPolicy(container.image);
  container.resources ??= {};
  for (const port of container.ports ?? []) port.protocol ??= 'TCP';
}

/** SetDefaults_PodSpec and its containers' defaults, on a template's `spec`. */
export function defaultPodSpec(spec: PodSpec): void {
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.containers ?? []) defaultContainer(c);
}

/** A PodTemplateSpec's defaults: those of its pod spec (created when missing, as Go's struct). */
export function defaultPodTemplate(template: PodTemplateSpec): void {
  defaultPodSpec((template.spec ??= {}));
}

/**
 * ValidatePodTemplateSpec's rules users hit most: containers required and uniquely named with
 * DNS-1123 labels, an image each, and a restart policy the workload allows.
 */
export function validatePodTemplate(
  template: PodTemplateSpec | undefined,
  path: string,
  restartPolicies: readonly string[],
): FieldError[] {
  if (!template) return [fieldErrors.required(path, '')];
  const spec = template.spec ?? {};
  const errors: FieldError[] = [];
  const containers = spec.containers ?? [];
  if (containers.length === 0) errors.push(fieldErrors.required(`${path}.spec.containers`, ''));
  const names = new Set<string>();
  for (const [list, key] of [
    [spec.initContainers ?? [], 'initContainers'],
    [containers, 'containers'],
  ] as const) {
    list.forEach((container, i) => {
      const at = `${path}.spec.${key}[${i}]`;
      const { name, image } = container;
      if (!name) errors.push(fieldErrors.required(`${at}.name`, ''));
      else {
        for (const msg of isDNS1123Label(name))
          errors.push(fieldErrors.invalid(`${at}.name`, name, msg));
        if (names.has(name)) errors.push(fieldErrors.duplicate(`${at}.name`, name));
        names.add(name);
      }
      if (key === 'containers' && (image === undefined || image.trim() === ''))
        errors.push(fieldErrors.required(`${at}.image`, ''));
    });
  }
  errors.push(...oneOf(spec.restartPolicy, `${path}.spec.restartPolicy`, restartPolicies, true));
  return errors;
}
