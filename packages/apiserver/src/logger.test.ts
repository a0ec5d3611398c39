import { MemoryStorage } from '@listwatch/storage';
import { describe, expect, it } from 'vitest';
import { jsonLogger } from './logger.js';
import { client, testServer } from './testing/test-server.js';

describe('the apiserver log', () => {
  it('never carries a token, an Authorization header or Secret data', async () => {
    const lines: string[] = [];
    const logger = jsonLogger('debug', (line) => lines.push(line));
    const server = await testServer(new MemoryStorage({ compactionInterval: 0 }), { logger });
    try {
      const api = client(server.url);
      const created = await api.post('/api/v1/namespaces/default/secrets', {
        metadata: { name: 's' },
        data: { password: 'aHVudGVyMg==' },
        stringData: { token: 'plain-s3cret' },
      });
      expect(created.status).toBe(201);
      await api.get('/api/v1/namespaces/default/secrets/s', { Authorization: 'Bearer req-t0ken' });
    } finally {
      await server.close();
    }
    // What a handler could hand the logger: headers, the object, an error quoting a header.
    logger.error('request failed', {
      headers: { authorization: 'Bearer direct-t0ken' },
      object: { kind: 'Secret', metadata: { name: 's' }, data: { k: 'c2VjcmV0' } },
      error: new Error('upstream: Authorization: Bearer err-t0ken'),
    });

    expect(lines.every((line) => line.endsWith('\n'))).toBe(true);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.some((r) => r['msg'] === 'request')).toBe(true);
    expect(records.at(-1)).toMatchObject({
      level: 'error',
      headers: { authorization: '[redacted]' },
    });
    expect(lines.join('')).not.toMatch(
      /aHVudGVyMg==|plain-s3cret|req-t0ken|direct-t0ken|c2VjcmV0|err-t0ken/,
    );
  });
});
