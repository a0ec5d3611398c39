import { ApiError, generateName, isRecord, type KubeObject } from '@listwatch/api';
import type { AdmissionRequest } from './admission.js';
import { records } from '../registry/core/pod/validation.js';

// The admission plugins kube-apiserver runs on every pod by default:
// plugin/pkg/admission/serviceaccount/admission.go (ServiceAccount) and
// plugin/pkg/admission/defaulttolerationseconds/admission.go (DefaultTolerationSeconds).

/** DefaultServiceAccountName. */
const DEFAULT_SERVICE_ACCOUNT = 'default';
/** ServiceAccountVolumeName, the prefix of the projected token volume's name. */
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
/** DefaultAPITokenMountPath. */
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds. */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** MirrorPodAnnotationKey: a static pod's mirror, whose spec the plugins leave alone. */
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** The retries of getServiceAccount for `default`, which its controller is expected to create. */
const DEFAULT_ACCOUNT_ATTEMPTS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * getServiceAccount: the account, retried for `default` (the serviceaccounts controller may not
 * have made it yet in a new namespace), else undefined.
 */
async function serviceAccount(
  request: AdmissionRequest,
  namespace: string,
  name: string,
): Promise<KubeObject | undefined> {
  const attempts = name === DEFAULT_SERVICE_ACCOUNT ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
  // One interval for all retries, 100–200 ms, as the plugin draws it.
  const interval = 100 + Math.floor(Math.random() * 100);
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(interval);
    const account = await request.get('', 'serviceaccounts', namespace, name);
    if (account) return account;
  }
  return undefined;
}

/** shouldAutomount: the pod's choice, else the account's, else true. */
function shouldAutomount(account: KubeObject, spec: Record<string, unknown>): boolean {
  if (typeof spec['automountServiceAccountToken'] === 'boolean')
    return spec['automountServiceAccountToken'];
  if (typeof account['automountServiceAccountToken'] === 'boolean')
    return account['automountServiceAccountToken'];
  return true;
}

/** TokenVolumeSource: the bound token, the cluster CA and the namespace, projected. */
function tokenVolume(name: string): Record<string, unknown> {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        {
          configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
        },
        {
          downwardAPI: {
            items: [
              {
                path: 'namespace',
                fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
              },
            ],
          },
        },
      ],
      defaultMode: 0o644,
    },
  };
}

/** mountServiceAccountToken: every container mounts the token volume, made when missing. */
function mountServiceAccountToken(spec: Record<string, unknown>): void {
  const volumes = records(spec['volumes']);
  const existing = volumes.find((v) => String(v['name']).startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = existing ? String(existing['name']) : generateName(TOKEN_VOLUME_PREFIX);
  let needsVolume = false;
  for (const field of ['initContainers', 'containers'])
    for (const container of records(spec[field])) {
      const mounts = records(container['volumeMounts']);
      // A mount at the token's path keeps the token out of that container.
      if (mounts.some((m) => m['mountPath'] === TOKEN_MOUNT_PATH)) continue;
      container['volumeMounts'] = [
        ...mounts,
        { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH },
      ];
      needsVolume = true;
    }
  if (!existing && needsVolume) spec['volumes'] = [...volumes, tokenVolume(volumeName)];
}

/** Whether the pod names a Secret (podutil.VisitPodSecretNames, the common places). */
function referencesSecrets(spec: Record<string, unknown>): boolean {
  if (records(spec['imagePullSecrets']).length > 0) return true;
  if (records(spec['volumes']).some((v) => isRecord(v['secret']))) return true;
  for (const field of ['initContainers', 'containers', 'ephemeralContainers'])
    for (const container of records(spec[field])) {
      if (records(container['envFrom']).some((e) => isRecord(e['secretRef']))) return true;
      if (
        records(container['env']).some(
          (e) => isRecord(e['valueFrom']) && isRecord(e['valueFrom']['secretKeyRef']),
        )
      )
        return true;
    }
  return false;
}

/** The plugin's Validate for a mirror pod: a static pod's mirror references no credentials. */
function validateMirrorPod(pod: KubeObject, spec: Record<string, unknown>): void {
  const forbidden = (why: string) =>
    ApiError.forbidden({ group: '', resource: 'pods' }, pod.metadata.name ?? '', why);
  if (typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '')
    throw forbidden('a mirror pod may not reference service accounts');
  if (referencesSecrets(spec)) throw forbidden('a mirror pod may not reference secrets');
  for (const volume of records(spec['volumes']))
    if (
      isRecord(volume['projected']) &&
      records(volume['projected']['sources']).some((s) => isRecord(s['serviceAccountToken']))
    )
      throw forbidden('a mirror pod may not use ServiceAccountToken volume projections');
}

/** ServiceAccount admission (create only). */
async function admitServiceAccount(request: AdmissionRequest): Promise<void> {
  const { object: pod } = request;
  if (request.operation !== 'CREATE') return;
  if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
    validateMirrorPod(pod, isRecord(pod['spec']) ? pod['spec'] : {});
    return;
  }
  if (!isRecord(pod['spec'])) pod['spec'] = {};
  const spec = pod['spec'] as Record<string, unknown>;
  if (typeof spec['serviceAccountName'] !== 'string' || spec['serviceAccountName'] === '')
    spec['serviceAccountName'] = DEFAULT_SERVICE_ACCOUNT;
  const name = spec['serviceAccountName'] as string;
  // The deprecated field mirrors it (Convert_core_PodSpec_To_v1_PodSpec).
  spec['serviceAccount'] = name;
  const namespace = request.request.namespace ?? pod.metadata.namespace ?? '';
  const account = await serviceAccount(request, namespace, name);
  if (!account)
    throw ApiError.forbidden(
      { group: '', resource: 'pods' },
      pod.metadata.name ?? '',
      `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`,
    );
  if (shouldAutomount(account, spec)) mountServiceAccountToken(spec);
  const pullSecrets = records(account['imagePullSecrets']);
  if (records(spec['imagePullSecrets']).length === 0 && pullSecrets.length > 0)
    spec['imagePullSecrets'] = pullSecrets.map((s) => ({ name: s['name'] ?? '' }));
}

/** The not-ready and unreachable taints the DefaultTolerationSeconds plugin tolerates. */
const DEFAULT_TOLERATED_TAINTS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];
/** --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
const DEFAULT_TOLERATION_SECONDS = 300;

/** DefaultTolerationSeconds: a pod not tolerating either taint tolerates it for 300 s. */
function admitDefaultTolerationSeconds(pod: KubeObject): void {
  if (!isRecord(pod['spec'])) pod['spec'] = {};
  const spec = pod['spec'] as Record<string, unknown>;
  const tolerations = records(spec['tolerations']);
  const added = DEFAULT_TOLERATED_TAINTS.filter(
    (key) =>
      !tolerations.some(
        (t) => (t['key'] === key || !t['key']) && (t['effect'] === 'NoExecute' || !t['effect']),
      ),
  ).map((key) => ({
    key,
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds: DEFAULT_TOLERATION_SECONDS,
  }));
  if (added.length) spec['tolerations'] = [...tolerations, ...added];
}

/** The pod plugins in kube-apiserver's order: ServiceAccount, then DefaultTolerationSeconds. */
export async function admitPod(request: AdmissionRequest): Promise<void> {
  // Pods proper only, not their subresources (binding, status, ephemeralcontainers).
  if (request.request.subresource) return;
  await admitServiceAccount(request);
  admitDefaultTolerationSeconds(request.object);
}
