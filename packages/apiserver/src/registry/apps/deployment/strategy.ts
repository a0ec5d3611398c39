import { fieldErrors, goSyntax, type FieldError } from '@listwatch/api';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { validateWorkloadSpec } from '../../core/pod/validation.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';
import { nonNegative, workloadStrategy } from '../workload.js';

// Deployments: pkg/registry/apps/deployment/strategy.go (PrepareForCreate, PrepareForUpdate,
// Validate, ValidateUpdate; the status strategy keeps the revision annotation),
// SetDefaults_Deployment (pkg/apis/apps/v1/defaults.go) and ValidateDeployment
// (pkg/apis/apps/validation).

/** A Deployment as decoded (kubernetes-types' apps/v1 Deployment). */
export type Deployment = TypedObject<appsv1.Deployment>;
type RollingUpdate = NonNullable<
  NonNullable<NonNullable<Deployment['spec']>['strategy']>['rollingUpdate']
>;

/** SetDefaults_Deployment. */
export function setDeploymentDefaults(deployment: Deployment): void {
  const spec = (deployment.spec ??= {});
  spec.replicas ??= 1;
  const strategy = (spec.strategy ??= {});
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = (strategy.rollingUpdate ??= {});
    rolling.maxUnavailable ??= '25%';
    rolling.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
}

/** An IntOrString as field.Error prints it (%#v of the value). */
function intOrString(value: unknown) {
  return typeof value === 'string'
    ? goSyntax.raw(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(value)}}`)
    : goSyntax.raw(
        `intstr.IntOrString{Type:0, IntVal:${typeof value === 'number' ? value : 0}, StrVal:""}`,
      );
}

/** The number an IntOrString holds, and whether it is a percentage (getIntOrPercentValue). */
function intOrPercent(value: unknown): [number, boolean] {
  if (typeof value === 'number') return [value, false];
  const match = typeof value === 'string' ? /^([0-9]+)%$/.exec(value) : null;
  return match ? [Number(match[1]), true] : [0, false];
}

/** ValidateRollingUpdateDeployment. */
function validateRollingUpdate(rolling: RollingUpdate): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'spec.strategy.rollingUpdate';
  for (const field of ['maxUnavailable', 'maxSurge'] as const) {
    const value = rolling[field];
    if (typeof value === 'string' && !/^[0-9]+%$/.test(value))
      errs.push(
        fieldErrors.invalid(
          `${path}.${field}`,
          intOrString(value),
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        ),
      );
    else if (typeof value === 'number' && value < 0)
      errs.push(
        fieldErrors.invalid(`${path}.${field}`, value, 'must be greater than or equal to 0'),
      );
  }
  const [unavailable, percent] = intOrPercent(rolling.maxUnavailable);
  if (unavailable === 0 && intOrPercent(rolling.maxSurge)[0] === 0)
    errs.push(
      fieldErrors.invalid(
        `${path}.maxUnavailable`,
        intOrString(rolling.maxUnavailable),
        'may not be 0 when `maxSurge` is 0',
      ),
    );
  if (percent && unavailable > 100)
    errs.push(
      fieldErrors.invalid(
        `${path}.maxUnavailable`,
        intOrString(rolling.maxUnavailable),
        'must not be greater than 100%',
      ),
    );
  return errs;
}

/** ValidateDeploymentSpec beyond the shared workload rules: strategy and its numbers. */
function validateDeployment(deployment: Deployment): FieldError[] {
  const spec = deployment.spec ?? {};
  const errs = validateWorkloadSpec(spec, 'deployment');
  const strategy = spec.strategy ?? {};
  const type = strategy.type ?? '';
  if (type !== 'Recreate' && type !== 'RollingUpdate')
    errs.push(fieldErrors.notSupported('spec.strategy.type', type, ['Recreate', 'RollingUpdate']));
  if (type === 'RollingUpdate' && strategy.rollingUpdate)
    errs.push(...validateRollingUpdate(strategy.rollingUpdate));
  if (type === 'Recreate' && strategy.rollingUpdate !== undefined)
    errs.push(
      fieldErrors.forbidden(
        'spec.strategy.rollingUpdate',
        "may not be specified when strategy `type` is 'Recreate'",
      ),
    );
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const deadline = spec.progressDeadlineSeconds;
  if (deadline !== undefined) {
    errs.push(...nonNegative(deadline, 'spec.progressDeadlineSeconds'));
    const minReady = spec.minReadySeconds ?? 0;
    if (deadline <= minReady)
      errs.push(
        fieldErrors.invalid(
          'spec.progressDeadlineSeconds',
          deadline,
          'must be greater than minReadySeconds',
        ),
      );
  }
  return errs;
}

export const deploymentStrategy: ResourceStrategy<Deployment> = {
  ...workloadStrategy<Deployment>(true, {
    decode: setDeploymentDefaults,
    validate: validateDeployment,
    emptyStatus: () => ({}),
  }),
  // deploymentStatusStrategy.PrepareForUpdate keeps only spec and labels: the controller sets
  // the deployment.kubernetes.io/revision annotation with its status write.
  prepareForStatusUpdate(result, sent) {
    const { annotations } = sent.metadata;
    if (annotations && Object.keys(annotations).length > 0)
      result.metadata.annotations = { ...annotations };
    else delete result.metadata.annotations;
  },
};
