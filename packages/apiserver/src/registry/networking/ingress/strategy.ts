import { fieldErrors, isDNS1123Subdomain, type FieldError } from '@listwatch/api';
import type * as networkingv1 from 'kubernetes-types/networking/v1.js';
import { kindStrategy, oneOf } from '../../kind-helpers.js';
import type { Decoded, TypedObject } from '../../rest/typed-object.js';
import { validPort } from '../validation.js';

// Ingresses: pkg/registry/networking/ingress/strategy.go (generation; status cleared on
// create) and ValidateIngress (pkg/apis/networking/validation).

/** An Ingress as decoded (kubernetes-types' networking/v1 Ingress). */
export type Ingress = TypedObject<networkingv1.Ingress>;

const PATH_TYPES = ['Exact', 'Prefix', 'ImplementationSpecific'];

/** validateIngressBackend: a service or a resource, not both; a service's port by name or number. */
function validateBackend(
  backend: Decoded<networkingv1.IngressBackend> | undefined,
  path: string,
): FieldError[] {
  const { service, resource } = backend ?? {};
  if (service && resource)
    return [fieldErrors.invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) return resource.kind ? [] : [fieldErrors.required(`${path}.resource.kind`, '')];
  if (!service) return [fieldErrors.invalid(path, '', 'resource or service backend is required')];
  const errors: FieldError[] = [];
  if (!service.name) errors.push(fieldErrors.required(`${path}.service.name`, ''));
  const port = service.port ?? {};
  const hasName = Boolean(port.name);
  const hasNumber = Boolean(port.number);
  if (hasName && hasNumber)
    errors.push(
      fieldErrors.invalid(`${path}.service.port`, port, 'cannot set both port name & port number'),
    );
  else if (hasNumber) errors.push(...validPort(port.number, `${path}.service.port.number`));
  else if (!hasName)
    errors.push(
      fieldErrors.invalid(`${path}.service.port`, port, 'port name or number is required'),
    );
  return errors;
}

function validateIngress(ingress: Ingress): FieldError[] {
  const spec = ingress.spec ?? {};
  const rules = spec.rules ?? [];
  const errors: FieldError[] = [];
  if (!spec.defaultBackend && rules.length === 0)
    errors.push(
      fieldErrors.invalid('spec', spec, 'either `defaultBackend` or `rules` must be specified'),
    );
  if (spec.defaultBackend)
    errors.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const { host } = rule;
    if (host) {
      const bare = host.startsWith('*.') ? host.slice(2) : host;
      for (const msg of isDNS1123Subdomain(bare))
        errors.push(fieldErrors.invalid(`spec.rules[${i}].host`, host, msg));
    }
    const paths = rule.http?.paths ?? [];
    if (rule.http && paths.length === 0)
      errors.push(fieldErrors.required(`spec.rules[${i}].http.paths`, ''));
    paths.forEach((p, j) => {
      const at = `spec.rules[${i}].http.paths[${j}]`;
      errors.push(...oneOf(p.pathType, `${at}.pathType`, PATH_TYPES, true));
      if ((p.pathType === 'Exact' || p.pathType === 'Prefix') && !p.path?.startsWith('/'))
        errors.push(fieldErrors.invalid(`${at}.path`, p.path ?? '', 'must be an absolute path'));
      errors.push(...validateBackend(p.backend, `${at}.backend`));
    });
  });
  return errors;
}

export const ingressStrategy = kindStrategy<Ingress>({
  generation: true,
  status: () => ({ loadBalancer: {} }),
  validate: validateIngress,
});
