import type { KubeObject, Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidCauses, serverForFile } from '../testing/test-server.js';
import { TOKEN_MOUNT_PATH } from './pod-admission.js';

// Pods through kube-apiserver's default admission plugins and scheduling validation:
// plugin/pkg/admission/serviceaccount (admission_test.go), plugin/pkg/admission/
// defaulttolerationseconds (admission_test.go), pkg/apis/core/validation
// (TestValidateResourceRequirements, TestValidateAffinity cases).

const env = serverForFile('pod-admission');

type Body = Record<string, unknown>;
type Pod = KubeObject & { spec: Body & { containers: Body[]; volumes?: Body[] } };

const pod = (name: string, spec: Body = {}, container: Body = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx', ...container }], ...spec },
});

const create = async (spec: Body = {}, container: Body = {}) => {
  const ns = await env.namespace();
  return env.api.post<Pod>(`/api/v1/namespaces/${ns}/pods`, pod('web', spec, container));
};

const causes = invalidCauses;

describe('ServiceAccount admission', () => {
  it('TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens: a pod gets serviceAccountName default and the projected kube-api-access volume mounted in every container', async () => {
    const res = await create();
    expect(res.status).toBe(201);
    const spec = res.body.spec;
    expect(spec['serviceAccountName']).toBe('default');
    expect(spec['serviceAccount']).toBe('default');
    const volume = spec.volumes?.[0] ?? {};
    expect(String(volume['name'])).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume['projected']).toEqual({
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
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
      defaultMode: 420,
    });
    expect(spec.containers[0]?.['volumeMounts']).toEqual([
      { name: volume['name'], readOnly: true, mountPath: TOKEN_MOUNT_PATH },
    ]);
  });

  it('TestAutomountsAPIToken: automountServiceAccountToken false on the pod keeps the token out', async () => {
    const res = await create({ automountServiceAccountToken: false });
    expect(res.status).toBe(201);
    expect(res.body.spec.volumes).toBeUndefined();
    expect(res.body.spec.containers[0]?.['volumeMounts']).toBeUndefined();
  });

  it('TestRespectsExistingMount: a container with its own mount at the token path gets no token mount', async () => {
    const res = await create(
      { volumes: [{ name: 'own', emptyDir: {} }] },
      { volumeMounts: [{ name: 'own', mountPath: TOKEN_MOUNT_PATH }] },
    );
    expect(res.status).toBe(201);
    expect(res.body.spec.volumes?.map((v) => v['name'])).toEqual(['own']);
  });

  it('TestFetchesUncachedServiceAccount / missing account: a pod naming an account that does not exist is forbidden (403)', async () => {
    const res = await create({ serviceAccountName: 'robot' });
    expect(res.status).toBe(403);
    const ns = (res.body as unknown as Status).details;
    expect(ns).toMatchObject({ name: 'web', kind: 'pods' });
    expect((res.body as unknown as Status).message).toMatch(
      /^pods "web" is forbidden: error looking up service account [^/]+\/robot: serviceaccount "robot" not found$/,
    );
  });

  it('an account with automountServiceAccountToken false and image pull secrets: no token, its pull secrets copied', async () => {
    const ns = await env.namespace();
    const sa = await env.api.post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
      metadata: { name: 'robot' },
      automountServiceAccountToken: false,
      imagePullSecrets: [{ name: 'registry' }],
    });
    expect(sa.status).toBe(201);
    const res = await env.api.post<Pod>(
      `/api/v1/namespaces/${ns}/pods`,
      pod('web', { serviceAccountName: 'robot' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.spec.volumes).toBeUndefined();
    expect(res.body.spec['imagePullSecrets']).toEqual([{ name: 'registry' }]);
  });
});

describe('ServiceAccount admission of mirror pods', () => {
  const mirror = async (spec: Body) => {
    const ns = await env.namespace();
    return env.api.post(`/api/v1/namespaces/${ns}/pods`, {
      ...pod('static-web', spec),
      metadata: { name: 'static-web', annotations: { 'kubernetes.io/config.mirror': 'hash' } },
    });
  };

  it('TestRejectsMirrorPodWithServiceAccount / WithSecretVolumes: a mirror pod naming an account or a secret is forbidden, and gets no account', async () => {
    const account = await mirror({ serviceAccountName: 'robot' });
    expect(account.status).toBe(403);
    expect((account.body as unknown as Status).message).toBe(
      'pods "static-web" is forbidden: a mirror pod may not reference service accounts',
    );
    const secret = await mirror({ volumes: [{ name: 's', secret: { secretName: 'x' } }] });
    expect(secret.status).toBe(403);
    expect((secret.body as unknown as Status).message).toBe(
      'pods "static-web" is forbidden: a mirror pod may not reference secrets',
    );
    const plain = await mirror({});
    expect(plain.status).toBe(201);
    expect((plain.body as Pod).spec['serviceAccountName']).toBeUndefined();
  });
});

