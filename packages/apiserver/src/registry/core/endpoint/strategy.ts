import { fieldErrors, type FieldError } from '@listwatch/api';
import { kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';
import { PROTOCOLS, validPort, validIP, defaultProtocols } from '../../networking/validation.js';

// Endpoints: pkg/registry/core/endpoint/strategy.go, SetDefaults_EndpointPort and
// ValidateEndpoints (pkg/apis/core/validation).

export const endpointsStrategy = kindStrategy({
  decode(endpoints) {
    for (const subset of listAt(endpoints, 'subsets')) defaultProtocols(listAt(subset, 'ports'));
  },
  validate(endpoints) {
    return listAt(endpoints, 'subsets').flatMap((subset, i) => {
      const path = `subsets[${i}]`;
      const addresses = listAt(subset, 'addresses');
      const notReady = listAt(subset, 'notReadyAddresses');
      const ports = listAt(subset, 'ports');
      const errors: FieldError[] = [];
      if (addresses.length === 0 && notReady.length === 0)
        errors.push(fieldErrors.required(path, 'must specify `addresses` or `notReadyAddresses`'));
      addresses.forEach((a, j) =>
        errors.push(...validIP(recordAt({ a }, 'a')['ip'], `${path}.addresses[${j}].ip`)),
      );
      notReady.forEach((a, j) =>
        errors.push(...validIP(recordAt({ a }, 'a')['ip'], `${path}.notReadyAddresses[${j}].ip`)),
      );
      ports.forEach((p, j) => {
        const port = recordAt({ p }, 'p');
        if (ports.length > 1 && !port['name'])
          errors.push(fieldErrors.required(`${path}.ports[${j}].name`, ''));
        errors.push(
          ...validPort(port['port'], `${path}.ports[${j}].port`),
          ...oneOf(port['protocol'], `${path}.ports[${j}].protocol`, PROTOCOLS, true),
        );
      });
      return errors;
    });
  },
});
