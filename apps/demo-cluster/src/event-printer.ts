import type { KubeObject } from '@listwatch/api';
import {
  deletedObject,
  SharedInformerFactory,
  type EventHandler,
  type Logger,
  type RestClient,
} from '@listwatch/client';
import { resources, type Deployment, type Pod, type ReplicaSet } from './controllers/objects.js';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One line per event: type, kind/name, then what changes for that kind. */
export function describeEvent(type: EventType, kind: string, object: KubeObject): string {
  const name = `${kind}/${object.metadata.name ?? ''}`;
  return `${type.padEnd(8)} ${name.padEnd(24)} ${details(kind, object)}`.trimEnd();
}

function details(kind: string, object: KubeObject): string {
  switch (kind) {
    case 'pod': {
      const pod = object as Pod;
      const statuses = pod.status?.containerStatuses ?? [];
      const ready = statuses.filter((s) => s.ready).length;
      return [
        `node=${(pod.spec?.nodeName ?? '<none>').padEnd(8)}`,
        `phase=${(pod.status?.phase ?? 'Pending').padEnd(8)}`,
        `ready=${ready}/${pod.spec?.containers?.length ?? 0}`,
        pod.status?.podIP ? `ip=${pod.status.podIP}` : '',
      ].join(' ');
    }
    case 'replicaset': {
      const rs = object as ReplicaSet;
      return `desired=${rs.spec?.replicas ?? 1} current=${rs.status?.replicas ?? 0} ready=${rs.status?.readyReplicas ?? 0}`;
    }
    case 'deployment': {
      const d = object as Deployment;
      return `desired=${d.spec?.replicas ?? 1} updated=${d.status?.updatedReplicas ?? 0} ready=${d.status?.readyReplicas ?? 0} available=${d.status?.availableReplicas ?? 0}`;
    }
    default:
      return `rv=${(object.metadata.resourceVersion ?? '').padEnd(6)} ${JSON.stringify(object['data'] ?? {})}`;
  }
}

/**
 * Prints what happens in one namespace — Deployments, ReplicaSets, pods and ConfigMaps — from shared
 * informers: the initial state as ADDED, then every change as it is watched.
 */
export class EventPrinter {
  private readonly factory: SharedInformerFactory;

  constructor(
    client: RestClient,
    namespace: string,
    print: (line: string) => void,
    logger?: Logger,
  ) {
    this.factory = new SharedInformerFactory({ client, namespace, ...(logger ? { logger } : {}) });
    const handler = <T extends KubeObject>(kind: string): EventHandler<T> => ({
      onAdd: (obj) => print(describeEvent('ADDED', kind, obj)),
      onUpdate: (oldObj, newObj) => {
        if (oldObj.metadata.resourceVersion !== newObj.metadata.resourceVersion)
          print(describeEvent('MODIFIED', kind, newObj));
      },
      onDelete: (obj) => {
        const last = deletedObject(obj);
        if (last) print(describeEvent('DELETED', kind, last));
      },
    });
    this.factory
      .informerFor<Deployment>(resources.deployments)
      .addEventHandler(handler('deployment'));
    this.factory
      .informerFor<ReplicaSet>(resources.replicasets)
      .addEventHandler(handler('replicaset'));
    this.factory.informerFor<Pod>(resources.pods).addEventHandler(handler('pod'));
    this.factory.informerFor(resources.configmaps).addEventHandler(handler('configmap'));
  }

  start(): void {
    this.factory.start();
  }

  stop(): Promise<void> {
    return this.factory.shutdown();
  }
}
