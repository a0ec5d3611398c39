import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { loadEtcdProto } from './etcd3-unary.js';

// The lean Range/Txn path speaks etcd's rpc.proto as kept in this package (proto/README.md);
// Etcd3Storage builds its requests as the etcd3 client's types say. Both must mean the same
// bytes: every field the etcd3 client knows has etcd's number and type, and every enum value
// the client names has etcd's number.

const require = createRequire(import.meta.url);
const protobuf = require('protobufjs') as typeof Protobuf;
const clientProto = new protobuf.Root().loadSync(
  join(dirname(require.resolve('etcd3')), '..', 'proto', 'rpc.proto'),
  { keepCase: true },
);
const ours = loadEtcdProto();

/** Every message and enum under a package, by full name. */
function all(root: Protobuf.Root): Map<string, Protobuf.ReflectionObject> {
  const found = new Map<string, Protobuf.ReflectionObject>();
  const visit = (ns: Protobuf.NamespaceBase): void => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Type || nested instanceof protobuf.Enum)
        found.set(nested.fullName, nested);
      if (nested instanceof protobuf.Namespace) visit(nested);
    }
  };
  visit(root);
  return found;
}

const KV_MESSAGES = [
  '.etcdserverpb.RangeRequest',
  '.etcdserverpb.RangeResponse',
  '.etcdserverpb.TxnRequest',
  '.etcdserverpb.TxnResponse',
  '.etcdserverpb.Compare',
  '.etcdserverpb.RequestOp',
  '.etcdserverpb.ResponseOp',
  '.etcdserverpb.PutRequest',
  '.etcdserverpb.PutResponse',
  '.etcdserverpb.DeleteRangeRequest',
  '.etcdserverpb.DeleteRangeResponse',
  '.etcdserverpb.ResponseHeader',
  '.mvccpb.KeyValue',
];

describe("etcd's proto kept in @listwatch/storage", () => {
  it('has every field of the etcd3 client’s KV messages, with the same number, type and rule', () => {
    const theirs = all(clientProto);
    const mine = all(ours);
    for (const name of KV_MESSAGES) {
      const a = theirs.get(name) as Protobuf.Type;
      const b = mine.get(name) as Protobuf.Type | undefined;
      expect(b, name).toBeDefined();
      for (const field of a.fieldsArray) {
        const same = b!.fields[field.name];
        expect(same, `${name}.${field.name}`).toBeDefined();
        expect([same!.id, same!.type.replace(/^.*\./, ''), same!.repeated]).toEqual([
          field.id,
          field.type.replace(/^.*\./, ''),
          field.repeated,
        ]);
      }
    }
  });

  it('answers to every enum value the etcd3 client names, with etcd’s number', () => {
    const mine = all(ours);
    let checked = 0;
    for (const [name, theirs] of all(clientProto)) {
      if (!(theirs instanceof protobuf.Enum)) continue;
      const ourEnum = mine.get(name) as Protobuf.Enum | undefined;
      if (!ourEnum) continue; // enums of RPCs newer than the etcd kept here
      for (const [value, id] of Object.entries(theirs.values)) {
        expect(ourEnum.values[value], `${name}.${value}`).toBe(id);
        checked++;
      }
    }
    // CompareTarget, CompareResult, SortOrder, SortTarget at least.
    expect(checked).toBeGreaterThan(15);
  });

  it("encodes a Txn built as Etcd3Storage builds it to the bytes the etcd3 client's proto gives", () => {
    const request = {
      compare: [
        { key: Buffer.from('/registry/a'), target: 'Mod', result: 'NotEqual', mod_revision: 7 },
      ],
      success: [{ request_put: { key: Buffer.from('/registry/a'), value: Buffer.from('v') } }],
      failure: [{ request_range: { key: Buffer.from('/registry/a'), sort_order: 'Descend' } }],
    };
    const encode = (root: Protobuf.Root) => {
      const type = root.lookupType('etcdserverpb.TxnRequest');
      return Buffer.from(type.encode(type.fromObject(request)).finish()).toString('hex');
    };
    expect(encode(ours)).toBe(encode(clientProto));
  });
});
