import {
  fieldErrors,
  isDNS1123Subdomain,
  isRecord,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import { isIP } from 'node:net';
import {
  child,
  defaultTo,
  immutable,
  kindStrategy,
  listAt,
  oneOf,
  recordAt,
} from '../kind-helpers.js';

// Endpoints, EndpointSlices, Ingresses and NetworkPolicies: pkg/registry/core/endpoint,
// pkg/registry/discovery/endpointslice (generation), pkg/registry/networking/{ingress,
// networkpolicy}/strategy.go (generation; an Ingress's status cleared on create), their v1
// defaults (ports TCP, policyTypes) and validation (pkg/apis/{core,discovery,networking}/validation).

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validPort(port: unknown, path: string, required = true): FieldError[] {
  if (port === undefined || port === null) return required ? [fieldErrors.required(path, '')] : [];
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535
    ? []
    : [fieldErrors.invalid(path, port, 'must be between 1 and 65535, inclusive')];
}

function validIP(ip: unknown, path: string): FieldError[] {
  if (typeof ip !== 'string' || ip === '') return [fieldErrors.required(path, '')];
  return isIP(ip)
    ? []
    : [
        fieldErrors.invalid(
          path,
          ip,
          'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        ),
      ];
}

/** Each port of a list gets protocol TCP when it names none. */
function defaultProtocols(ports: unknown[]): void {
  for (const port of ports) if (isRecord(port)) defaultTo(port, 'protocol', 'TCP');
}

// --- Endpoints ------------------------------------------------------------------------------

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

// --- EndpointSlices -------------------------------------------------------------------------

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

// --- Ingresses ------------------------------------------------------------------------------

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

// --- NetworkPolicies ------------------------------------------------------------------------

export const networkPolicyStrategy = kindStrategy({
  generation: true,
  decode(policy) {
    const spec = child(policy, 'spec');
    for (const rule of listAt(spec, 'ingress')) defaultProtocols(listAt(rule, 'ports'));
    for (const rule of listAt(spec, 'egress')) defaultProtocols(listAt(rule, 'ports'));
    // SetDefaults_NetworkPolicy: Ingress always, Egress when there are egress rules.
    if (listAt(spec, 'policyTypes').length === 0) {
      spec['policyTypes'] = ['Ingress', ...(listAt(spec, 'egress').length > 0 ? ['Egress'] : [])];
    }
  },
  validate(policy) {
    const spec = recordAt(policy, 'spec');
    const errors: FieldError[] = [];
    const types = listAt(spec, 'policyTypes');
    if (types.length > 2)
      errors.push(
        fieldErrors.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'),
      );
    types.forEach((t, i) =>
      errors.push(...oneOf(t, `spec.policyTypes[${i}]`, ['Ingress', 'Egress'], true)),
    );
    for (const direction of ['ingress', 'egress'] as const) {
      listAt(spec, direction).forEach((rule, i) => {
        listAt(rule, 'ports').forEach((p, j) => {
          const port = recordAt({ p }, 'p');
          const at = `spec.${direction}[${i}].ports[${j}]`;
          errors.push(...oneOf(port['protocol'], `${at}.protocol`, PROTOCOLS, true));
          if (typeof port['port'] === 'number')
            errors.push(...validPort(port['port'], `${at}.port`));
        });
      });
    }
    return errors;
  },
});
