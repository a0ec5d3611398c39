import { describe, expect, it } from 'vitest';
import { collectionOf, KIND_CASES } from '../registry/kinds.test-helper.js';
import { e2eForFile, tableRow } from './e2e.test-helper.js';

// The kinds added with their strategies, as kubectl 1.32 sees them: discovery (api-resources),
// server-side Table columns as kube's printers (pkg/printers/internalversion/printers.go),
// `kubectl get all` (the `all` category) and `kubectl scale` on statefulsets and RCs.

const e2e = e2eForFile();

/** The header kubectl prints for each kind (printers.go column definitions, priority 0). */
const HEADERS: Readonly<Record<string, string[]>> = {
  statefulsets: ['NAME', 'READY', 'AGE'],
  daemonsets: [
    'NAME',
    'DESIRED',
    'CURRENT',
    'READY',
    'UP-TO-DATE',
    'AVAILABLE',
    'NODE SELECTOR',
    'AGE',
  ],
  controllerrevisions: ['NAME', 'CONTROLLER', 'REVISION', 'AGE'],
  jobs: ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE'],
  cronjobs: ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE'],
  endpoints: ['NAME', 'ENDPOINTS', 'AGE'],
  persistentvolumeclaims: [
    'NAME',
    'STATUS',
    'VOLUME',
    'CAPACITY',
    'ACCESS MODES',
    'STORAGECLASS',
    'VOLUMEATTRIBUTESCLASS',
    'AGE',
  ],
  persistentvolumes: [
    'NAME',
    'CAPACITY',
    'ACCESS MODES',
    'RECLAIM POLICY',
    'STATUS',
    'CLAIM',
    'STORAGECLASS',
    'VOLUMEATTRIBUTESCLASS',
    'REASON',
    'AGE',
  ],
  resourcequotas: ['NAME', 'AGE', 'REQUEST', 'LIMIT'],
  limitranges: ['NAME', 'CREATED AT'],
  podtemplates: ['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS'],
  replicationcontrollers: ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'],
  endpointslices: ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE'],
  ingresses: ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE'],
  networkpolicies: ['NAME', 'POD-SELECTOR', 'AGE'],
  poddisruptionbudgets: ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE'],
  horizontalpodautoscalers: [
    'NAME',
    'REFERENCE',
    'TARGETS',
    'MINPODS',
    'MAXPODS',
    'REPLICAS',
    'AGE',
  ],
};

/** The first row's cells, without AGE (which moves). */
const row = tableRow;

async function createAll(ns: string): Promise<void> {
  for (const c of KIND_CASES) {
    const res = await e2e.api.post(collectionOf(c, ns), {
      ...c.object,
      metadata: { name: c.namespaced ? 'web' : `${ns}-web` },
    });
    expect(res.status, `${c.plural}: ${JSON.stringify(res.body)}`).toBe(201);
  }
}

