import { silentLogger } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { TestCa } from '@listwatch/testing';
import fc from 'fast-check';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../server.js';

// The user of a client certificate is its subject's CN and groups its O values, nothing else
// (k8s.io/apiserver pkg/authentication/request/x509 CommonNameUserConversion): no CN spelling,
// however hostile, adds a group or changes the name.

/** openssl -subj escaping: `\`, `/` and `+` (which would start another RDN or attribute). */
const escape = (value: string) => value.replace(/[\\/+]/g, (c) => `\\${c}`);

describe('client certificate subjects', () => {
  const ca = new TestCa();
  let server: RunningApiServer;
  beforeAll(async () => {
    const serving = ca.server();
    server = await startApiServer({
      storage: new MemoryStorage({ compactionInterval: 0 }),
      port: 0,
      logger: silentLogger,
      tlsCert: serving.cert,
      tlsKey: serving.key,
      clientCA: ca.cert,
      anonymousAuth: false,
    });
  });
  afterAll(async () => {
    await server.close();
    ca.remove();
  });

  /** Who the server says the holder of `cert` is (SelfSubjectReview, `kubectl auth whoami`). */
  function whoami(cert: {
    cert: string;
    key: string;
  }): Promise<{ status: number; user: { username?: string; groups?: string[] } | undefined }> {
    return new Promise((resolve, reject) => {
      const req = request(`${server.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        method: 'POST',
        ca: ca.cert,
        cert: cert.cert,
        key: cert.key,
        headers: { 'content-type': 'application/json' },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString()) as {
            status?: { userInfo?: { username?: string; groups?: string[] } };
          };
          resolve({ status: res.statusCode ?? 0, user: body.status?.userInfo });
        });
      });
      req.on('error', reject);
      req.end(
        JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      );
    });
  }

  it.each([
    ['a slash', 'alice/O=system:masters'],
    ['a newline', 'alice\nO=system:masters'],
    ['a comma', 'alice, O=system:masters'],
    ['a plus', 'alice+O=system:masters'],
    ['quotes and backslashes', '"alice\\", O=system:masters'],
    ['non-ASCII', 'ålice ✓ O=system:masters'],
  ])('a CN with %s is the user name as written, with no group', async (_what, cn) => {
    const reply = await whoami(ca.client(escape(cn)));
    expect(reply).toEqual({
      status: 201,
      user: { username: cn, groups: ['system:authenticated'] },
    });
  });

  it('any CN and O values are the name and the groups, exactly', async () => {
    const text = fc
      .string({
        unit: fc.constantFrom(...'aé/+,=\n"\\ O:system-masters'.split('')),
        minLength: 1,
        maxLength: 24,
      })
      .filter((s) => s.trim() === s && s.trim() !== '');
    await fc.assert(
      fc.asyncProperty(text, fc.uniqueArray(text, { maxLength: 2 }), async (cn, groups) => {
        const reply = await whoami(ca.client(escape(cn), groups.map(escape)));
        expect(reply).toEqual({
          status: 201,
          user: { username: cn, groups: [...groups, 'system:authenticated'] },
        });
      }),
      { numRuns: 25 },
    );
  });
});
