import type { Defaulter } from '../defaulting.js';
import { isRecord } from '@listwatch/api';

// SetDefaults_* of core/v1 types that several kinds hold (k8s.io/kubernetes
// pkg/apis/core/v1/defaults.go), by the type they default in the schema source. Kind-level ones
// (SetDefaults_Pod, SetDefaults_Service, SetDefaults_Secret...) are in the kind's strategy.
// Feature-gated defaults follow kube 1.32's default gates.

const CORE = 'io.k8s.api.core.v1';

/** v1.SecretVolumeSourceDefaultMode and the other volume sources': 0644. */
const DEFAULT_MODE = 0o644;

/**
 * The tag parsers.ParseImageName finds: an image with neither tag nor digest is `latest`; one
 * that does not parse has none.
 */
export function imageTag(image: string): string {
  if (image === '' || /\s/.test(image)) return '';
  const at = image.indexOf('@');
  const name = at === -1 ? image : image.slice(0, at);
  const slash = name.lastIndexOf('/');
  const colon = name.indexOf(':', slash + 1);
  const repository = colon === -1 ? name : name.slice(0, colon);
  // A reference's repository path is lower case (docker/distribution reference grammar).
  if (/[A-Z]/.test(repository.slice(repository.indexOf('/') + 1))) return '';
  if (colon !== -1) return name.slice(colon + 1);
  return at === -1 ? 'latest' : '';
}

/** SetDefaults_Container (and SetDefaults_EphemeralContainer, which calls it). */
const container: Defaulter = (c) => {
  if (!c['imagePullPolicy']) {
    const image = typeof c['image'] === 'string' ? c['image'] : '';
    c['imagePullPolicy'] = imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
  }
  if (!c['terminationMessagePath']) c['terminationMessagePath'] = '/dev/termination-log';
  if (!c['terminationMessagePolicy']) c['terminationMessagePolicy'] = 'File';
};

/** SetDefaults_PodSpec: what every pod template gets (new fields go to SetDefaults_Pod). */
const podSpec: Defaulter = (spec) => {
  if (!spec['dnsPolicy']) spec['dnsPolicy'] = 'ClusterFirst';
  if (!spec['restartPolicy']) spec['restartPolicy'] = 'Always';
  if (spec['securityContext'] === undefined) spec['securityContext'] = {};
  if (spec['terminationGracePeriodSeconds'] === undefined)
    spec['terminationGracePeriodSeconds'] = 30;
  if (!spec['schedulerName']) spec['schedulerName'] = 'default-scheduler';
};

/** The fields of v1.Volume that are not its VolumeSource. */
const VOLUME_OWN_FIELDS = new Set(['name']);

/** SetDefaults_Volume: a volume with no source is an emptyDir. */
const volume: Defaulter = (v) => {
  if (Object.keys(v).every((key) => VOLUME_OWN_FIELDS.has(key) || v[key] === undefined))
    v['emptyDir'] = {};
};

const defaultMode: Defaulter = (source) => {
  if (source['defaultMode'] === undefined) source['defaultMode'] = DEFAULT_MODE;
};

/** SetDefaults_Probe. */
const probe: Defaulter = (p) => {
  if (!p['timeoutSeconds']) p['timeoutSeconds'] = 1;
  if (!p['periodSeconds']) p['periodSeconds'] = 10;
  if (!p['successThreshold']) p['successThreshold'] = 1;
  if (!p['failureThreshold']) p['failureThreshold'] = 3;
};

/** SetDefaults_HTTPGetAction. */
const httpGet: Defaulter = (action) => {
  if (!action['path']) action['path'] = '/';
  if (!action['scheme']) action['scheme'] = 'HTTP';
};

/**
 * A PodTemplateSpec's metadata is a Go struct value: always written, with its zero
 * creationTimestamp as null (what kube answers for every pod template).
 */
const podTemplateSpec: Defaulter = (template) => {
  const meta = isRecord(template['metadata']) ? template['metadata'] : {};
  if (meta['creationTimestamp'] === undefined) meta['creationTimestamp'] = null;
  template['metadata'] = meta;
  if (!isRecord(template['spec'])) template['spec'] = {};
};

export const coreV1Defaults: Readonly<Record<string, Defaulter>> = {
  [`${CORE}.PodSpec`]: podSpec,
  [`${CORE}.Container`]: container,
  [`${CORE}.EphemeralContainer`]: container,
  [`${CORE}.Volume`]: volume,
  [`${CORE}.SecretVolumeSource`]: defaultMode,
  [`${CORE}.ConfigMapVolumeSource`]: defaultMode,
  [`${CORE}.DownwardAPIVolumeSource`]: defaultMode,
  [`${CORE}.ProjectedVolumeSource`]: defaultMode,
  [`${CORE}.ServiceAccountTokenProjection`]: (p) => {
    if (p['expirationSeconds'] === undefined) p['expirationSeconds'] = 3600;
  },
  [`${CORE}.HostPathVolumeSource`]: (h) => {
    if (h['type'] === undefined) h['type'] = '';
  },
  [`${CORE}.PersistentVolumeClaimSpec`]: (spec) => {
    if (spec['volumeMode'] === undefined) spec['volumeMode'] = 'Filesystem';
  },
  [`${CORE}.ObjectFieldSelector`]: (selector) => {
    if (!selector['apiVersion']) selector['apiVersion'] = 'v1';
  },
  [`${CORE}.Probe`]: probe,
  [`${CORE}.HTTPGetAction`]: httpGet,
  [`${CORE}.PodTemplateSpec`]: podTemplateSpec,
  // SetDefaults_NodeStatus: allocatable is capacity unless said otherwise.
  [`${CORE}.NodeStatus`]: (status) => {
    if (status['allocatable'] === undefined && isRecord(status['capacity']))
      status['allocatable'] = { ...status['capacity'] };
  },
  [`${CORE}.NamespaceStatus`]: (status) => {
    if (!status['phase']) status['phase'] = 'Active';
  },
};
