import { MemoryStorage } from '@listwatch/storage';
import { tempDir } from '@listwatch/testing';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserInfo } from '../authentication/user.js';
import { requestAttributes } from '../authorization/attributes.js';
import type { RunningApiServer } from '../server.js';
import { client, testServer } from '../testing/test-server.js';
import type { AuditEvent } from './audit-event.js';
import { AuditPolicyError, auditDecision, parseAuditPolicy } from './audit-policy.js';

// --audit-policy-file as k8s.io/apiserver pkg/audit/policy/checker.go (checker_test.go's rule
// kinds) and pkg/apis/audit/validation.

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const attrs = (method: string, path: string, user = alice, query = '') =>
  requestAttributes(user, method, path, new URLSearchParams(query));

const policy = (rules: unknown[], extra: Record<string, unknown> = {}) =>
  parseAuditPolicy(
    JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules, ...extra }),
    'policy.yaml',
  );

describe('auditDecision', () => {
  it('gives the level of the first matching rule, and None when no rule matches', () => {
    const p = policy([
      { level: 'None', users: ['system:kube-proxy'] },
      { level: 'RequestResponse', resources: [{ group: '', resources: ['configmaps'] }] },
      { level: 'Metadata', verbs: ['get'] },
    ]);
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/configmaps/x')).level).toBe(
      'RequestResponse',
    );
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/pods/x')).level).toBe('Metadata');
    expect(auditDecision(p, attrs('DELETE', '/api/v1/namespaces/a/pods/x')).level).toBe('None');
    const proxy = { name: 'system:kube-proxy', groups: [] };
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/configmaps/x', proxy)).level).toBe(
      'None',
    );
  });

  it('matches users, groups, verbs, namespaces, resource names and subresources as checker.go', () => {
    const p = policy([
      { level: 'Request', userGroups: ['admins'], namespaces: ['kube-system'] },
      { level: 'Request', resources: [{ group: '', resources: ['pods/log'] }] },
      { level: 'Request', resources: [{ group: 'apps', resources: ['deployments/*'] }] },
      { level: 'Request', resources: [{ group: '', resources: ['*/status'] }] },
      {
        level: 'RequestResponse',
        resources: [{ group: '', resources: ['configmaps'], resourceNames: ['cfg'] }],
      },
    ]);
    const admin = { name: 'bob', groups: ['admins'] };
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/kube-system/pods', admin)).level).toBe(
      'Request',
    );
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/default/pods', admin)).level).toBe(
      'None',
    );
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/pods/x/log')).level).toBe('Request');
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/pods/x')).level).toBe('None');
    expect(
      auditDecision(p, attrs('PUT', '/apis/apps/v1/namespaces/a/deployments/x/scale')).level,
    ).toBe('Request');
    expect(auditDecision(p, attrs('PUT', '/apis/apps/v1/namespaces/a/deployments/x')).level).toBe(
      'None',
    );
    expect(auditDecision(p, attrs('PUT', '/api/v1/nodes/n/status')).level).toBe('Request');
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/configmaps/cfg')).level).toBe(
      'RequestResponse',
    );
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/configmaps/other')).level).toBe(
      'None',
    );
  });

  it('matches non-resource URLs exactly or by a trailing *, and never resource requests', () => {
    const p = policy([{ level: 'Metadata', nonResourceURLs: ['/healthz*', '/version'] }]);
    expect(auditDecision(p, attrs('GET', '/healthz/etcd')).level).toBe('Metadata');
    expect(auditDecision(p, attrs('GET', '/version')).level).toBe('Metadata');
    expect(auditDecision(p, attrs('GET', '/versions')).level).toBe('None');
    expect(auditDecision(p, attrs('GET', '/api/v1/pods')).level).toBe('None');
  });

  it('adds the policy omitStages to the rule own', () => {
    const p = policy([{ level: 'Metadata', omitStages: ['ResponseStarted'] }], {
      omitStages: ['RequestReceived'],
    });
    expect(auditDecision(p, attrs('GET', '/api/v1/pods')).omitStages).toEqual([
      'RequestReceived',
      'ResponseStarted',
    ]);
  });

  it('never logs Secrets or token requests above Metadata, whatever the policy says', () => {
    const p = policy([{ level: 'RequestResponse' }]);
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/secrets/x')).level).toBe('Metadata');
    expect(
      auditDecision(p, attrs('POST', '/api/v1/namespaces/a/serviceaccounts/x/token')).level,
    ).toBe('Metadata');
    expect(auditDecision(p, attrs('GET', '/api/v1/namespaces/a/configmaps/x')).level).toBe(
      'RequestResponse',
    );
  });
});

