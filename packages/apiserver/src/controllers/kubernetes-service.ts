import type { KubeObject } from '@listwatch/api';
import { isDeepStrictEqual } from 'node:util';
import { SERVICE_CIDR } from '../registry/core/service/strategy.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import {
  loopbackContext,
  notFoundAsNothing,
  type LoopbackParts,
} from '../registry/rest/loopback-context.js';

// The `default/kubernetes` Service every cluster has, with the endpoints that lead to this
// apiserver: kube-apiserver's bootstrap controller
// (pkg/controlplane/controller/kubernetesservice/controller.go) and its endpoint reconciler
// (pkg/controlplane/reconcilers/), written through each resource's Store as the loopback
// client, as the system namespaces are: strategy, validation and allocation as for any request.

/** The first address of the service CIDR (kube's ServiceIPRange's first IP). */
export const KUBERNETES_SERVICE_IP = SERVICE_CIDR.replace(/\.0\/\d+$/, '.1');

const NAMESPACE = 'default';
const NAME = 'kubernetes';

/**
 * Creates the object, or makes its `fields` what `wanted` says when they differ (the
 * controller's CreateOrUpdateMasterServiceIfNeeded and the reconciler's endpoint update): a
 * restart on another port or address is followed, an unchanged one writes nothing.
 */
async function ensure(
  registry: ResourceRegistry,
  loopback: LoopbackParts,
  resource: string,
  wanted: KubeObject,
  fields: readonly string[],
): Promise<void> {
  const apiVersion = wanted.apiVersion ?? '';
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const store = registry.lookup(group, apiVersion.slice(slash + 1), resource)?.store;
  if (!store) return;
  const ctx = (verb: string) =>
    loopbackContext(loopback, { verb, apiGroup: group, resource, namespace: NAMESPACE });
  const current = await store.get(ctx('get'), NAME, {}).catch(notFoundAsNothing);
  if (!current) {
    await store.create(ctx('create'), undefined, structuredClone(wanted), { dryRun: false });
    return;
  }
  if (fields.every((f) => isDeepStrictEqual(current[f], wanted[f]))) return;
  await store.update(
    ctx('update'),
    NAME,
    {
      updatedObject: (latest) => {
        const next = structuredClone(latest ?? current);
        for (const f of fields) next[f] = structuredClone(wanted[f]);
        return next;
      },
    },
    { dryRun: false },
  );
}

/**
 * The Service `default/kubernetes` (ClusterIP, the first IP of the service CIDR, port 443 `https`
 * to this server's port) and its Endpoints and EndpointSlice naming this server's address.
 */
export async function ensureKubernetesService(
  registry: ResourceRegistry,
  loopback: LoopbackParts,
  server: { address: string; port: number },
): Promise<void> {
  const labels = { component: 'apiserver', provider: 'kubernetes' };
  const servicePort = {
    name: 'https',
    protocol: 'TCP',
    port: 443,
    targetPort: server.port,
  };
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: NAME, namespace: NAMESPACE, labels },
    spec: {
      type: 'ClusterIP',
      clusterIP: KUBERNETES_SERVICE_IP,
      clusterIPs: [KUBERNETES_SERVICE_IP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      sessionAffinity: 'None',
      ports: [servicePort],
    },
    status: { loadBalancer: {} },
  };
  await ensure(registry, loopback, 'services', service, ['spec']);
  const port = { name: 'https', port: server.port, protocol: 'TCP' };
  await ensure(
    registry,
    loopback,
    'endpoints',
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        name: NAME,
        namespace: NAMESPACE,
        labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' },
      },
      subsets: [{ addresses: [{ ip: server.address }], ports: [port] }],
    },
    ['subsets'],
  );
  await ensure(
    registry,
    loopback,
    'endpointslices',
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: NAME,
        namespace: NAMESPACE,
        labels: { 'kubernetes.io/service-name': NAME },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [server.address], conditions: { ready: true } }],
      ports: [port],
    },
    ['endpoints', 'ports'],
  );
}

/**
 * Keeps trying ensureKubernetesService until it succeeds, as kube's bootstrap controller runs as a
 * post-start hook that retries every EndpointInterval (10 s): a write that fails (a full disk) is
 * logged and never stops the server from serving. Resolves after the first attempt with a function
 * that ends the retries.
 */
export async function startKubernetesService(
  registry: ResourceRegistry,
  loopback: LoopbackParts,
  server: { address: string; port: number },
  retryMs = 10_000,
): Promise<() => void> {
  const { logger } = loopback;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async (): Promise<void> => {
    try {
      await ensureKubernetesService(registry, loopback, server);
    } catch (err) {
      logger.warn('the Service default/kubernetes could not be written; retrying', {
        error: err instanceof Error ? err.message : String(err),
        retryMs,
      });
      timer = setTimeout(() => void attempt(), retryMs).unref();
    }
  };
  await attempt();
  return () => clearTimeout(timer);
}
