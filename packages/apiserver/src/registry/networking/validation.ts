import { fieldErrors, isRecord, type FieldError } from '@listwatch/api';
import { isIP } from 'node:net';

// The port, IP and protocol rules Endpoints, EndpointSlices, Ingresses and NetworkPolicies share
// (pkg/apis/core/validation ValidatePortNum, ValidateEndpointIP; v1 defaults: protocol TCP).

export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export function validPort(port: unknown, path: string, required = true): FieldError[] {
  if (port === undefined || port === null) return required ? [fieldErrors.required(path, '')] : [];
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535
    ? []
    : [fieldErrors.invalid(path, port, 'must be between 1 and 65535, inclusive')];
}

export function validIP(ip: unknown, path: string): FieldError[] {
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

/**
 * Each port of a list gets protocol TCP when it names none (NetworkPolicyPort's typed ports; the
 * Endpoints strategy still passes its ports unchecked, hence `unknown`).
 */
export function defaultProtocols(ports: readonly unknown[] | undefined): void {
  for (const port of ports ?? []) if (isRecord(port)) port['protocol'] ??= 'TCP';
}
