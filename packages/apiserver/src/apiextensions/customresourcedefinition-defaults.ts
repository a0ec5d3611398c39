import { isRecord } from '@listwatch/api';

// apiextensions.k8s.io/v1 defaulting of a CRD as every decoded body gets it (v1/defaults.go and
// its zz_generated.defaults.go): hand-written CRDs mostly omit singular and listKind, and kube
// fills them in rather than refusing them.

/** SetObjectDefaults_CustomResourceDefinition, in place, on whatever shape was sent. */
export function setCustomResourceDefinitionDefaults(object: Record<string, unknown>): void {
  const spec = object['spec'];
  if (!isRecord(spec)) return;
  setSpecDefaults(spec);
  // SetDefaults_CustomResourceDefinition: the first storage version when none is recorded.
  const status = isRecord(object['status']) ? object['status'] : undefined;
  const stored = status?.['storedVersions'];
  if (!Array.isArray(stored) || stored.length === 0) {
    const versions: unknown[] = Array.isArray(spec['versions']) ? spec['versions'] : [];
    const storage = versions.find((v) => isRecord(v) && v['storage'] === true);
    if (isRecord(storage) && typeof storage['name'] === 'string')
      object['status'] = { ...status, storedVersions: [storage['name']] };
  }
}

/** SetDefaults_CustomResourceDefinitionSpec, then SetDefaults_ServiceReference on the webhook's. */
function setSpecDefaults(spec: Record<string, unknown>): void {
  if (spec['names'] === undefined || spec['names'] === null) spec['names'] = {};
  const names = spec['names'];
  if (isRecord(names)) {
    const kind = typeof names['kind'] === 'string' ? names['kind'] : '';
    if (!names['singular']) names['singular'] = kind.toLowerCase();
    if (!names['listKind'] && kind) names['listKind'] = `${kind}List`;
  }
  if (spec['conversion'] === undefined || spec['conversion'] === null)
    spec['conversion'] = { strategy: 'None' };
  const conversion = spec['conversion'];
  const webhook = isRecord(conversion) ? conversion['webhook'] : undefined;
  const clientConfig = isRecord(webhook) ? webhook['clientConfig'] : undefined;
  const service = isRecord(clientConfig) ? clientConfig['service'] : undefined;
  if (isRecord(service) && (service['port'] === undefined || service['port'] === null))
    service['port'] = 443;
}
