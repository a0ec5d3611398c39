import { describe, expect, it } from 'vitest';
import { decodeProtobuf, encodeProtobuf } from './kube-protobuf.js';

// Request bodies captured from kubectl 1.32 (its typed clients send protobuf): each decodes to
// the JSON kubectl would have sent, and encoding that JSON gives kubectl's bytes back, as Go's
// marshaller writes them (every non-pointer field, pointers only when set).

const cases: { command: string; hex: string; json: unknown }[] = [
  {
    command: 'kubectl create namespace pb',
    hex:
      '6b3873000a0f0a02763112094e616d657370616365121a0a120a02706212001a0022002a00320038004200120' +
      '01a020a001a002200',
    json: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'pb', creationTimestamp: null },
      spec: {},
      status: {},
    },
  },
  {
    command: 'kubectl create configmap cfg --from-literal=a=1',
    hex:
      '6b3873000a0f0a0276311209436f6e6669674d6170121d0a130a0363666712001a0022002a003200380042001' +
      '2060a0161120131' +
      '1a002200',
    json: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', creationTimestamp: null },
      data: { a: '1' },
    },
  },
  {
    command: 'kubectl create serviceaccount pb',
    hex:
      '6b3873000a140a027631120e536572766963654163636f756e7412140a120a02706212001a0022002a0032003800' +
      '42001a002200',
    json: {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'pb', creationTimestamp: null },
    },
  },
  {
    command: 'kubectl create token default',
    hex:
      '6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b656e52657175657374' +
      '121a0a100a0012001a0022002a0032003800420012001a040a0012001a002200',
    json: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { creationTimestamp: null },
      // json:"audiences" and json:"token" lack omitempty: Go writes them (audiences as null).
      spec: { audiences: [] },
      status: { token: '', expirationTimestamp: null },
    },
  },
  {
    command:
      'kubectl create token default --duration=20m --audience a --audience b --bound-object-kind Secret --bound-object-name s',
    hex:
      '6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b656e52657175657374' +
      '12360a100a0012001a0022002a00320038004200121c0a01610a01621a110a065365637265741202' +
      '76311a0173220020b0091a040a0012001a002200',
    json: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { creationTimestamp: null },
      spec: {
        audiences: ['a', 'b'],
        boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' },
        expirationSeconds: 1200,
      },
      status: { token: '', expirationTimestamp: null },
    },
  },
];

describe('protobuf bodies kubectl sends', () => {
  it.each(cases)('`$command` decodes to the JSON kubectl would send', ({ hex, json }) => {
    expect(decodeProtobuf(Buffer.from(hex, 'hex'))).toStrictEqual(json);
  });

  it.each(cases)('`$command` re-encodes to kubectl’s bytes', ({ hex, json }) => {
    expect(Buffer.from(encodeProtobuf(json)).toString('hex')).toBe(hex);
  });
});
