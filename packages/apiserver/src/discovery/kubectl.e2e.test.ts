import { builtinResources } from '@listwatch/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kubectl,
  startDiscoveryServer,
  type DiscoveryServer,
} from './discovery-server.test-helper.js';
import { webDeployment, yamlManifest } from '../e2e/e2e.test-helper.js';

// The real kubectl 1.32 (KUBECTL from @listwatch/testing) against a server that mounts only
// discovery.

let server: DiscoveryServer;

beforeAll(async () => {
  server = await startDiscoveryServer();
});

afterAll(async () => {
  await server.close();
});

const MANIFESTS = yamlManifest(
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast' } },
  webDeployment({ container: { resources: { limits: { cpu: 1 } } } }),
);

/**
 * The requests in kubectl's log, as `GET /api?timeout=32s`: -v=6 logs `GET <url> 200 OK in 1ms`
 * per request, -v=8 logs `GET <url>` and then the headers.
 */
function requestLines(log: string): string[] {
  return [...log.matchAll(/round_trippers\.go:\d+\] (GET|POST|PUT|PATCH|DELETE) (\S+)/g)].map(
    (m) => `${m[1] ?? ''} ${(m[2] ?? '').replace(server.url, '')}`,
  );
}

describe('kubectl against discovery', () => {
  it('api-resources lists every built-in resource with its short names, API version, scope and kind', async () => {
    const { code, stdout, stderr } = await kubectl(server.url, ['api-resources', '--no-headers']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rows = stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    // kubectl lists each resource at its group's preferred version (HPAs: autoscaling/v2).
    const preferred = builtinResources.filter(
      (def) =>
        !builtinResources.some(
          (other) =>
            other.group === def.group && other.plural === def.plural && other.version > def.version,
        ),
    );
    const expected = preferred.map((def) => {
      const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
      return [
        def.plural,
        ...(def.shortNames.length ? [def.shortNames.join(',')] : []),
        apiVersion,
        String(def.namespaced),
        def.kind,
      ];
    });
    expect(rows).toEqual(expect.arrayContaining(expected));
    expect(rows).toHaveLength(preferred.length);
  });

  it('discovers through aggregated discovery alone, never falling back to per-group-version documents', async () => {
    const { code, stderr } = await kubectl(server.url, ['api-resources', '-v=8']);
    expect(code).toBe(0);
    const requests = requestLines(stderr);
    expect(requests).toEqual(['GET /api?timeout=32s', 'GET /apis?timeout=32s']);
    expect(stderr).toContain(
      'Content-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
  });

  it('api-versions lists every group/version', async () => {
    const { code, stdout } = await kubectl(server.url, ['api-versions']);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      'apps/v1',
      'authentication.k8s.io/v1',
      'authorization.k8s.io/v1',
      'autoscaling/v1',
      'autoscaling/v2',
      'batch/v1',
      'coordination.k8s.io/v1',
      'discovery.k8s.io/v1',
      'events.k8s.io/v1',
      'networking.k8s.io/v1',
      'policy/v1',
      'rbac.authorization.k8s.io/v1',
      'v1',
    ]);
  });

  it('version reports the server as Kubernetes 1.32 without a skew warning', async () => {
    const { code, stdout, stderr } = await kubectl(server.url, ['version']);
    expect(code).toBe(0);
    expect(stdout).toContain('Server Version: v1.32.0-listwatch');
    expect(stderr).not.toMatch(/WARNING|error/i);
  });

  it('explain describes a built-in kind and follows references down to container fields', async () => {
    const pods = await kubectl(server.url, ['explain', 'pods']);
    expect(pods.code).toBe(0);
    expect(pods.stdout).toMatch(/KIND:\s+Pod/);
    expect(pods.stdout).toMatch(/spec\s+<PodSpec>/);
    const containers = await kubectl(server.url, [
      'explain',
      'deployments.spec.template.spec.containers',
    ]);
    expect(containers.code).toBe(0);
    expect(containers.stdout).toMatch(/FIELD: containers <\[\]Container>/);
    expect(containers.stdout).toMatch(/image\s+<string>/);
  });

  it('create --validate=strict --dry-run=client accepts valid manifests, validation being left to the server', async () => {
    const { code, stdout, stderr } = await kubectl(
      server.url,
      [
        'create',
        '-f',
        'manifests.yaml',
        '--dry-run=client',
        '--validate=strict',
        '-o',
        'name',
        '-v=6',
      ],
      { 'manifests.yaml': MANIFESTS },
    );
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual(['configmap/settings', 'deployment.apps/web']);
    // kubectl read the OpenAPI v3 documents to check that the server validates fields itself
    // (QueryParamVerifierV3), and never needed the protobuf-only v2 fallback.
    const requests = requestLines(stderr);
    expect(requests).toContain('GET /openapi/v3?timeout=32s');
    expect(
      requests.some((r) => /^GET \/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}&timeout=32s$/.test(r)),
    ).toBe(true);
    expect(requests.some((r) => r.startsWith('GET /openapi/v3/apis/apps/v1?hash='))).toBe(true);
    expect(requests.some((r) => r.startsWith('GET /openapi/v2'))).toBe(false);
  });

  it('create -f with default validation POSTs with fieldValidation=Strict for the server to report unknown fields', async () => {
    const before = server.passedOn.length;
    const { code, stderr } = await kubectl(server.url, ['create', '-f', 'manifests.yaml'], {
      'manifests.yaml': MANIFESTS.replace('data:', 'dta: {typo: yes}\ndata:'),
    });
    // No create handler is mounted: the fallback answers 404 after recording the request.
    expect(code).not.toBe(0);
    expect(stderr).toContain('the server could not find the requested resource');
    expect(server.passedOn.slice(before)).toEqual([
      'POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict',
      'POST /apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create&fieldValidation=Strict',
    ]);
  });

  it('apply --dry-run=client looks each object up and would create the missing ones', async () => {
    const before = server.passedOn.length;
    const { code, stdout, stderr } = await kubectl(
      server.url,
      ['apply', '-f', 'manifests.yaml', '--dry-run=client', '-o', 'name'],
      { 'manifests.yaml': MANIFESTS },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual(['configmap/settings', 'deployment.apps/web']);
    expect(server.passedOn.slice(before)).toEqual([
      'GET /api/v1/namespaces/default/configmaps/settings',
      'GET /apis/apps/v1/namespaces/default/deployments/web',
    ]);
  });
});
