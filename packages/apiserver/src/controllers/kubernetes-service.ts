import { metaV1Now, type KubeObject, type Logger } from '@listwatch/api';
import { isStorageError, type Storage } from '@listwatch/storage';
import { isDeepStrictEqual } from 'node:util';
import { SERVICE_CIDR } from '../registry/core/service/strategy.js';

// The `default/kubernetes` Service every cluster has, with the endpoints that lead to this
// apiserver: kube-apiserver's bootstrap controller
// (pkg/controlplane/controller/kubernetesservice/controller.go) and its endpoint reconciler
// (pkg/controlplane/reconcilers/), written straight to storage as the system namespaces are.

/** The first address of the service CIDR (kube's ServiceIPRange's first IP). */
export const KUBERNETES_SERVICE_IP = SERVICE_CIDR.replace(/\.0\/\d+$/, '.1');

const NAMESPACE = 'default';
const NAME = 'kubernetes';

function stamp(): { uid: string; creationTimestamp: string } {
  return {
    uid: crypto.randomUUID(),
    creationTimestamp: metaV1Now(),
  };
}

/**
 * Creates the object, or makes its `field` what `wanted` says when it differs (the controller's
 * CreateOrUpdateMasterServiceIfNeeded and the reconciler's endpoint update): a restart on another
 * port or address is followed, an unchanged one writes nothing.
 */
async function ensure(
  storage: Storage,
  plural: string,
  wanted: KubeObject,
  fields: readonly string[],
): Promise<void> {
  const key = `${storage.prefix}/${plural}/${NAMESPACE}/${NAME}`;
  try {
    await storage.create(key, { ...wanted, metadata: { ...wanted.metadata, ...stamp() } });
    return;
  } catch (err) {
    if (!isStorageError(err, 'KeyExists')) throw err;
  }
  const current = await storage.get(key);
  if (!current || fields.every((f) => isDeepStrictEqual(current[f], wanted[f]))) return;
  await storage.guaranteedUpdate(key, (latest) => {
    const next = structuredClone(latest);
    for (const f of fields) next[f] = structuredClone(wanted[f]);
    return next;
  });
}

/**
 * The Service `default/kubernetes` (ClusterIP, the first IP of the service CIDR, port 443 `https`
 * to this server's port) and its Endpoints and EndpointSlice naming this server's address.
 */
export async function ensureKubernetesService(
  storage: Storage,
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
  await ensure(storage, 'services', service, ['spec']);
  const port = { name: 'https', port: server.port, protocol: 'TCP' };
  await ensure(
    storage,
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
    storage,
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
  storage: Storage,
  server: { address: string; port: number },
  logger: Logger,
  retryMs = 10_000,
): Promise<() => void> {
  let timer: NodeJS.Timeout | undefined;
  const attempt = async (): Promise<void> => {
    try {
      await ensureKubernetesService(storage, server);
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
