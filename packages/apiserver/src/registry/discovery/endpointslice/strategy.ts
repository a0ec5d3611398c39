import { fieldErrors, isDNS1123Subdomain, type FieldError } from '@listwatch/api';
import type * as discoveryv1 from 'kubernetes-types/discovery/v1.js';
import { isIP } from 'node:net';
import { immutable, kindStrategy, oneOf } from '../../kind-helpers.js';
import { PROTOCOLS, validPort } from '../../networking/validation.js';
import type { TypedObject } from '../../rest/typed-object.js';

// EndpointSlices: pkg/registry/discovery/endpointslice/strategy.go (generation), their v1
// defaults and validation (pkg/apis/discovery/validation).

/** An EndpointSlice as decoded (kubernetes-types' discovery/v1 EndpointSlice). */
export type EndpointSlice = TypedObject<discoveryv1.EndpointSlice>;

const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'];

function validSliceAddress(address: string, type: string | undefined, path: string): FieldError[] {
  if (type === 'IPv4' && isIP(address) !== 4)
    return [fieldErrors.invalid(path, address, 'must be a valid IPv4 address')];
  if (type === 'IPv6' && isIP(address) !== 6)
    return [fieldErrors.invalid(path, address, 'must be a valid IPv6 address')];
  if (type === 'FQDN')
    return isDNS1123Subdomain(address).map((msg) => fieldErrors.invalid(path, address, msg));
  return [];
}

/** An EndpointSlice's generation follows everything but its metadata. */
function sliceContent(slice: EndpointSlice): unknown {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = slice;
  return rest;
}

function validateSlice(slice: EndpointSlice): FieldError[] {
  const type = slice.addressType;
  const errors: FieldError[] = [...oneOf(type, 'addressType', ADDRESS_TYPES, true)];
  const endpoints = slice.endpoints ?? [];
  if (endpoints.length > 1000)
    errors.push(fieldErrors.tooMany('endpoints', endpoints.length, 1000));
  endpoints.forEach((endpoint, i) => {
    const addresses = endpoint.addresses ?? [];
    const path = `endpoints[${i}].addresses`;
    if (addresses.length === 0)
      errors.push(fieldErrors.required(path, 'must contain at least 1 address'));
    else if (addresses.length > 100) errors.push(fieldErrors.tooMany(path, addresses.length, 100));
    addresses.forEach((a, j) => errors.push(...validSliceAddress(a, type, `${path}[${j}]`)));
  });
  (slice.ports ?? []).forEach((port, i) => {
    errors.push(
      ...validPort(port.port, `ports[${i}].port`, false),
      ...oneOf(port.protocol, `ports[${i}].protocol`, PROTOCOLS, true),
    );
  });
  return errors;
}

export const endpointSliceStrategy = kindStrategy<EndpointSlice>({
  generation: true,
  specOf: sliceContent,
  decode(slice) {
    for (const port of slice.ports ?? []) {
      port.name ??= '';
      port.protocol ??= 'TCP';
    }
  },
  validate: validateSlice,
  validateUpdate: (next, current) =>
    immutable(next.addressType, current.addressType, 'addressType'),
});
