// The Pods the watch scenarios write: the realistic ~4.9 KB Pods of @listwatch/codec's fixture
// (managedFields, labels, ownerReferences), each stamped with its send time so a receiver in
// another process can measure write→receive latency.
import type { KubeObject } from '@listwatch/api';
import { samplePod } from '@listwatch/testing';
import { wallMs } from '../../../../bench/proc.js';

export const SENT_ANNOTATION = 'bench.listwatch.io/sent';

/** Pod number `seq`, unsaved (no resourceVersion), stamped now. */
export function stampedPod(seq: number): KubeObject {
  const pod = samplePod(seq);
  delete pod.metadata.resourceVersion;
  pod.metadata.name = `${pod.metadata.name}-${seq}`;
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    [SENT_ANNOTATION]: wallMs().toFixed(3),
  };
  return pod;
}

export const podKey = (prefix: string, pod: KubeObject) =>
  `${prefix}/pods/${pod.metadata.namespace}/${pod.metadata.name}`;
