import { describe, expect, it } from 'vitest';
import { errorField, jsonLineLogger, redact, REDACTED, silentLogger } from './logger.js';

function recording(level: 'debug' | 'warn' = 'debug') {
  const lines: string[] = [];
  return { lines, logger: jsonLineLogger({ level, write: (l) => lines.push(l) }) };
}

const SECRET = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'ns' },
  data: { password: 'aHVudGVyMg==' },
  stringData: { token: 'plain-token' },
};

describe('redact', () => {
  it('hides credential fields at any depth, whatever their case', () => {
    expect(
      redact({
        Authorization: 'Bearer abc',
        request: { headers: { 'proxy-authorization': 'Basic dTpw', accept: 'application/json' } },
        config: { token: 't', password: 'p', 'client-key-data': 'k', clientSecret: 's' },
        users: [{ name: 'u', user: { 'id-token': 'jwt' } }],
        cookie: 'session=1',
      }),
    ).toEqual({
      Authorization: REDACTED,
      request: { headers: { 'proxy-authorization': REDACTED, accept: 'application/json' } },
      config: {
        token: REDACTED,
        password: REDACTED,
        'client-key-data': REDACTED,
        clientSecret: REDACTED,
      },
      users: [{ name: 'u', user: { 'id-token': REDACTED } }],
      cookie: REDACTED,
    });
  });

  it("hides a Secret's data and stringData, in a SecretList too, and keeps its metadata", () => {
    const { data: _data, stringData: _stringData, ...rest } = SECRET;
    expect(redact({ object: SECRET })).toEqual({
      object: { ...rest, data: REDACTED, stringData: REDACTED },
    });
    const list = { kind: 'SecretList', items: [{ metadata: { name: 'a' }, data: { k: 'dg==' } }] };
    expect(redact({ list })).toEqual({
      list: { kind: 'SecretList', items: [{ metadata: { name: 'a' }, data: REDACTED }] },
    });
    expect(redact({ object: { kind: 'ConfigMap', data: { k: 'v' } } })).toEqual({
      object: { kind: 'ConfigMap', data: { k: 'v' } },
    });
  });

  it('hides credentials inside text: bearer and basic credentials, URL passwords, private keys', () => {
    expect(
      redact({
        error: 'upstream said: Authorization: Bearer eyJhbGciOi.x-y_z~ is invalid',
        basic: 'authorization basic dXNlcjpwYXNz',
        proxy: 'http://user:s3cret@proxy:3128/',
        pem: '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
      }),
    ).toEqual({
      error: `upstream said: Authorization: Bearer ${REDACTED} is invalid`,
      basic: `authorization basic ${REDACTED}`,
      proxy: `http://${REDACTED}@proxy:3128/`,
      pem: REDACTED,
    });
  });

  it('keeps what a reader needs: keys, resources, errors as their message; never changes its input', () => {
    const fields = { key: 'ns/name', resource: 'secrets', error: new Error('boom'), n: 1n };
    expect(redact(fields)).toEqual({ key: 'ns/name', resource: 'secrets', error: 'boom', n: '1' });
    expect(fields.error).toBeInstanceOf(Error);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(redact({ cyclic })).toEqual({ cyclic: { a: 1, self: '[circular]' } });
  });
});

describe('jsonLineLogger', () => {
  it('writes one JSON line per call, {ts, level, logger, msg, ...fields}, redacted', () => {
    const lines: string[] = [];
    const logger = jsonLineLogger({ level: 'info', name: 'test', write: (l) => lines.push(l) });
    logger.info('connected', { server: 'https://x', token: 'abc', object: SECRET });
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(record).slice(0, 4)).toEqual(['ts', 'level', 'logger', 'msg']);
    expect(record).toMatchObject({
      level: 'info',
      logger: 'test',
      msg: 'connected',
      token: REDACTED,
    });
    expect(Date.parse(record['ts'] as string)).not.toBeNaN();
    expect(lines[0]).not.toMatch(/abc|aHVudGVyMg|plain-token/);
  });

  it('writes at or above its level (warn by default), and redacts the message too', () => {
    const { lines, logger } = recording('warn');
    logger.debug('d');
    logger.info('i');
    logger.warn('sent Bearer abc');
    logger.error('e', { error: new Error('x') });
    expect(lines.map((l) => JSON.parse(l) as { msg: string })).toMatchObject([
      { level: 'warn', msg: `sent Bearer ${REDACTED}` },
      { level: 'error', msg: 'e', error: 'x' },
    ]);
  });

  it('silentLogger and errorField', () => {
    expect(() => silentLogger.error('nothing')).not.toThrow();
    expect(errorField(new Error('m'))).toBe('m');
    expect(errorField('s')).toBe('s');
  });
});