describe('DefaultTolerationSeconds admission', () => {
  it('a pod without tolerations tolerates not-ready and unreachable NoExecute taints for 300 s', async () => {
    const res = await create();
    expect(res.body.spec['tolerations']).toEqual([
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ]);
  });

  it('a pod tolerating not-ready already, and one tolerating everything, get only what they lack', async () => {
    const own = {
      key: 'node.kubernetes.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 60,
    };
    const res = await create({ tolerations: [own] });
    expect(res.body.spec['tolerations']).toEqual([
      own,
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ]);
    const all = await create({ tolerations: [{ operator: 'Exists' }] });
    expect(all.body.spec['tolerations']).toEqual([{ operator: 'Exists' }]);
  });
});

describe('ValidateResourceRequirements', () => {
  it('a request above its limit is refused on resources.requests: must be less than or equal to cpu limit of 500m', async () => {
    const res = await create(
      {},
      { resources: { limits: { cpu: '500m' }, requests: { cpu: '1' } } },
    );
    expect(causes(res)).toEqual([
      [
        'spec.containers[0].resources.requests',
        'FieldValueInvalid',
        'Invalid value: "1": must be less than or equal to cpu limit of 500m',
      ],
    ]);
  });

  it('an extended resource must request exactly its limit, and must have one', async () => {
    const unequal = await create(
      {},
      { resources: { limits: { 'example.com/gpu': '2' }, requests: { 'example.com/gpu': '1' } } },
    );
    expect(causes(unequal)).toEqual([
      [
        'spec.containers[0].resources.requests',
        'FieldValueInvalid',
        'Invalid value: "1": must be equal to example.com/gpu limit of 2',
      ],
    ]);
    const unlimited = await create({}, { resources: { requests: { 'example.com/gpu': '1' } } });
    expect(causes(unlimited)).toEqual([
      [
        'spec.containers[0].resources.limits',
        'FieldValueRequired',
        'Required value: Limit must be set for non overcommitable resources',
      ],
    ]);
  });

  it('a negative quantity is refused on its key', async () => {
    const res = await create({}, { resources: { limits: { memory: '-1Gi' } } });
    expect(causes(res)).toContainEqual([
      'spec.containers[0].resources.limits[memory]',
      'FieldValueInvalid',
      'Invalid value: "-1Gi": must be greater than or equal to 0',
    ]);
  });

  it('any requests and limits are accepted exactly when no request exceeds its limit (fuzz)', async () => {
    const ns = await env.namespace();
    const quantity = fc
      .tuple(fc.integer({ min: 1, max: 4000 }), fc.constantFrom('m', '', 'k'))
      .map(([n, unit]) => `${n}${unit}`);
    let i = 0;
    await fc.assert(
      fc.asyncProperty(quantity, quantity, async (request, limit) => {
        const res = await env.api.post(
          `/api/v1/namespaces/${ns}/pods`,
          pod(`p${i++}`, {}, { resources: { requests: { cpu: request }, limits: { cpu: limit } } }),
        );
        const scale = (q: string) =>
          parseInt(q, 10) * (q.endsWith('m') ? 1 : q.endsWith('k') ? 1_000_000 : 1000);
        expect(res.status).toBe(scale(request) <= scale(limit) ? 201 : 422);
      }),
      { numRuns: 30 },
    );
  });
});

describe('validateAffinity', () => {
  const required = (expression: Body) => ({
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [expression] }],
        },
      },
    },
  });
  const at =
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';

  it('invalid node selector requirement in node affinity, operator In without values', async () => {
    expect(causes(await create(required({ key: 'zone', operator: 'In' })))).toEqual([
      [
        `${at}[0].matchExpressions[0].values`,
        'FieldValueRequired',
        "Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ],
    ]);
  });

  it('invalid node field selector requirement in node affinity, more values for field selector', async () => {
    const res = await create({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchFields: [{ key: 'metadata.name', operator: 'In', values: ['host1', 'host2'] }],
              },
            ],
          },
        },
      },
    });
    expect(causes(res)).toEqual([
      [
        `${at}[0].matchFields[0].values`,
        'FieldValueRequired',
        "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
      ],
    ]);
  });

  it('a required node selector with no terms, a preferred weight of 0 and a pod affinity term without topologyKey are refused', async () => {
    const res = await create({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 0, preference: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } },
          ],
        },
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'web' } } },
          ],
        },
      },
    });
    expect(causes(res)).toEqual([
      [at, 'FieldValueRequired', 'Required value: must have at least one node selector term'],
      [
        'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight',
        'FieldValueInvalid',
        'Invalid value: 0: must be in the range 1-100',
      ],
      [
        'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey',
        'FieldValueRequired',
        'Required value: can not be empty',
      ],
      [
        'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey',
        'FieldValueInvalid',
        'Invalid value: "": name part must be non-empty',
      ],
      expect.arrayContaining([
        'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey',
        'FieldValueInvalid',
      ]),
    ]);
  });

  it('a valid affinity is accepted', async () => {
    const res = await create({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }],
              },
            ],
          },
        },
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 50,
              podAffinityTerm: {
                labelSelector: { matchLabels: { app: 'db' } },
                topologyKey: 'kubernetes.io/hostname',
              },
            },
          ],
        },
      },
    });
    expect(res.status).toBe(201);
  });
});
