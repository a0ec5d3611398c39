import { openApiV2Messages } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { encodeOpenApiV2Protobuf } from './openapi-v2.js';
import { readFields } from './wire.js';

/** Reads a message back by the same descriptors: fields by name, repeated ones as lists. */
function decode(type: string, bytes: Uint8Array): Record<string, unknown> {
  const fields = openApiV2Messages[type] ?? [];
  const out: Record<string, unknown> = {};
  for (const f of readFields(bytes)) {
    const field = fields.find((d) => d.number === f.field);
    if (!field) throw new Error(`${type}: unknown field ${f.field}`);
    let value: unknown;
    if (field.type === 'string') value = Buffer.from(f.value as Uint8Array).toString('utf8');
    else if (field.type === 'bool') value = (f.value as bigint) !== 0n;
    else if (field.type === 'int64') value = Number(f.value);
    else if (field.type === 'double') value = Buffer.from(f.value as Uint8Array).readDoubleLE(0);
    else value = decode(field.type, f.value as Uint8Array);
    if (field.repeated) ((out[field.name] ??= []) as unknown[]).push(value);
    else out[field.name] = value;
  }
  return out;
}

const document = {
  swagger: '2.0',
  info: { title: 'Kubernetes', version: 'v1.32.0' },
  paths: {
    '/api/v1/namespaces/{namespace}/pods': {
      get: {
        operationId: 'listCoreV1NamespacedPod',
        parameters: [{ $ref: '#/parameters/limit-1NfNmdNH' }],
        responses: {
          '200': {
            description: 'OK',
            schema: { $ref: '#/definitions/io.k8s.api.core.v1.PodList' },
          },
        },
        'x-kubernetes-action': 'list',
      },
      parameters: [
        { name: 'namespace', in: 'path', required: true, type: 'string', uniqueItems: true },
      ],
    },
  },
  definitions: {
    'io.k8s.api.core.v1.Pod': {
      description: 'Pod is a collection of containers.',
      type: 'object',
      required: ['spec'],
      properties: {
        spec: { $ref: '#/definitions/io.k8s.api.core.v1.PodSpec' },
        labels: { type: 'object', additionalProperties: { type: 'string', default: '' } },
        finalizers: { type: 'array', items: { type: 'string' } },
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'Pod', version: 'v1' }],
    },
  },
  securityDefinitions: {
    BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' },
  },
  security: [{ BearerToken: [] }],
};

describe('OpenAPI v2 in gnostic protobuf', () => {
  it('maps the document as gnostic does: $ref as _ref, maps as named lists, extensions as YAML', () => {
    const doc = decode('Document', encodeOpenApiV2Protobuf(document));
    expect(doc['swagger']).toBe('2.0');
    expect(doc['info']).toEqual({ title: 'Kubernetes', version: 'v1.32.0' });
    const definitions = (doc['definitions'] as { additional_properties: unknown[] })
      .additional_properties;
    expect(definitions).toEqual([
      {
        name: 'io.k8s.api.core.v1.Pod',
        value: {
          description: 'Pod is a collection of containers.',
          required: ['spec'],
          type: { value: ['object'] },
          properties: {
            additional_properties: [
              { name: 'spec', value: { _ref: '#/definitions/io.k8s.api.core.v1.PodSpec' } },
              {
                name: 'labels',
                value: {
                  type: { value: ['object'] },
                  additional_properties: {
                    schema: { type: { value: ['string'] }, default: { yaml: '""\n' } },
                  },
                },
              },
              {
                name: 'finalizers',
                value: {
                  type: { value: ['array'] },
                  items: { schema: [{ type: { value: ['string'] } }] },
                },
              },
            ],
          },
          vendor_extension: [
            {
              name: 'x-kubernetes-group-version-kind',
              value: { yaml: '[{"group":"","kind":"Pod","version":"v1"}]\n' },
            },
          ],
        },
      },
    ]);
    const path = (doc['paths'] as { path: { name: string; value: Record<string, unknown> }[] })
      .path[0];
    expect(path?.name).toBe('/api/v1/namespaces/{namespace}/pods');
    expect(path?.value['parameters']).toEqual([
      {
        parameter: {
          non_body_parameter: {
            path_parameter_sub_schema: {
              required: true,
              in: 'path',
              name: 'namespace',
              type: 'string',
              unique_items: true,
            },
          },
        },
      },
    ]);
    expect(path?.value['get']).toMatchObject({
      operation_id: 'listCoreV1NamespacedPod',
      parameters: [{ json_reference: { _ref: '#/parameters/limit-1NfNmdNH' } }],
      responses: {
        response_code: [
          {
            name: '200',
            value: {
              response: {
                description: 'OK',
                schema: { schema: { _ref: '#/definitions/io.k8s.api.core.v1.PodList' } },
              },
            },
          },
        ],
      },
      vendor_extension: [{ name: 'x-kubernetes-action', value: { yaml: '"list"\n' } }],
    });
    expect(doc['security_definitions']).toEqual({
      additional_properties: [
        {
          name: 'BearerToken',
          value: { api_key_security: { type: 'apiKey', name: 'authorization', in: 'header' } },
        },
      ],
    });
    expect(doc['security']).toEqual([
      { additional_properties: [{ name: 'BearerToken', value: {} }] },
    ]);
  });
});
