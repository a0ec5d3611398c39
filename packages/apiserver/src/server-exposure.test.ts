import { MemoryStorage } from '@listwatch/storage';
import { silentLogger } from '@listwatch/testing';
import { describe, expect, it } from 'vitest';
import { parseArgs } from './cli.js';
import { startApiServer, type ApiServerOptions } from './server.js';
import { client } from './testing/test-server.js';

// The defaults (anonymous requests, AlwaysAllow) make whoever connects cluster-admin: the server
// serves them on loopback only, unless told with insecureAllowAnonymousAdmin.

const start = (options: ApiServerOptions) =>
  startApiServer({
    storage: new MemoryStorage({ compactionInterval: 0 }),
    port: 0,
    logger: silentLogger,
    ...options,
  });

describe('serving anonymous cluster-admin off loopback', () => {
  it('is refused at start with the defaults, naming the flags to add', async () => {
    for (const options of [
      { bindAddress: '0.0.0.0' },
      { bindAddress: '::' },
      { bindAddress: '0.0.0.0', authorizationMode: ['RBAC', 'AlwaysAllow'] },
    ] satisfies ApiServerOptions[]) {
      const refused = start(options);
      await expect(refused).rejects.toThrow(/refusing to serve on/);
      const message = await refused.catch((err: Error) => err.message);
      for (const flag of [
        '--token-auth-file',
        '--client-ca-file',
        '--anonymous-auth=false',
        '--authorization-mode RBAC',
        '--insecure-allow-anonymous-admin',
      ])
        expect(message).toContain(flag);
    }
  });

  it('is not what RBAC or --anonymous-auth=false serve: those start off loopback, anonymous requests getting what RBAC grants (version) or 401', async () => {
    const rbac = await start({ bindAddress: '0.0.0.0', authorizationMode: ['RBAC'] });
    try {
      expect((await client(rbac.url).get('/api/v1/namespaces')).status).toBe(403);
      expect((await client(rbac.url).get('/version')).status).toBe(200);
    } finally {
      await rbac.close();
    }
    const noAnonymous = await start({ bindAddress: '0.0.0.0', anonymousAuth: false });
    try {
      expect((await client(noAnonymous.url).get('/api/v1/namespaces')).status).toBe(401);
    } finally {
      await noAnonymous.close();
    }
  });

  it('is served when asked for with insecureAllowAnonymousAdmin, with a warning in the log', async () => {
    const warnings: unknown[] = [];
    const server = await start({
      bindAddress: '0.0.0.0',
      insecureAllowAnonymousAdmin: true,
      logger: { ...silentLogger, warn: (...args: unknown[]) => warnings.push(args) },
    });
    try {
      expect((await client(server.url).get('/api/v1/namespaces')).status).toBe(200);
      expect(JSON.stringify(warnings)).toContain('cluster-admin');
    } finally {
      await server.close();
    }
  });

  it('is what loopback serves by default, as before', async () => {
    for (const bindAddress of [undefined, '127.0.0.1', '::1']) {
      const server = await start(bindAddress === undefined ? {} : { bindAddress });
      try {
        expect((await client(server.url).get('/api/v1/namespaces')).status).toBe(200);
      } finally {
        await server.close();
      }
    }
  });
});

describe('--insecure-allow-anonymous-admin', () => {
  it('is a boolean flag: alone it is true, =false turns it off, and it takes no separate argument', () => {
    expect(parseArgs(['--insecure-allow-anonymous-admin', '--port', '0']).options).toEqual({
      insecureAllowAnonymousAdmin: true,
      port: 0,
    });
    expect(
      parseArgs(['--insecure-allow-anonymous-admin=false']).options.insecureAllowAnonymousAdmin,
    ).toBe(false);
    expect(() => parseArgs(['--insecure-allow-anonymous-admin', 'true'])).toThrow(
      /unexpected argument "true"/,
    );
  });
});
