import {
  fieldErrors,
  isDNS1123Subdomain,
  isRecord,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import { kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';
import { validPort } from '../validation.js';

// Ingresses: pkg/registry/networking/ingress/strategy.go (generation; status cleared on
// create) and ValidateIngress (pkg/apis/networking/validation).

const PATH_TYPES = ['Exact', 'Prefix', 'ImplementationSpecific'];

function validateBackend(backend: unknown, path: string): FieldError[] {
  const service = recordAt(backend, 'service');
  const resource = recordAt(backend, 'resource');
  const hasService = isRecord(backend) && backend['service'] != null;
  const hasResource = isRecord(backend) && backend['resource'] != null;
  if (hasService && hasResource)
    return [fieldErrors.invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource)
    return resource['kind'] ? [] : [fieldErrors.required(`${path}.resource.kind`, '')];
  if (!hasService)
    return [fieldErrors.invalid(path, '', 'resource or service backend is required')];
  const errors: FieldError[] = [];
  if (!service['name']) errors.push(fieldErrors.required(`${path}.service.name`, ''));
  const port = recordAt(service, 'port');
  const hasName = typeof port['name'] === 'string' && port['name'] !== '';
  const hasNumber = typeof port['number'] === 'number' && port['number'] !== 0;
  if (hasName && hasNumber)
    errors.push(
      fieldErrors.invalid(`${path}.service.port`, port, 'cannot set both port name & port number'),
    );
  else if (hasNumber) errors.push(...validPort(port['number'], `${path}.service.port.number`));
  else if (!hasName)
    errors.push(
      fieldErrors.invalid(`${path}.service.port`, port, 'port name or number is required'),
    );
  return errors;
}

function validateIngress(ingress: KubeObject): FieldError[] {
  const spec = recordAt(ingress, 'spec');
  const rules = listAt(spec, 'rules');
  const errors: FieldError[] = [];
  if (spec['defaultBackend'] == null && rules.length === 0)
    errors.push(
      fieldErrors.invalid('spec', spec, 'either `defaultBackend` or `rules` must be specified'),
    );
  if (spec['defaultBackend'] != null)
    errors.push(...validateBackend(spec['defaultBackend'], 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const host = recordAt({ rule }, 'rule')['host'];
    if (typeof host === 'string' && host !== '') {
      const bare = host.startsWith('*.') ? host.slice(2) : host;
      for (const msg of isDNS1123Subdomain(bare))
        errors.push(fieldErrors.invalid(`spec.rules[${i}].host`, host, msg));
    }
    const http = recordAt(rule, 'http');
    if (isRecord(rule) && rule['http'] != null && listAt(http, 'paths').length === 0)
      errors.push(fieldErrors.required(`spec.rules[${i}].http.paths`, ''));
    listAt(http, 'paths').forEach((p, j) => {
      const at = `spec.rules[${i}].http.paths[${j}]`;
      const path = recordAt({ p }, 'p');
      errors.push(...oneOf(path['pathType'], `${at}.pathType`, PATH_TYPES, true));
      const value = path['path'];
      if (
        (path['pathType'] === 'Exact' || path['pathType'] === 'Prefix') &&
        (typeof value !== 'string' || !value.startsWith('/'))
      )
        errors.push(fieldErrors.invalid(`${at}.path`, value ?? '', 'must be an absolute path'));
      errors.push(...validateBackend(path['backend'], `${at}.backend`));
    });
  });
  return errors;
}

export const ingressStrategy = kindStrategy({
  generation: true,
  status: () => ({ loadBalancer: {} }),
  validate: validateIngress,
});
