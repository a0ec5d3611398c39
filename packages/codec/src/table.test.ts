import { ApiError, type KubeList, type KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { asPartialObjectMetadata, asPartialObjectMetadataList } from './partial-object-metadata.js';
import {
  filterTableColumns,
  listToTable,
  objectToTable,
  parseIncludeObject,
  tableColumnDefinitions,
  tableWatchEvent,
} from './table.js';
import { podDefinition } from './testing/pod-definition.js';
import { samplePod } from '@listwatch/testing';

const now = Date.parse('2025-01-01T00:10:00Z');
const pod = samplePod(0); // created 2025-01-01T00:00:00Z
const list: KubeList = {
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '2000', continue: 'token', remainingItemCount: 7 },
  items: [samplePod(0), samplePod(1)],
};

describe('Table (meta.k8s.io/v1)', () => {
  it('column definitions come from the resource definition, every column with its priority', () => {
    const columns = tableColumnDefinitions(podDefinition);
    expect(columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Ready', 0],
      ['Status', 0],
      ['Restarts', 0],
      ['Age', 0],
      ['IP', 1],
      ['Node', 1],
      ['Nominated Node', 1],
      ['Readiness Gates', 1],
    ]);
    expect(columns[0]).toMatchObject({ name: 'Name', type: 'string', format: 'name', priority: 0 });
    expect(columns[0]!.description).toMatch(/^Name must be unique within a namespace/);
    expect(columns[1]!.format).toBe('');
  });

  it('a row has one cell per column, AGE as kubectl prints it', () => {
    const table = objectToTable(podDefinition, pod, { now });
    expect(table.rows[0]!.cells).toEqual([
      pod.metadata.name,
      '2/2',
      'Running',
      expect.any(String),
      '10m',
      (pod as unknown as { status: { podIP: string } }).status.podIP,
      (pod as unknown as { spec: { nodeName: string } }).spec.nodeName,
      '<none>',
      '<none>',
    ]);
  });

  it('rows carry PartialObjectMetadata by default', () => {
    const table = objectToTable(podDefinition, pod, { now });
    expect(table.rows[0]!.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: pod.metadata,
    });
  });

  it('includeObject=Object carries the whole object and None carries null', () => {
    expect(objectToTable(podDefinition, pod, { includeObject: 'Object' }).rows[0]!.object).toBe(
      pod,
    );
    expect(objectToTable(podDefinition, pod, { includeObject: 'None' }).rows[0]!.object).toBeNull();
  });

  it('a list keeps its resourceVersion, continue token and remainingItemCount', () => {
    const table = listToTable(podDefinition, list, { now });
    expect(table).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '2000', continue: 'token', remainingItemCount: 7 },
    });
    expect(table.rows).toHaveLength(2);
  });

  it('a single object table carries the object resourceVersion', () => {
    expect(objectToTable(podDefinition, pod).metadata).toEqual({
      resourceVersion: pod.metadata.resourceVersion,
    });
  });

  it('serializes with Kubernetes field order', () => {
    const json = JSON.stringify(objectToTable(podDefinition, pod, { includeObject: 'None' }));
    expect(json).toMatch(
      /^\{"kind":"Table","apiVersion":"meta.k8s.io\/v1","metadata":\{.*\},"columnDefinitions":\[\{"name":"Name","type":"string","format":"name","description":".*","priority":0\}.*\],"rows":\[\{"cells":\[.*\],"object":null\}\]\}$/,
    );
  });

  it('a v1beta1 Table uses meta.k8s.io/v1beta1 throughout', () => {
    const table = objectToTable(podDefinition, pod, { version: 'v1beta1' });
    expect(table.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect((table.rows[0]!.object as { apiVersion: string }).apiVersion).toBe(
      'meta.k8s.io/v1beta1',
    );
  });

  it('includeObject accepts None, Metadata, Object or empty; anything else is a 400', () => {
    expect(parseIncludeObject(undefined)).toBe('Metadata');
    expect(parseIncludeObject('')).toBe('Metadata');
    expect(parseIncludeObject('Object')).toBe('Object');
    try {
      parseIncludeObject('Everything');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
      expect((error as ApiError).message).toBe(
        `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`,
      );
    }
  });

  it('priority > 0 columns are hidden client-side unless wide', () => {
    const table = objectToTable(podDefinition, pod, { now });
    const narrow = filterTableColumns(table);
    expect(narrow.columnDefinitions!.map((c) => c.name)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
    ]);
    expect(narrow.rows[0]!.cells).toHaveLength(5);
    expect(filterTableColumns(table, { wide: true })).toBe(table);
  });

  it('a row-only watch table is filtered with the first event columns', () => {
    const columns = tableColumnDefinitions(podDefinition);
    const rowsOnly = objectToTable(podDefinition, pod, { noHeaders: true });
    const narrow = filterTableColumns(rowsOnly, { columns });
    expect(narrow.columnDefinitions).toBeNull();
    expect(narrow.rows[0]!.cells).toHaveLength(5);
  });
});

describe('Table watch events (apiserver handlers/response.go doTransformObject)', () => {
  it('noHeaders omits column definitions, written as null like Kubernetes', () => {
    const event = tableWatchEvent(
      podDefinition,
      { type: 'MODIFIED', object: pod },
      { noHeaders: true },
    );
    expect(event.type).toBe('MODIFIED');
    expect(JSON.stringify(event.object)).toContain('"columnDefinitions":null');
  });

  it('an ERROR event keeps its Status', () => {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 410,
      reason: 'Expired',
    } as const;
    const event = tableWatchEvent(podDefinition, { type: 'ERROR', object: status });
    expect(event.object).toBe(status);
  });

  it('a BOOKMARK becomes a row-less Table carrying its resourceVersion', () => {
    const bookmark: KubeObject = {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { resourceVersion: '99' },
    };
    const event = tableWatchEvent(
      podDefinition,
      { type: 'BOOKMARK', object: bookmark },
      { noHeaders: true },
    );
    expect(event.object).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '99' },
      columnDefinitions: null,
      rows: [],
    });
  });
});

describe('PartialObjectMetadata (apiserver handlers/response.go)', () => {
  it('an object becomes its metadata under meta.k8s.io', () => {
    expect(asPartialObjectMetadata(pod)).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: pod.metadata,
    });
  });

  it('a list becomes a PartialObjectMetadataList keeping its list metadata', () => {
    const partial = asPartialObjectMetadataList(list, 'v1beta1');
    expect(partial).toMatchObject({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1beta1',
      metadata: { resourceVersion: '2000', continue: 'token', remainingItemCount: 7 },
    });
    expect(partial.items.map((i) => i.metadata.name)).toEqual(
      list.items.map((i) => i.metadata.name),
    );
  });

  it('asking for the wrong shape is a 406 NotAcceptable', () => {
    expect(() => asPartialObjectMetadata(list)).toThrow(/requested object is a list/);
    expect(() => asPartialObjectMetadataList(pod)).toThrow(/is not a list/);
    try {
      asPartialObjectMetadataList(pod);
    } catch (error) {
      expect((error as ApiError).code).toBe(406);
    }
  });
});
