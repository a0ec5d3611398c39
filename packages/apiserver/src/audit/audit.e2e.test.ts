import { tempDir } from '@listwatch/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRbacCluster, type RbacCluster } from '../authorization/rbac-cluster.test-helper.js';
import type { AuditEvent } from './audit-event.js';

// The audit log (--audit-log-path) of what kubectl does, over TLS with bearer tokens and RBAC:
// who did what is there, a Secret's data and the token are not.

let cluster: RbacCluster;
let dir: { path: string; remove(): void };
let logPath: string;

beforeAll(async () => {
  dir = tempDir('listwatch-audit-e2e-');
  logPath = join(dir.path, 'audit.log');
  cluster = await startRbacCluster({ auditLogPath: logPath });
});
afterAll(async () => {
  await cluster.close();
  dir.remove();
});

const events = () =>
  readFileSync(logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent);

it('kubectl create secret is audited as a create of secrets by its user, with the Audit-Id kubectl saw; the data and the token are not written', async () => {
  const created = await cluster.kubectl(
    'admin',
    'create',
    'secret',
    'generic',
    'db',
    '--from-literal=password=hunter2-e2e',
    '-n',
    'default',
    '-v=8',
  );
  expect(created.stdout).toContain('secret/db created');
  // kubectl -v=8 prints the response headers, Audit-Id among them.
  const auditID = /POST https:\S+\/secrets[^\n]*\n(?:[^\n]*\n)*?[^\n]*Audit-Id: ([0-9a-f-]+)/.exec(
    created.stderr,
  )?.[1];
  expect(auditID).toBeDefined();
  await expect.poll(() => events().filter((e) => e.auditID === auditID).length).toBe(2);
  const complete = events().find((e) => e.auditID === auditID && e.stage === 'ResponseComplete');
  expect(complete).toMatchObject({
    verb: 'create',
    user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
    objectRef: { resource: 'secrets', namespace: 'default', apiVersion: 'v1' },
    responseStatus: { code: 201 },
    annotations: { 'authorization.k8s.io/decision': 'allow' },
  });
  expect(complete?.userAgent).toMatch(/^kubectl\//);
  const refused = await cluster.kubectl('alice', 'get', 'secrets', '-n', 'default');
  expect(refused.stderr).toContain('Forbidden');
  await expect
    .poll(() =>
      events().some(
        (e) =>
          e.user.username === 'alice' &&
          e.stage === 'ResponseComplete' &&
          e.annotations?.['authorization.k8s.io/decision'] === 'forbid',
      ),
    )
    .toBe(true);
  const log = readFileSync(logPath, 'utf8');
  expect(log).not.toContain('hunter2-e2e');
  expect(log).not.toContain(Buffer.from('hunter2-e2e').toString('base64'));
  expect(log).not.toContain(cluster.token('admin'));
  expect(log).not.toContain(cluster.token('alice'));
});
