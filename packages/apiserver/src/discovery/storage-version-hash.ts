import { createHash } from 'node:crypto';

/**
 * The opaque hash kube-apiserver publishes per resource so storage-version migrators can tell
 * when the encoding in etcd changes (k8s.io/apiserver/pkg/endpoints/discovery/storageversionhash.go):
 * base64 of the first 8 bytes of sha256("<group>/<version>/<kind>"). Pods are `xPOwRZ+Yhw8=`.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  if (kind === '') return '';
  return createHash('sha256')
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}
