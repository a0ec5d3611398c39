import * as lw from '@listwatch/client';

/** example.com/v1 Web: keeps a Deployment of `spec.replicas` nginx pods, named as the Web. */
export interface Web {
  apiVersion?: string;
  kind?: string;
  metadata?: lw.ObjectMeta;
  spec?: { replicas?: number };
}

export const webs = lw.typedResource<Web>({
  group: 'example.com',
  version: 'v1',
  kind: 'Web',
  plural: 'webs',
  namespaced: true,
});

/** Adds the Web controller to `manager`; it looks at each Web again every `resyncMs`. */
export function addWebController(
  manager: lw.Manager,
  recorder: lw.EventRecorder,
  resyncMs = 60_000,
): void {
  const client = manager.client;
  const webLister = manager.informers.informerFor(webs).lister();
  const deployments = manager.informers.informerFor(lw.appsV1.deployments).lister();
  lw.newControllerManagedBy(manager)
    .for(webs)
    .owns(lw.appsV1.deployments) // a Deployment's changes reconcile the Web that owns it
    .complete(async ({ namespace, name }): Promise<lw.Result> => {
      const web = webLister.namespace(namespace).tryGet(name);
      if (!web) return {}; // deleted: the garbage collector removes its Deployment
      const replicas = web.spec?.replicas ?? 1;
      const current = deployments.namespace(namespace).tryGet(name);
      if (!current) {
        const labels = { app: name };
        const deployment: lw.Deployment = {
          metadata: { name, namespace },
          spec: {
            replicas,
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name, image: 'nginx' }] } },
          },
        };
        lw.setControllerReference(web, deployment, webs);
        await client.resource(lw.appsV1.deployments).namespace(namespace).create(deployment);
        recorder.event(web, 'Normal', 'CreatedDeployment', `Created deployment ${name}`);
      } else if (current.spec?.replicas !== replicas) {
        await client
          .resource(lw.appsV1.deployments)
          .namespace(namespace)
          .patch(name, { spec: { replicas } });
        recorder.event(
          web,
          'Normal',
          'ScaledDeployment',
          `Scaled deployment ${name} to ${replicas}`,
        );
      }
      return { requeueAfter: resyncMs }; // look again later, even if nothing changes
    });
}
