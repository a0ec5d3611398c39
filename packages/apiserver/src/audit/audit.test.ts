import { MemoryStorage } from '@listwatch/storage';
import type { KubeObject } from '@listwatch/api';
import { tempDir } from '@listwatch/testing';
import fc from 'fast-check';
import { once } from 'node:events';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { parseArgs } from '../cli.js';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';
import type { AuditEvent } from './audit-event.js';
import { FileAuditLog } from './audit-log.js';

// The audit log of k8s.io/apiserver (endpoints/filters/audit.go, audit_init.go, authn_audit.go;
// pkg/apis/audit/v1 Event) at level Metadata, written to --audit-log-path as JSON lines.

/** Memory storage whose reads of one key fail on a bug (a TypeError), not a storage error. */
class BuggyStorage extends MemoryStorage {
  override get(key: string): Promise<KubeObject | undefined> {
    if (key.endsWith('/panics')) return Promise.reject(new TypeError('x is not a function'));
    return super.get(key);
  }
}

let server: RunningApiServer;
let dir: { path: string; remove(): void };
let logPath: string;
const TOKENS = { admin: 'admin-secret-token', alice: 'alice-secret-token' };

beforeAll(async () => {
  dir = tempDir('listwatch-audit-');
  logPath = join(dir.path, 'audit.log');
  const tokens = join(dir.path, 'tokens.csv');
  writeFileSync(tokens, `${TOKENS.admin},admin,1,"system:masters"\n${TOKENS.alice},alice,2\n`);
  server = await testServer(new BuggyStorage({ compactionInterval: 0 }), {
    tokenAuthFile: tokens,
    authorizationMode: ['RBAC'],
    auditLogPath: logPath,
  });
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

function events(): AuditEvent[] {
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent);
}

/** The events of one request, once its last stage is written. */
async function eventsOf(auditID: string, stages = 2): Promise<AuditEvent[]> {
  await expect.poll(() => events().filter((e) => e.auditID === auditID).length).toBe(stages);
  return events().filter((e) => e.auditID === auditID);
}

async function call(
  who: keyof typeof TOKENS | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'audit-test/1.0',
      ...(who ? { authorization: `Bearer ${TOKENS[who]}` } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, auditID: res.headers.get('audit-id') ?? '', text };
}

const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('audit events', () => {
  it('a request is RequestReceived then ResponseComplete, as an audit.k8s.io/v1 Event at level Metadata; Audit-Id names it', async () => {
    const res = await call('admin', 'GET', '/api/v1/namespaces/default/configmaps?limit=5');
    expect(res.status).toBe(200);
    expect(res.auditID).toMatch(/^[0-9a-f-]{36}$/);
    const [received, complete] = await eventsOf(res.auditID);
    const common = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: res.auditID,
      requestURI: '/api/v1/namespaces/default/configmaps?limit=5',
      verb: 'list',
      user: { username: 'admin', uid: '1', groups: ['system:masters', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'audit-test/1.0',
      objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
    };
    expect(received).toEqual({
      ...common,
      stage: 'RequestReceived',
      requestReceivedTimestamp: received!.requestReceivedTimestamp,
      stageTimestamp: received!.requestReceivedTimestamp,
    });
    expect(complete).toEqual({
      ...common,
      stage: 'ResponseComplete',
      responseStatus: { metadata: {}, code: 200 },
      requestReceivedTimestamp: received!.requestReceivedTimestamp,
      stageTimestamp: complete!.stageTimestamp,
      // system:masters are allowed by the privileged-group authorizer, which gives no reason.
      annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
    });
    expect(received!.requestReceivedTimestamp).toMatch(MICRO_TIME);
    expect(complete!.stageTimestamp >= received!.stageTimestamp).toBe(true);
  });

  it('an Audit-ID the client sends is used and echoed as is', async () => {
    const res = await call('admin', 'GET', '/version', undefined, { 'audit-id': 'my-own-id' });
    expect(res.auditID).toBe('my-own-id');
    const [received] = await eventsOf('my-own-id');
    expect(received).toMatchObject({ verb: 'get', requestURI: '/version' });
    expect(received!.objectRef).toBeUndefined();
  });

  it("a refused request has the 403 Status and RBAC's decision; an allowed one RBAC's reason", async () => {
    const refused = await call('alice', 'GET', '/api/v1/namespaces/default/secrets');
    expect(refused.status).toBe(403);
    const [, complete] = await eventsOf(refused.auditID);
    expect(complete!.annotations).toEqual({
      'authorization.k8s.io/decision': 'forbid',
      'authorization.k8s.io/reason': '',
    });
    expect(complete!.responseStatus).toMatchObject({
      metadata: {},
      status: 'Failure',
      message:
        'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default"',
      reason: 'Forbidden',
      details: { kind: 'secrets' },
      code: 403,
    });
    const allowed = await call('alice', 'GET', '/version');
    const [, ok] = await eventsOf(allowed.auditID);
    expect(ok!.annotations?.['authorization.k8s.io/reason']).toMatch(
      /^RBAC: allowed by ClusterRoleBinding "(system:discovery|system:public-info-viewer)" of ClusterRole "\1" to Group "system:authenticated"$/,
    );
  });

  it('a failed credential is one ResponseStarted event with 401 and what was attempted', async () => {
    const res = await fetch(`${server.url}/api/v1/pods`, {
      headers: { authorization: 'Bearer not-a-token' },
    });
    expect(res.status).toBe(401);
    const auditID = res.headers.get('audit-id') ?? '';
    const [only] = await eventsOf(auditID, 1);
    expect(only).toMatchObject({
      stage: 'ResponseStarted',
      verb: 'list',
      user: {},
      responseStatus: {
        metadata: {},
        message: 'Authentication failed, attempted: bearer',
        code: 401,
      },
    });
  });

  it('an impersonated request names the requester as user and the impersonated as impersonatedUser', async () => {
    const res = await call('admin', 'GET', '/version', undefined, { 'impersonate-user': 'alice' });
    const [received, complete] = await eventsOf(res.auditID);
    expect(received!.user.username).toBe('admin');
    expect(received!.impersonatedUser).toBeUndefined();
    expect(complete!.user.username).toBe('admin');
    expect(complete!.impersonatedUser).toEqual({
      username: 'alice',
      groups: ['system:authenticated'],
    });
  });

  it('a watch is RequestReceived, ResponseStarted with its 200, then ResponseComplete when it ends', async () => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?watch=1`, {
      headers: { authorization: `Bearer ${TOKENS.admin}` },
      signal: abort.signal,
    });
    const auditID = res.headers.get('audit-id') ?? '';
    const [, started] = await eventsOf(auditID, 2);
    expect(started).toMatchObject({ stage: 'ResponseStarted', verb: 'watch' });
    expect(started!.responseStatus).toEqual({ metadata: {}, code: 200 });
    abort.abort();
    const stages = (await eventsOf(auditID, 3)).map((e) => e.stage);
    expect(stages).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
  });

  it('a WebSocket watch is audited too, its 101 carrying the Audit-Id', async () => {
    const ws = new WebSocket(
      `${server.url.replace('http', 'ws')}/api/v1/namespaces/default/configmaps?watch=1`,
      { headers: { authorization: `Bearer ${TOKENS.admin}`, origin: server.url } },
    );
    const [response] = (await once(ws, 'upgrade')) as [{ headers: Record<string, string> }];
    const auditID = response.headers['audit-id'] ?? '';
    expect(auditID).not.toBe('');
    await eventsOf(auditID, 2);
    ws.close();
    const last = (await eventsOf(auditID, 3))[2]!;
    expect(last).toMatchObject({ stage: 'ResponseComplete', responseStatus: { code: 101 } });
  });

  it('a request that fails on a bug is a Panic event with a 500', async () => {
    const res = await call('admin', 'GET', '/api/v1/namespaces/default/configmaps/panics');
    expect(res.status).toBe(500);
    const [, panic] = await eventsOf(res.auditID);
    expect(panic).toMatchObject({
      stage: 'Panic',
      responseStatus: {
        status: 'Failure',
        reason: 'InternalError',
        message: "APIServer panic'd: x is not a function",
        code: 500,
      },
    });
  });

  it("neither a Secret's data nor a bearer token is ever written; the log is private (0600)", async () => {
    const secret = {
      metadata: { name: 'db' },
      data: { password: Buffer.from('hunter2-password').toString('base64') },
      stringData: { apiKey: 'sk-live-abcdef' },
    };
    const res = await call('admin', 'POST', '/api/v1/namespaces/default/secrets', secret);
    expect(res.status).toBe(201);
    const [, complete] = await eventsOf(res.auditID);
    expect(complete).toMatchObject({
      verb: 'create',
      objectRef: { resource: 'secrets', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { code: 201 },
    });
    const log = readFileSync(logPath, 'utf8');
    for (const secretText of [
      'hunter2-password',
      secret.data.password,
      'sk-live-abcdef',
      TOKENS.admin,
      TOKENS.alice,
      'not-a-token',
    ])
      expect(log).not.toContain(secretText);
    expect(statSync(logPath).mode & 0o777).toBe(0o600);
  });

  it('--audit-log-path sets the path; its help says there is no policy file', () => {
    expect(parseArgs(['--audit-log-path', '/var/log/audit.log']).options.auditLogPath).toBe(
      '/var/log/audit.log',
    );
  });
});

describe('the audit writer (fuzz)', () => {
  it('events with any strings in them are one JSON line each, read back as written (property)', () => {
    const file = join(dir.path, 'fuzz.log');
    const log = new FileAuditLog(file);
    const written: AuditEvent[] = [];
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, text, fc.array(text, { maxLength: 3 }), (uri, agent, id, groups) => {
        const event: AuditEvent = {
          kind: 'Event',
          apiVersion: 'audit.k8s.io/v1',
          level: 'Metadata',
          auditID: id,
          stage: 'RequestReceived',
          requestURI: uri,
          verb: 'get',
          user: { username: agent, groups },
          userAgent: agent,
          requestReceivedTimestamp: '2024-01-01T00:00:00.000000Z',
          stageTimestamp: '2024-01-01T00:00:00.000000Z',
        };
        written.push(event);
        return log.process(event);
      }),
      { numRuns: 200 },
    );
    log.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.length).toBe(written.length);
    // Lone surrogates come back as U+FFFD through UTF-8; everything else as it was.
    const wellFormed = (value: unknown) =>
      JSON.parse(JSON.stringify(value).replace(/\\ud[89a-f][0-9a-f]{2}/gi, '\\ufffd')) as unknown;
    lines.forEach((line, i) => expect(JSON.parse(line)).toEqual(wellFormed(written[i])));
  });

  it('arbitrary request paths and header values sent to the server never break the log (property)', async () => {
    const before = events().length;
    // What a client can put on the request line and in header values: anything but CR, LF, NUL
    // and, in the target, spaces; bytes above 0x7f included.
    const target = fc.string({
      unit: fc.integer({ min: 0x21, max: 0xff }).map((c) => String.fromCharCode(c)),
      maxLength: 60,
    });
    const value = fc.string({
      unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
      maxLength: 60,
    });
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(target, value, value, value, async (path, agent, forwarded, auditID) => {
        const socket = connect(server.port, '127.0.0.1');
        await once(socket, 'connect');
        let answer = '';
        socket.setEncoding('latin1').on('data', (d: string) => (answer += d));
        socket.write(
          Buffer.from(
            [
              `GET /${path} HTTP/1.1`,
              'Host: 127.0.0.1',
              `User-Agent: ${agent}`,
              `X-Forwarded-For: ${forwarded}`,
              `Audit-ID: ${auditID}`,
              `Authorization: Bearer ${TOKENS.admin}`,
              'Connection: close',
              '',
              '',
            ].join('\r\n'),
            'latin1',
          ),
        );
        await once(socket, 'close');
        if (/^HTTP\/1\.1 [2-5]\d\d/.test(answer) && /audit-id:/i.test(answer)) sent++;
      }),
      { numRuns: 60 },
    );
    // Every line parses as an Event; every request that reached the server wrote at least one
    // (a request refused before it is served has a single stage).
    await expect.poll(() => events().length - before).toBeGreaterThanOrEqual(sent);
    const raw = readFileSync(logPath, 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    for (const line of raw.split('\n').filter(Boolean)) {
      const event = JSON.parse(line) as AuditEvent;
      expect(event.kind).toBe('Event');
      expect(typeof event.requestURI).toBe('string');
    }
    expect(raw).not.toContain(TOKENS.admin);
  });
});
