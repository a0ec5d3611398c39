import { ApiError } from '@listwatch/api';
import { recordAt } from '../../kind-helpers.js';
import { logContainer } from './log.js';
import type { StreamLocation } from '../../rest/rest.js';
import type { ConnectRequest, ConnectStrategy } from '../../rest/resource-strategy.js';

// pods/exec, pods/attach and pods/portforward as kube-apiserver refuses them before it dials a
// kubelet: pkg/registry/core/pod/strategy.go streamLocation (exec, attach: the pod, then its
// container) and PortForwardLocation (the pod alone), each then its node. kube-apiserver then
// proxies the upgraded stream to the kubelet (UpgradeAwareHandler); this apiserver has no
// container runtime behind it to proxy to, and says so with a Status before any upgrade.

/**
 * The pod's node, or the 400 kube gives a pod no node runs yet ("does not have a host
 * assigned"); with `containers`, the requested container is checked first, as streamLocation does.
 */
async function connectLocation(
  request: ConnectRequest,
  subresource: 'exec' | 'attach' | 'portforward',
): Promise<StreamLocation> {
  const pod = await request.get({ group: '', resource: 'pods' }, request.namespace, request.name);
  if (subresource !== 'portforward') logContainer(pod, request.query.get('container') ?? undefined);
  const nodeName = recordAt(pod, 'spec')['nodeName'];
  if (typeof nodeName !== 'string' || nodeName === '')
    throw ApiError.badRequest(`pod ${request.name} does not have a host assigned`);
  // Kube would now dial the node's kubelet and proxy the upgraded stream; there is none here.
  throw ApiError.badRequest(
    `pod ${request.name} runs on node ${nodeName}, but this apiserver connects to no container runtime: pods/${subresource} is not available`,
  );
}

export const podExec: ConnectStrategy = { location: (r) => connectLocation(r, 'exec') };
export const podAttach: ConnectStrategy = { location: (r) => connectLocation(r, 'attach') };
export const podPortForward: ConnectStrategy = {
  location: (r) => connectLocation(r, 'portforward'),
};
