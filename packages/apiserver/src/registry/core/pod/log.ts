import {
  ApiError,
  fieldErrors,
  isRecord,
  queryBool,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import { listAt, recordAt } from '../../kind-helpers.js';
import type { StreamLocation } from '../../rest/rest.js';
import type { ConnectRequest, ConnectStrategy } from '../../rest/resource-strategy.js';

// pods/log as kube-apiserver serves it: pkg/registry/core/pod/rest/log.go (LogREST.Get: the
// options validated, then a LocationStreamer on the kubelet's URL), pkg/registry/core/pod/
// strategy.go LogLocation (the container, the node, the kubelet's /containerLogs URL) and
// pkg/apis/core/validation ValidatePodLogOptions.

/** The kubelet's default port (ports.KubeletPort), when its Node does not say. */
const KUBELET_PORT = 10250;

/**
 * How kubelets are dialled. kube-apiserver speaks HTTPS with its kubelet client certificate
 * (--kubelet-client-certificate); this server has none, and the demo's kubelets serve plain HTTP.
 */
const KUBELET_SCHEME = 'http';

/** --kubelet-preferred-address-types' default: the first of these a Node has is dialled. */
export const KUBELET_PREFERRED_ADDRESS_TYPES = [
  'Hostname',
  'InternalDNS',
  'InternalIP',
  'ExternalDNS',
  'ExternalIP',
] as const;

/** PodLogOptions as the query gives them (query parameters of core/v1 PodLogOptions). */
export interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

/** An int64 query parameter; anything else is the 400 of the parameter codec. */
function integer(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^[+-]?\d+$/.test(value))
    throw ApiError.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  return Number(value);
}

function bool(query: URLSearchParams, name: string): boolean {
  return queryBool(query.getAll(name));
}

/** The query as PodLogOptions, then ValidatePodLogOptions (422 on PodLogOptions). */
export function podLogOptions(query: URLSearchParams, name: string): PodLogOptions {
  const container = query.get('container') ?? undefined;
  const sinceTime = query.get('sinceTime') ?? undefined;
  const options: PodLogOptions = {
    ...(container ? { container } : {}),
    follow: bool(query, 'follow'),
    previous: bool(query, 'previous'),
    timestamps: bool(query, 'timestamps'),
  };
  const sinceSeconds = integer(query, 'sinceSeconds');
  const tailLines = integer(query, 'tailLines');
  const limitBytes = integer(query, 'limitBytes');
  if (sinceSeconds !== undefined) options.sinceSeconds = sinceSeconds;
  if (tailLines !== undefined) options.tailLines = tailLines;
  if (limitBytes !== undefined) options.limitBytes = limitBytes;
  if (sinceTime !== undefined) {
    if (Number.isNaN(Date.parse(sinceTime)))
      throw ApiError.badRequest(
        `parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse`,
      );
    options.sinceTime = sinceTime;
  }
  const errors: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0)
    errors.push(fieldErrors.invalid('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes !== undefined && limitBytes < 1)
    errors.push(fieldErrors.invalid('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds !== undefined && sinceTime !== undefined)
    errors.push(
      fieldErrors.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'),
    );
  else if (sinceSeconds !== undefined && sinceSeconds < 1)
    errors.push(fieldErrors.invalid('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  if (errors.length) throw ApiError.invalid({ kind: 'PodLogOptions' }, name, errors);
  return options;
}

function names(list: unknown[]): string[] {
  return list
    .map((c) => recordAt({ c }, 'c')['name'])
    .filter((n): n is string => typeof n === 'string');
}

/** podutil.AllContainerNames' wording: `[a b]`. */
const bracketed = (list: string[]) => `[${list.join(' ')}]`;

/**
 * The container a request means: the named one (which the pod must have), else the pod's only
 * container; a pod of several needs a name (400).
 */
export function logContainer(pod: KubeObject, requested: string | undefined): string {
  const spec = recordAt(pod, 'spec');
  const containers = names(listAt(spec, 'containers'));
  const init = names(listAt(spec, 'initContainers'));
  const ephemeral = names(listAt(spec, 'ephemeralContainers'));
  const name = pod.metadata.name ?? '';
  if (requested) {
    if (![...containers, ...init, ...ephemeral].includes(requested))
      throw ApiError.badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  if (containers.length === 1 && containers[0] !== undefined) return containers[0];
  let message = `a container name must be specified for pod ${name}, choose one of: ${bracketed(containers)}`;
  if (init.length) message += ` or one of the init containers: ${bracketed(init)}`;
  if (ephemeral.length) message += ` or one of the ephemeral containers: ${bracketed(ephemeral)}`;
  throw ApiError.badRequest(message);
}

/** nodeutil.GetPreferredNodeAddress: the first address of the first preferred type. */
function preferredAddress(node: KubeObject): string {
  const addresses = listAt(recordAt(node, 'status'), 'addresses').filter(isRecord);
  for (const type of KUBELET_PREFERRED_ADDRESS_TYPES) {
    const found = addresses.find((a) => a['type'] === type && typeof a['address'] === 'string');
    if (found) return found['address'] as string;
  }
  throw ApiError.notFound(
    { resource: 'nodes' },
    `no preferred addresses found; known addresses: ${JSON.stringify(addresses)}`,
  );
}

/** `[::1]` for an IPv6 address in a URL. */
const host = (address: string) => (address.includes(':') ? `[${address}]` : address);

/**
 * LogLocation: the kubelet URL of the container's log, or undefined for a pod no node runs yet
 * (LocationStreamer then answers an empty body, as kube's does).
 */
export async function podLogLocation(request: ConnectRequest): Promise<StreamLocation | undefined> {
  const options = podLogOptions(request.query, request.name);
  const pod = await request.get({ group: '', resource: 'pods' }, request.namespace, request.name);
  const container = logContainer(pod, options.container);
  const nodeName = recordAt(pod, 'spec')['nodeName'];
  if (typeof nodeName !== 'string' || nodeName === '') return undefined;
  const node = await request.get({ group: '', resource: 'nodes' }, undefined, nodeName);
  const endpoint = recordAt(
    recordAt(recordAt(node, 'status'), 'daemonEndpoints'),
    'kubeletEndpoint',
  );
  const port =
    typeof endpoint['Port'] === 'number' && endpoint['Port'] > 0 ? endpoint['Port'] : KUBELET_PORT;
  const path = ['containerLogs', request.namespace ?? '', request.name, container]
    .map(encodeURIComponent)
    .join('/');
  const url = new URL(`${KUBELET_SCHEME}://${host(preferredAddress(node))}:${port}/${path}`);
  if (options.follow) url.searchParams.set('follow', 'true');
  if (options.previous) url.searchParams.set('previous', 'true');
  if (options.timestamps) url.searchParams.set('timestamps', 'true');
  if (options.sinceSeconds !== undefined)
    url.searchParams.set('sinceSeconds', String(options.sinceSeconds));
  if (options.sinceTime !== undefined) url.searchParams.set('sinceTime', options.sinceTime);
  if (options.tailLines !== undefined) url.searchParams.set('tailLines', String(options.tailLines));
  if (options.limitBytes !== undefined)
    url.searchParams.set('limitBytes', String(options.limitBytes));
  return { url, contentType: 'text/plain', flush: options.follow, resource: 'pods/log' };
}

export const podLog: ConnectStrategy = { location: podLogLocation };
