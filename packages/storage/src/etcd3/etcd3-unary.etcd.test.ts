import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createRequire } from 'node:module';
import { EtcdCluster } from '@listwatch/testing';
import type * as Etcd3Module from 'etcd3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3Unary, type KeyValue, type RangeAnswer, type TxnAnswer } from './etcd3-unary.js';
import { HostHealth } from './host-health.js';

// The lean Range/Txn path must answer exactly as the etcd3 client (grpc-js) does: the same
// fields from the same request, the same typed errors, and a call past its deadline cancelled
// as grpc-js cancels it.

const etcd3 = createRequire(import.meta.url)('etcd3') as typeof Etcd3Module;

let etcd: EtcdCluster;
let client: Etcd3Module.Etcd3;
let unary: Etcd3Unary;
beforeAll(async () => {
  etcd = await EtcdCluster.start();
  client = new etcd3.Etcd3({ hosts: etcd.endpoints });
  unary = new Etcd3Unary(etcd.endpoints, new HostHealth(etcd.endpoints), etcd3);
});
afterAll(async () => {
  unary?.close();
  client?.close();
  await etcd?.destroy();
});

const soon = () => Date.now() + 5_000;

/** The call on the lean path, once its session is up (until then it declines: undefined). */
async function lean<T>(call: () => Promise<T> | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const answer = call();
    if (answer) return answer;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the lean path never took the call');
}

const kv = (k: KeyValue) => ({
  key: k.key.toString('utf8'),
  value: k.value.toString('utf8'),
  create_revision: k.create_revision,
  mod_revision: k.mod_revision,
  version: k.version,
});
const range = (r: RangeAnswer) => ({
  revision: r.header.revision,
  kvs: r.kvs.map(kv),
  more: r.more,
  // The etcd3 client gives a zero count as the number 0 (proto-loader's default), others as strings.
  count: String(r.count),
});
const txn = (t: TxnAnswer) => ({
  succeeded: t.succeeded,
  responses: t.responses.map((op) => ({
    range: op.response_range ? range(op.response_range) : null,
    deleted: op.response_delete_range ? op.response_delete_range.prev_kvs.map(kv) : null,
  })),
});

async function rejection(p: Promise<unknown> | undefined): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('etcd3 lean unary path', () => {
  it('a Range answers with the same keys, values, revisions, count and more as the etcd3 client', async () => {
    const prefix = '/unary-range/';
    for (let i = 0; i < 12; i++)
      await client.put(`${prefix}${String(i).padStart(2, '0')}`).value(`v${i}`.repeat(i + 1));
    await client.delete().key(`${prefix}03`);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          from: fc.integer({ min: 0, max: 13 }),
          to: fc.option(fc.integer({ min: 0, max: 14 }), { nil: undefined }),
          limit: fc.integer({ min: 0, max: 5 }),
          keys_only: fc.boolean(),
          count_only: fc.boolean(),
          serializable: fc.boolean(),
        }),
        async ({ from, to, ...options }) => {
          const request = {
            key: Buffer.from(`${prefix}${String(from).padStart(2, '0')}`),
            ...(to === undefined
              ? {}
              : { range_end: Buffer.from(`${prefix}${String(to).padStart(2, '0')}`) }),
            ...options,
          };
          const ours = await lean(() => unary.range(request, soon()));
          const theirs = await client.kv.range(request);
          expect(range(ours)).toEqual(range(theirs as unknown as RangeAnswer));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a Txn answers as the etcd3 client: succeeded, the put, and the failure branch read', async () => {
    const key = (side: string) => Buffer.from(`/unary-txn/${side}`);
    const create = (side: string) => ({
      compare: [
        { key: key(side), target: 'Create' as const, result: 'Equal' as const, create_revision: 0 },
      ],
      success: [{ request_put: { key: key(side), value: Buffer.from('x') } }],
      failure: [{ request_range: { key: key(side) } }],
    });
    const created = await lean(() => unary.txn(create('ours'), soon()));
    const createdTheirs = await client.kv.txn(create('theirs'));
    expect(created.succeeded).toBe(true);
    expect(Number(created.header.revision)).toBeGreaterThan(0);
    expect(txn(created)).toEqual(txn(createdTheirs as unknown as TxnAnswer));
    // Again: the compare fails and the failure branch reads the key as it is.
    const again = await lean(() => unary.txn(create('ours'), soon()));
    expect(again.succeeded).toBe(false);
    const [read] = again.responses;
    expect(read!.response_range.kvs.map(kv)).toEqual([
      {
        key: '/unary-txn/ours',
        value: 'x',
        create_revision: created.header.revision,
        mod_revision: created.header.revision,
        version: '1',
      },
    ]);
    const deleted = await lean(() =>
      unary.txn(
        {
          compare: [
            {
              key: key('ours'),
              target: 'Mod',
              result: 'Equal',
              mod_revision: Number(created.header.revision),
            },
          ],
          success: [{ request_delete_range: { key: key('ours'), prev_kv: true } }],
          failure: [],
        },
        soon(),
      ),
    );
    expect(deleted.responses[0]!.response_delete_range.prev_kvs.map(kv)).toEqual(
      read!.response_range.kvs.map(kv),
    );
  });

  it('etcd errors come back as the same typed errors, with the same message, as from the etcd3 client', async () => {
    await client.put('/unary-err/a').value('1');
    await client.put('/unary-err/a').value('2');
    const { header } = await client.kv.range({ key: Buffer.from('/unary-err/a') });
    await client.kv.compact({ revision: header.revision });
    const requests = [
      // compacted
      { key: Buffer.from('/unary-err/a'), revision: Number(header.revision) - 1 },
      // future
      { key: Buffer.from('/unary-err/a'), revision: Number(header.revision) + 1000 },
    ];
    for (const request of requests) {
      const ours = await rejection(lean(() => unary.range(request, soon())));
      const theirs = await rejection(client.kv.range(request));
      expect(ours.constructor).toBe(theirs.constructor);
      expect(ours.message).toBe(theirs.message);
    }
    const tooLarge = {
      compare: [],
      success: [
        {
          request_put: { key: Buffer.from('/unary-err/big'), value: Buffer.alloc(2 * 1024 * 1024) },
        },
      ],
      failure: [],
    };
    const ours = await rejection(lean(() => unary.txn(tooLarge, soon())));
    const theirs = await rejection(client.kv.txn(tooLarge));
    expect(ours.constructor).toBe(theirs.constructor);
    expect(ours.message).toBe(theirs.message);
  });

  it('a call nobody answers fails with DEADLINE_EXCEEDED once its deadline passes, as from grpc-js', async () => {
    // Accepts the connection and never answers.
    const held = new Set<Socket>();
    const silent = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const stuck = new Etcd3Unary([endpoint], new HostHealth([endpoint]), etcd3);
    try {
      const started = Date.now();
      const err = await rejection(
        lean(() => stuck.range({ key: Buffer.from('/x') }, started + 300)),
      );
      expect(err).toBeInstanceOf(etcd3.GRPCDeadlineExceededError);
      expect(err.message).toBe('4 DEADLINE_EXCEEDED: Deadline exceeded');
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    } finally {
      stuck.close();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