describe('parseAuditPolicy', () => {
  it.each([
    [
      'an unknown level',
      [{ level: 'Everything' }],
      'rules[0].level: Unsupported value: "Everything"',
    ],
    ['a rule without a level', [{ verbs: ['get'] }], 'rules[0].level: Required value'],
    [
      'an unknown stage',
      [{ level: 'Metadata', omitStages: ['Later'] }],
      'Unsupported value: "Later"',
    ],
    [
      'resources and URLs in one rule',
      [{ level: 'Metadata', nonResourceURLs: ['/x'], resources: [{ group: '' }] }],
      'cannot apply to both',
    ],
    [
      'a URL without a leading slash',
      [{ level: 'Metadata', nonResourceURLs: ['healthz'] }],
      "must begin with a '/'",
    ],
    [
      'names with a wildcard resource',
      [{ level: 'Metadata', resources: [{ resources: ['*'], resourceNames: ['a'] }] }],
      'using resourceNames with wildcard',
    ],
  ])('refuses %s', (_what, rules, message) => {
    expect(() => policy(rules)).toThrow(message);
  });

  it('any document is a policy or an AuditPolicyError, never another failure', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .jsonValue()
            .map((rules) =>
              JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules }),
            ),
        ),
        (text) => {
          try {
            parseAuditPolicy(text, 'f');
          } catch (err) {
            expect(err).toBeInstanceOf(AuditPolicyError);
          }
        },
      ),
    );
  });
});

describe('an apiserver with --audit-policy-file', () => {
  let server: RunningApiServer;
  let dir: { path: string; remove(): void };
  let logPath: string;
  beforeAll(async () => {
    dir = tempDir('listwatch-audit-policy-');
    logPath = join(dir.path, 'audit.log');
    const file = join(dir.path, 'policy.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: audit.k8s.io/v1',
        'kind: Policy',
        'omitStages: [RequestReceived]',
        'rules:',
        '  - level: None',
        '    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]',
        '  - level: RequestResponse',
        '    resources: [{group: "", resources: [configmaps, secrets]}]',
        '  - level: Metadata',
      ].join('\n'),
    );
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
      auditLogPath: logPath,
      auditPolicyFile: file,
    });
  });
  afterAll(async () => {
    await server.close();
    dir.remove();
  });
  const events = (): AuditEvent[] =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditEvent);
  const eventsOf = async (auditID: string) => {
    await expect
      .poll(() => events().filter((e) => e.auditID === auditID).length)
      .toBeGreaterThan(0);
    return events().filter((e) => e.auditID === auditID);
  };

  it('logs a ConfigMap create at RequestResponse: the request and response objects', async () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'audited' },
      data: { k: 'v' },
    };
    const res = await client(server.url).call('POST', '/api/v1/namespaces/default/configmaps', cm, {
      'Audit-ID': 'cm-create',
    });
    expect(res.status).toBe(201);
    const [event, ...rest] = await eventsOf('cm-create');
    expect(rest).toEqual([]);
    expect(event).toMatchObject({
      level: 'RequestResponse',
      stage: 'ResponseComplete',
      requestObject: cm,
      responseObject: { kind: 'ConfigMap', metadata: { name: 'audited', uid: expect.any(String) } },
    });
  });

  it('logs a Secret at Metadata only: its data never reaches the log', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'audited' },
      stringData: { password: 'hunter2' },
    };
    await client(server.url).call('POST', '/api/v1/namespaces/default/secrets', secret, {
      'Audit-ID': 'secret-create',
    });
    const [event] = await eventsOf('secret-create');
    expect(event).toMatchObject({ level: 'Metadata', stage: 'ResponseComplete' });
    expect(event).not.toHaveProperty('requestObject');
    expect(readFileSync(logPath, 'utf8')).not.toContain('hunter2');
    expect(readFileSync(logPath, 'utf8')).not.toContain(Buffer.from('hunter2').toString('base64'));
  });

  it('writes nothing for requests at level None, nor the omitted stage', async () => {
    await fetch(`${server.url}/healthz`, { headers: { 'Audit-ID': 'health' } });
    await client(server.url).call('GET', '/api/v1/namespaces', undefined, { 'Audit-ID': 'list' });
    const [event, ...rest] = await eventsOf('list');
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ level: 'Metadata', stage: 'ResponseComplete' });
    expect(event).not.toHaveProperty('responseObject');
    expect(events().some((e) => e.auditID === 'health')).toBe(false);
    expect(events().some((e) => e.stage === 'RequestReceived')).toBe(false);
  });
});