describe('the new kinds with kubectl', () => {
  it('kubectl api-resources lists each kind with kube short names, its group version and scope', async () => {
    const result = await e2e.kubectl.run(['api-resources', '--no-headers']);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n').map((l) => l.trim().split(/\s+/));
    const find = (name: string) => lines.find((l) => l[0] === name);
    expect(find('statefulsets')).toEqual(['statefulsets', 'sts', 'apps/v1', 'true', 'StatefulSet']);
    expect(find('daemonsets')).toEqual(['daemonsets', 'ds', 'apps/v1', 'true', 'DaemonSet']);
    expect(find('cronjobs')).toEqual(['cronjobs', 'cj', 'batch/v1', 'true', 'CronJob']);
    expect(find('jobs')).toEqual(['jobs', 'batch/v1', 'true', 'Job']);
    expect(find('persistentvolumes')).toEqual([
      'persistentvolumes',
      'pv',
      'v1',
      'false',
      'PersistentVolume',
    ]);
    expect(find('endpointslices')).toEqual([
      'endpointslices',
      'discovery.k8s.io/v1',
      'true',
      'EndpointSlice',
    ]);
    expect(find('ingresses')).toEqual([
      'ingresses',
      'ing',
      'networking.k8s.io/v1',
      'true',
      'Ingress',
    ]);
    expect(find('poddisruptionbudgets')).toEqual([
      'poddisruptionbudgets',
      'pdb',
      'policy/v1',
      'true',
      'PodDisruptionBudget',
    ]);
    expect(find('horizontalpodautoscalers')).toEqual([
      'horizontalpodautoscalers',
      'hpa',
      'autoscaling/v2',
      'true',
      'HorizontalPodAutoscaler',
    ]);
  });

  it('kubectl get <kind> prints the columns kube prints for each kind', async () => {
    const ns = await e2e.api.namespace('kinds');
    await createAll(ns);
    for (const c of KIND_CASES) {
      const args = ['get', c.plural, ...(c.namespaced ? ['-n', ns] : [`${ns}-web`])];
      const result = await e2e.kubectl.run(args);
      expect(result.stderr, c.plural).toBe('');
      expect(row(result.stdout).header, c.plural).toEqual(HEADERS[c.plural]);
    }
    // A few rows in full: the cells kube's printers compute.
    const cells = async (kind: string) => {
      const { cells: all } = row((await e2e.kubectl.run(['get', kind, '-n', ns])).stdout);
      return all;
    };
    expect(await cells('statefulsets')).toEqual(['web', '0/1', expect.any(String)]);
    expect((await cells('jobs')).slice(0, 3)).toEqual(['web', 'Running', '0/1']);
    expect((await cells('cronjobs')).slice(0, 6)).toEqual([
      'web',
      '*/5 * * * *',
      '<none>',
      'False',
      '0',
      '<none>',
    ]);
    expect((await cells('endpoints')).slice(0, 2)).toEqual(['web', '10.0.0.1:80']);
    expect((await cells('endpointslices')).slice(0, 4)).toEqual(['web', 'IPv4', '80', '10.0.0.1']);
    expect((await cells('pvc')).slice(0, 2)).toEqual(['web', 'Pending']);
    // The empty ADDRESS cell is only spaces.
    expect((await cells('ingresses')).slice(0, 4)).toEqual(['web', '<none>', '*', '80']);
    expect((await cells('netpol')).slice(0, 2)).toEqual(['web', 'app=web']);
    expect((await cells('pdb')).slice(0, 4)).toEqual(['web', '1', 'N/A', '0']);
    // kubectl reads autoscaling/v2, the preferred version: the v1 HPA without a CPU target is
    // stored with the default 80% CPU metric.
    expect((await cells('hpa')).slice(0, 6)).toEqual([
      'web',
      'Deployment/web',
      'cpu: <unknown>/80%',
      '1',
      '3',
      '0',
    ]);
    expect((await cells('rc')).slice(0, 4)).toEqual(['web', '1', '0', '0']);
  });

  it('kubectl get all includes the workload kinds kube puts in the `all` category', async () => {
    const ns = await e2e.api.namespace('all');
    await createAll(ns);
    const result = await e2e.kubectl.run(['get', 'all', '-n', ns, '-o', 'name']);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n').sort()).toEqual([
      'cronjob.batch/web',
      'daemonset.apps/web',
      'horizontalpodautoscaler.autoscaling/web',
      'job.batch/web',
      'replicationcontroller/web',
      'statefulset.apps/web',
    ]);
  });

  it('kubectl get events.events.k8s.io shows the core/v1 Events of the namespace, and kubectl get events stays core/v1', async () => {
    const ns = await e2e.api.namespace('events');
    const created = await e2e.api.post(`/api/v1/namespaces/${ns}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e1' },
      involvedObject: { kind: 'Pod', name: 'web-1', namespace: ns },
      reason: 'Started',
      message: 'Started container web',
      type: 'Normal',
    });
    expect(created.status).toBe(201);
    const v1 = await e2e.kubectl.run(['get', 'events.events.k8s.io', '-n', ns]);
    expect(v1.stderr).toBe('');
    const { header, cells } = row(v1.stdout);
    expect(header).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(cells.slice(1)).toEqual(['Normal', 'Started', 'pod/web-1', 'Started container web']);
    const note = await e2e.kubectl.run([
      'get',
      'events.v1.events.k8s.io',
      'e1',
      '-n',
      ns,
      '-o',
      'jsonpath={.note}/{.regarding.name}',
    ]);
    expect(note.stdout).toBe('Started container web/web-1');
    const core = await e2e.kubectl.run([
      'get',
      'events',
      'e1',
      '-n',
      ns,
      '-o',
      'jsonpath={.apiVersion}',
    ]);
    expect(core.stdout).toBe('v1');
  });

  it('kubectl scale statefulset and rc set spec.replicas through their scale subresource', async () => {
    const ns = await e2e.api.namespace('scale');
    await createAll(ns);
    const sts = await e2e.kubectl.run(['scale', 'statefulset', 'web', '--replicas=4', '-n', ns]);
    expect(sts.stderr).toBe('');
    expect(sts.stdout.trim()).toBe('statefulset.apps/web scaled');
    const rc = await e2e.kubectl.run(['scale', 'rc', 'web', '--replicas=2', '-n', ns]);
    expect(rc.stderr).toBe('');
    expect(rc.stdout.trim()).toBe('replicationcontroller/web scaled');
    const read = async (kind: string) =>
      (await e2e.kubectl.run(['get', kind, 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}']))
        .stdout;
    expect(await read('sts')).toBe('4');
    expect(await read('rc')).toBe('2');
    const scale = await e2e.api.get(`/apis/apps/v1/namespaces/${ns}/statefulsets/web/scale`);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 4 },
      status: { replicas: 0, selector: 'app=web' },
    });
    const rcScale = await e2e.api.get(`/api/v1/namespaces/${ns}/replicationcontrollers/web/scale`);
    expect(rcScale.body).toMatchObject({
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=web' },
    });
  });
});
