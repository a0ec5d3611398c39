import { objectKey, toApiError, type KubeObject } from '@listwatch/api';
import {
  deletedObject,
  type DeletedFinalStateUnknown,
  type ResourceClient,
} from '@listwatch/client';
import { controllerOf, newControllerRef, type Pod, type PodTemplate } from './objects.js';

/** Records an event on the owner of the pods (its recorder.Eventf). */
export type OwnerEvent = (type: 'Normal' | 'Warning', reason: string, message: string) => void;

/**
 * Creates a pod from `template`, owned by `owner` and named by generateName `<owner>-`
 * (k8s.io/kubernetes pkg/controller/controller_utils.go RealPodControl.CreatePods and
 * GetPodFromTemplate), and records SuccessfulCreate or FailedCreate on the owner.
 */
export async function createPodFromTemplate(
  pods: ResourceClient<Pod>,
  owner: KubeObject & { spec?: { template?: PodTemplate } },
  ownerType: { apiVersion: string; kind: string },
  event: OwnerEvent,
): Promise<void> {
  const template = owner.spec?.template;
  const namespace = owner.metadata.namespace ?? '';
  let created: Pod;
  try {
    created = await pods.namespace(namespace).create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${owner.metadata.name ?? ''}-`,
        namespace,
        labels: { ...template?.metadata?.labels },
        ...(template?.metadata?.annotations
          ? { annotations: { ...template.metadata.annotations } }
          : {}),
        ownerReferences: [newControllerRef(owner, ownerType.apiVersion, ownerType.kind)],
      },
      spec: structuredClone(template?.spec ?? {}),
    });
  } catch (err) {
    event('Warning', 'FailedCreate', `Error creating: ${toApiError(err).message}`);
    throw err;
  }
  event('Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
}

/**
 * The owner key and pod key of a deleted pod controlled by a `kind` (the deletePod handlers of
 * replica_set.go and job_controller.go), undefined for a pod of another controller or none.
 */
export function deletedControlledPod(
  obj: Pod | DeletedFinalStateUnknown<Pod>,
  kind: string,
): { ownerKey: string; podKey: string } | undefined {
  const pod = deletedObject(obj);
  if (!pod) return undefined;
  const ref = controllerOf(pod);
  if (!ref || ref.kind !== kind) return undefined;
  return {
    ownerKey: objectKey({ namespace: pod.metadata.namespace ?? '', name: ref.name }),
    podKey: objectKey(pod.metadata),
  };
}
