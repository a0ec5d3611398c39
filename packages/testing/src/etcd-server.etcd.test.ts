import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from './etcd-server.js';

async function put(endpoint: string, key: string, value: string): Promise<void> {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const res = await fetch(`${endpoint}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({ key: b64(key), value: b64(value) }),
  });
  expect(res.status).toBe(200);
}

async function get(endpoint: string, key: string): Promise<string | undefined> {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const res = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: b64(key) }),
  });
  const body = (await res.json()) as { kvs?: { value: string }[] };
  const value = body.kvs?.[0]?.value;
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString();
}

describe('the etcd test harness', () => {
  let cluster: EtcdCluster;
  beforeAll(async () => {
    cluster = await EtcdCluster.start();
  });
  afterAll(async () => {
    await cluster.destroy();
  });

  it('starts a real etcd on a random loopback port that stores and returns a key', async () => {
    expect(cluster.member.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await put(cluster.member.endpoint, '/registry/test/a', 'hello');
    expect(await get(cluster.member.endpoint, '/registry/test/a')).toBe('hello');
  });

  it('keeps data across a SIGKILL and restart on the same port', async () => {
    await put(cluster.member.endpoint, '/registry/test/b', 'durable');
    await cluster.member.kill();
    expect(cluster.member.running).toBe(false);
    await cluster.member.start();
    expect(await get(cluster.member.endpoint, '/registry/test/b')).toBe('durable');
  });
});

describe('a three-member etcd cluster', () => {
  it('replicates a write made on one member to the others', async () => {
    const cluster = await EtcdCluster.start(3);
    try {
      const [a, , c] = cluster.endpoints;
      await put(a!, '/k', 'v');
      expect(await get(c!, '/k')).toBe('v');
    } finally {
      await cluster.destroy();
    }
  });
});

describe('the etcd test harness on default flags', () => {
  const flags = (cluster: EtcdCluster) =>
    readFileSync(`/proc/${cluster.member.pid}/cmdline`, 'utf8').split('\0');

  it('defaultFlags: true starts etcd as a user runs it (no progress-notify interval); the test flags otherwise', async () => {
    const plain = await EtcdCluster.start(1, { defaultFlags: true });
    const harness = await EtcdCluster.start(1, { defaultFlags: false });
    try {
      expect(flags(plain).filter((f) => /progress-notify/.test(f))).toEqual([]);
      expect(flags(harness)).toContain('--experimental-watch-progress-notify-interval=1s');
      await put(plain.member.endpoint, '/registry/test/c', 'plain');
      expect(await get(plain.member.endpoint, '/registry/test/c')).toBe('plain');
    } finally {
      await plain.destroy();
      await harness.destroy();
    }
  });
});
