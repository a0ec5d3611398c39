import {
  fieldErrors,
  isDNS1123Subdomain,
  isRecord,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import { isIP } from 'node:net';
import { defaultTo, immutable, kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';
import { PROTOCOLS, validPort } from '../../networking/validation.js';

// EndpointSlices: pkg/registry/discovery/endpointslice/strategy.go (generation), their v1
// defaults and validation (pkg/apis/discovery/validation).

const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'];

function validSliceAddress(address: unknown, type: unknown, path: string): FieldError[] {
  if (typeof address !== 'string') return [fieldErrors.required(path, '')];
  if (type === 'IPv4' && isIP(address) !== 4)
    return [fieldErrors.invalid(path, address, 'must be a valid IPv4 address')];
  if (type === 'IPv6' && isIP(address) !== 6)
    return [fieldErrors.invalid(path, address, 'must be a valid IPv6 address')];
  if (type === 'FQDN')
    return isDNS1123Subdomain(address).map((msg) => fieldErrors.invalid(path, address, msg));
  return [];
}

/** An EndpointSlice's generation follows everything but its metadata. */
function sliceContent(slice: KubeObject): unknown {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = slice;
  return rest;
}

export const endpointSliceStrategy = kindStrategy({
  generation: true,
  specOf: sliceContent,
  decode(slice) {
    for (const port of listAt(slice, 'ports')) {
      if (!isRecord(port)) continue;
      defaultTo(port, 'name', '');
      defaultTo(port, 'protocol', 'TCP');
    }
  },
  validate(slice) {
    const type = slice['addressType'];
    const errors: FieldError[] = [...oneOf(type, 'addressType', ADDRESS_TYPES, true)];
    const endpoints = listAt(slice, 'endpoints');
    if (endpoints.length > 1000)
      errors.push(fieldErrors.tooMany('endpoints', endpoints.length, 1000));
    endpoints.forEach((e, i) => {
      const addresses = listAt(e, 'addresses');
      const path = `endpoints[${i}].addresses`;
      if (addresses.length === 0)
        errors.push(fieldErrors.required(path, 'must contain at least 1 address'));
      else if (addresses.length > 100)
        errors.push(fieldErrors.tooMany(path, addresses.length, 100));
      addresses.forEach((a, j) => errors.push(...validSliceAddress(a, type, `${path}[${j}]`)));
    });
    listAt(slice, 'ports').forEach((p, i) => {
      const port = recordAt({ p }, 'p');
      errors.push(
        ...validPort(port['port'], `ports[${i}].port`, false),
        ...oneOf(port['protocol'], `ports[${i}].protocol`, PROTOCOLS, true),
      );
    });
    return errors;
  },
  validateUpdate: (next, current) =>
    immutable(next['addressType'], current['addressType'], 'addressType'),
});
