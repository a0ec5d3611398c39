import {
  fieldErrors,
  isDNS1035Label,
  isDNS1123Subdomain,
  isRecord,
  type FieldError,
} from '@listwatch/api';
import type { ResourceStrategy } from '../registry/rest/resource-strategy.js';
import { apiServiceName, type APIService } from './types.js';

// The APIService registry strategy (kube-aggregator pkg/registry/apiservice/strategy.go), its
// v1 defaults (pkg/apis/apiregistration/v1/defaults.go) and ValidateAPIService
// (pkg/apis/apiregistration/validation/validation.go).

/** Every problem with an APIService's name and spec, with kube's field paths and words. */
export function validateAPIService(apiService: APIService): FieldError[] {
  const errors: FieldError[] = [];
  const spec = apiService.spec ?? {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  const version = typeof spec.version === 'string' ? spec.version : '';
  const required = apiServiceName(group, version);
  const name = apiService.metadata.name ?? '';
  if (name && name !== required)
    errors.push(
      fieldErrors.invalid(
        'metadata.name',
        name,
        `must be \`spec.version+"."+spec.group\`: "${required}"`,
      ),
    );
  if (group === '' && version !== 'v1')
    errors.push(
      fieldErrors.required(
        'spec.group',
        'only v1 may have an empty group and it better be legacy kube',
      ),
    );
  if (group !== '')
    for (const e of isDNS1123Subdomain(group))
      errors.push(fieldErrors.invalid('spec.group', group, e));
  for (const e of isDNS1035Label(version))
    errors.push(fieldErrors.invalid('spec.version', version, e));
  const groupPriority = spec.groupPriorityMinimum ?? 0;
  if (!(groupPriority > 0 && groupPriority <= 20000))
    errors.push(
      fieldErrors.invalid(
        'spec.groupPriorityMinimum',
        groupPriority,
        'must be positive and less than 20000',
      ),
    );
  const versionPriority = spec.versionPriority ?? 0;
  if (!(versionPriority > 0 && versionPriority <= 1000))
    errors.push(
      fieldErrors.invalid(
        'spec.versionPriority',
        versionPriority,
        'must be positive and less than 1000',
      ),
    );
  const caBundle = typeof spec.caBundle === 'string' ? spec.caBundle : '';
  const service = spec.service;
  if (!service) {
    if (caBundle)
      errors.push(
        fieldErrors.invalid(
          'spec.caBundle',
          `${Buffer.from(caBundle, 'base64').length} bytes`,
          'local APIServices may not have a caBundle',
        ),
      );
    if (spec.insecureSkipTLSVerify === true)
      errors.push(
        fieldErrors.invalid(
          'spec.insecureSkipTLSVerify',
          true,
          'local APIServices may not have insecureSkipTLSVerify',
        ),
      );
    return errors;
  }
  if (!service.namespace) errors.push(fieldErrors.required('spec.service.namespace', ''));
  if (!service.name) errors.push(fieldErrors.required('spec.service.name', ''));
  const port: unknown = service.port ?? 0;
  if (!(typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535))
    errors.push(
      fieldErrors.invalid(
        'spec.service.port',
        port,
        'port is not valid: must be between 1 and 65535, inclusive',
      ),
    );
  if (spec.insecureSkipTLSVerify === true && caBundle)
    errors.push(
      fieldErrors.invalid(
        'spec.insecureSkipTLSVerify',
        true,
        'may not be true if caBundle is present',
      ),
    );
  return errors;
}

export const apiServiceStrategy: ResourceStrategy = {
  // SetDefaults_ServiceReference: port 443.
  decode(object) {
    const spec = object['spec'];
    const service = isRecord(spec) ? spec['service'] : undefined;
    if (isRecord(service) && (service['port'] === undefined || service['port'] === null))
      service['port'] = 443;
  },
  // PrepareForCreate: status is the availability controller's.
  prepareForCreate(object) {
    object['status'] = {};
  },
  validate(object) {
    return validateAPIService(object);
  },
};
