import { KubectlSession } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources, type Deployment, type Pod, type ReplicaSet } from './controllers/objects.js';
import { demoClusterForFile, expectRunningPods, listPods } from './testing/test-apiserver.js';

// kubectl rollout status / undo / history, kubectl scale, kubectl delete --cascade and kubectl
// delete namespace, run against the apiserver and the demo's controllers (Deployment,
// ReplicaSet, garbage collector, namespace), as on a real cluster.
describe('kubectl against the demo control plane', () => {
  let kubectl: KubectlSession;
  const poll = { timeout: 30_000, interval: 100 };

  const demo = demoClusterForFile();

  beforeAll(() => {
    kubectl = new KubectlSession(demo.api.server.url);
  });
  afterAll(() => {
    kubectl?.dispose();
  });

  const pods = () => demo.api.client.resource<Pod>(resources.pods);
  const replicaSets = () => demo.api.client.resource<ReplicaSet>(resources.replicasets);
  const deployments = () => demo.api.client.resource<Deployment>(resources.deployments);

  const ok = async (args: string[]) => {
    const result = await kubectl.run(args);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };

  // kubectl apply sends JSON (kubectl create deployment would send protobuf).
  const createDeployment = (ns: string, replicas: number, image = 'nginx:1.27') =>
    ok([
      'apply',
      '-n',
      ns,
      '-f',
      kubectl.write(
        `web-${ns}.json`,
        JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web', labels: { app: 'web' } },
          spec: {
            replicas,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'nginx', image }] },
            },
          },
        }),
      ),
    ]);

  it('kubectl rollout status waits for a rollout and says it is done', async () => {
    const ns = await demo.api.namespace();
    await createDeployment(ns, 3);
    const out = await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    expect(out).toMatch(/deployment "web" successfully rolled out/);
    expect(await expectRunningPods(pods(), ns, 3)).toHaveLength(3);
  });

  it('kubectl set image, rollout status, then rollout undo brings the first template back as revision 3', async () => {
    const ns = await demo.api.namespace();
    await createDeployment(ns, 2, 'nginx:1.27');
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.28', '-n', ns]);
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    const history = await ok(['rollout', 'history', 'deployment/web', '-n', ns]);
    expect(history).toMatch(/^1\s/m);
    expect(history).toMatch(/^2\s/m);
    expect(await ok(['rollout', 'undo', 'deployment/web', '-n', ns])).toMatch(/rolled back/);
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    const d = await deployments().namespace(ns).get('web');
    expect(d.spec?.template?.spec?.['containers']).toMatchObject([{ image: 'nginx:1.27' }]);
    const rss = (await replicaSets().namespace(ns).list()).items;
    const back = rss.find((rs) => JSON.stringify(rs.spec?.template?.spec).includes('nginx:1.27'));
    expect(back?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(back?.metadata.annotations?.['deployment.kubernetes.io/revision-history']).toBe('1');
    expect(back?.spec?.replicas).toBe(2);
    for (const pod of await expectRunningPods(pods(), ns, 2))
      expect(pod.spec?.containers?.[0]?.image).toBe('nginx:1.27');
  });

  it('kubectl describe deployment ends with its Events and kubectl get events shows what every controller recorded', async () => {
    const ns = await demo.api.namespace();
    await createDeployment(ns, 2);
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    const rs = (await replicaSets().namespace(ns).list()).items[0]?.metadata.name ?? '';
    // Written asynchronously (the recorder never blocks a controller): wait for them.
    await expect
      .poll(() => ok(['describe', 'deployment', 'web', '-n', ns]), poll)
      .toMatch(
        new RegExp(
          `Events:\\s+Type\\s+Reason\\s+Age\\s+From\\s+Message[\\s\\S]*Normal\\s+ScalingReplicaSet\\s+\\S+\\s+deployment-controller\\s+Scaled up replica set ${rs} from 0 to 2`,
        ),
      );
    // The ReplicaSet controller's, the scheduler's and the kubelet's (sync_pod.go, kwok-like).
    const reasons = async () =>
      new Set(
        (await ok(['get', 'events', '-n', ns, '-o', 'jsonpath={range .items[*]}{.reason} {end}']))
          .split(' ')
          .filter(Boolean),
      );
    await expect
      .poll(reasons, poll)
      .toEqual(
        new Set([
          'ScalingReplicaSet',
          'SuccessfulCreate',
          'Scheduled',
          'Pulled',
          'Created',
          'Started',
        ]),
      );
    expect(await ok(['describe', 'rs', rs, '-n', ns])).toMatch(
      /Normal\s+SuccessfulCreate\s+\S+\s+replicaset-controller\s+Created pod: web-/,
    );
  });

  it('kubectl scale deployment resizes its ReplicaSet and pods', async () => {
    const ns = await demo.api.namespace();
    await createDeployment(ns, 1);
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    expect(await ok(['scale', 'deployment/web', '--replicas=4', '-n', ns])).toMatch(
      /deployment.apps\/web scaled/,
    );
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    await expectRunningPods(pods(), ns, 4);
    await ok(['scale', 'deployment/web', '--replicas=2', '-n', ns]);
    await expectRunningPods(pods(), ns, 2);
  });

  it('kubectl delete deployment (background) removes its ReplicaSets and pods', async () => {
    const ns = await demo.api.namespace();
    await createDeployment(ns, 2);
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    await ok(['delete', 'deployment', 'web', '-n', ns, '--cascade=background']);
    await expect
      .poll(
        async () => [
          (await replicaSets().namespace(ns).list()).items.length,
          (await listPods(pods(), ns)).length,
        ],
        poll,
      )
      .toEqual([0, 0]);
  });

  it('kubectl delete deployment --cascade=foreground returns once the ReplicaSets and pods are gone', async () => {
    const ns = await demo.api.namespace();
    await createDeployment(ns, 2);
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    // kubectl waits for the Deployment to be gone; foreground makes that after its dependents.
    await ok(['delete', 'deployment', 'web', '-n', ns, '--cascade=foreground', '--timeout=60s']);
    expect((await replicaSets().namespace(ns).list()).items).toEqual([]);
    // Foreground: the pods went (their kubelets confirmed) before the ReplicaSet, it before the Deployment.
    expect(await listPods(pods(), ns)).toEqual([]);
  });

  it('kubectl delete rs --cascade=orphan keeps its pods, without an owner', async () => {
    const ns = await demo.api.namespace();
    await createDeployment(ns, 2);
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    await ok(['delete', 'deployment', 'web', '-n', ns, '--cascade=orphan']);
    await expect
      .poll(async () => (await deployments().namespace(ns).list()).items, poll)
      .toEqual([]);
    const [rs] = (await replicaSets().namespace(ns).list()).items;
    expect(rs?.metadata.ownerReferences ?? []).toEqual([]);
    await ok(['delete', 'rs', rs?.metadata.name ?? '', '-n', ns, '--cascade=orphan']);
    await expect
      .poll(async () => (await replicaSets().namespace(ns).list()).items, poll)
      .toEqual([]);
    const left = await listPods(pods(), ns);
    expect(left).toHaveLength(2);
    for (const pod of left) expect(pod.metadata.ownerReferences ?? []).toEqual([]);
  });

  it('kubectl delete namespace empties it (Deployment, ReplicaSets, pods, ConfigMaps) and returns once it is gone', async () => {
    const ns = await demo.api.namespace();
    await createDeployment(ns, 2);
    await ok(['create', 'configmap', 'settings', '--from-literal=a=b', '-n', ns]);
    await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
    expect(await ok(['delete', 'namespace', ns, '--timeout=60s'])).toMatch(
      `namespace "${ns}" deleted`,
    );
    const get = await kubectl.run(['get', 'namespace', ns]);
    expect(get.stderr.trim()).toBe(`Error from server (NotFound): namespaces "${ns}" not found`);
    for (const resource of [
      resources.deployments,
      resources.replicasets,
      resources.pods,
      resources.configmaps,
    ])
      expect((await demo.api.client.resource(resource).namespace(ns).list()).items).toEqual([]);
  });
});
