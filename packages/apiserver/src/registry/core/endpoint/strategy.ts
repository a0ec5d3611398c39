import { fieldErrors, type FieldError } from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { kindStrategy, oneOf } from '../../kind-helpers.js';
import { PROTOCOLS, validPort, validIP } from '../../networking/validation.js';
import type { TypedObject } from '../../rest/typed-object.js';

// Endpoints: pkg/registry/core/endpoint/strategy.go, SetDefaults_EndpointPort and
// ValidateEndpoints (pkg/apis/core/validation).

/** Endpoints as decoded (kubernetes-types' core/v1 Endpoints). */
export type Endpoints = TypedObject<corev1.Endpoints>;
type EndpointSubset = NonNullable<Endpoints['subsets']>[number];

function validateSubset(subset: EndpointSubset, path: string): FieldError[] {
  const addresses = subset.addresses ?? [];
  const notReady = subset.notReadyAddresses ?? [];
  const ports = subset.ports ?? [];
  const errors: FieldError[] = [];
  if (addresses.length === 0 && notReady.length === 0)
    errors.push(fieldErrors.required(path, 'must specify `addresses` or `notReadyAddresses`'));
  addresses.forEach((a, j) => errors.push(...validIP(a.ip, `${path}.addresses[${j}].ip`)));
  notReady.forEach((a, j) => errors.push(...validIP(a.ip, `${path}.notReadyAddresses[${j}].ip`)));
  ports.forEach((port, j) => {
    if (ports.length > 1 && !port.name)
      errors.push(fieldErrors.required(`${path}.ports[${j}].name`, ''));
    errors.push(
      ...validPort(port.port, `${path}.ports[${j}].port`),
      ...oneOf(port.protocol, `${path}.ports[${j}].protocol`, PROTOCOLS, true),
    );
  });
  return errors;
}

export const endpointsStrategy = kindStrategy<Endpoints>({
  decode(endpoints) {
    for (const subset of endpoints.subsets ?? [])
      for (const port of subset.ports ?? []) port.protocol ??= 'TCP';
  },
  validate: (endpoints) =>
    (endpoints.subsets ?? []).flatMap((subset, i) => validateSubset(subset, `subsets[${i}]`)),
});
