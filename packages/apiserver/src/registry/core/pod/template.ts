import { fieldErrors, isDNS1123Label, isRecord, type FieldError } from '@listwatch/api';
import { child, defaultTo, listAt, oneOf, recordAt, type Json } from '../../kind-helpers.js';

// The pod template of the workload kinds (StatefulSet, DaemonSet, Job, CronJob, ReplicationController,
// PodTemplate): a small part of pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec, _Container,
// _ContainerPort) and of pkg/apis/core/validation (ValidatePodTemplateSpec). The full pod
// defaulting and validation live with the Pod's own strategy; this keeps to what a workload's
// template needs so that it reads back as from a real cluster.

/** SetDefaults_Container's pull policy: Always for `:latest` or an untagged image. */
function pullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  const name = image.split('@')[0] ?? '';
  const lastSlash = name.lastIndexOf('/');
  const tagAt = name.lastIndexOf(':');
  const tag = tagAt > lastSlash ? name.slice(tagAt + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(container: unknown): void {
  if (!isRecord(container)) return;
  defaultTo(container, 'terminationMessagePath', '/dev/termination-log');
  defaultTo(container, 'terminationMessagePolicy', 'File');
  defaultTo(container, 'imagePullPolicy', pullPolicy(container['image']));
  defaultTo(container, 'resources', {});
  for (const port of listAt(container, 'ports'))
    if (isRecord(port)) defaultTo(port, 'protocol', 'TCP');
}

/** SetDefaults_PodSpec and its containers' defaults, on a template's `spec`. */
export function defaultPodSpec(spec: Json): void {
  defaultTo(spec, 'dnsPolicy', 'ClusterFirst');
  defaultTo(spec, 'restartPolicy', 'Always');
  defaultTo(spec, 'terminationGracePeriodSeconds', 30);
  defaultTo(spec, 'securityContext', {});
  defaultTo(spec, 'schedulerName', 'default-scheduler');
  for (const c of listAt(spec, 'initContainers')) defaultContainer(c);
  for (const c of listAt(spec, 'containers')) defaultContainer(c);
}

/** A PodTemplateSpec's defaults: those of its pod spec (created when missing, as Go's struct). */
export function defaultPodTemplate(template: Json): void {
  defaultPodSpec(child(template, 'spec'));
}

/**
 * ValidatePodTemplateSpec's rules users hit most: containers required and uniquely named with
 * DNS-1123 labels, an image each, and a restart policy the workload allows.
 */
export function validatePodTemplate(
  template: unknown,
  path: string,
  restartPolicies: readonly string[],
): FieldError[] {
  if (!isRecord(template)) return [fieldErrors.required(path, '')];
  const spec = recordAt(template, 'spec');
  const errors: FieldError[] = [];
  const containers = listAt(spec, 'containers');
  if (containers.length === 0) errors.push(fieldErrors.required(`${path}.spec.containers`, ''));
  const names = new Set<string>();
  for (const [list, key] of [
    [listAt(spec, 'initContainers'), 'initContainers'],
    [containers, 'containers'],
  ] as const) {
    list.forEach((container, i) => {
      const at = `${path}.spec.${key}[${i}]`;
      const name = recordAt({ c: container }, 'c')['name'];
      if (typeof name !== 'string' || name === '')
        errors.push(fieldErrors.required(`${at}.name`, ''));
      else {
        for (const msg of isDNS1123Label(name))
          errors.push(fieldErrors.invalid(`${at}.name`, name, msg));
        if (names.has(name)) errors.push(fieldErrors.duplicate(`${at}.name`, name));
        names.add(name);
      }
      const image = recordAt({ c: container }, 'c')['image'];
      if (key === 'containers' && (typeof image !== 'string' || image.trim() === ''))
        errors.push(fieldErrors.required(`${at}.image`, ''));
    });
  }
  const policy = spec['restartPolicy'];
  const allowed = oneOf(policy, `${path}.spec.restartPolicy`, restartPolicies, true);
  errors.push(...allowed);
  return errors;
}
