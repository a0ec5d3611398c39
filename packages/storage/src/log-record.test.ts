import { describe, expect, it } from 'vitest';
import { toChange } from './log-record.js';
import { plainObjects } from './stored-object.js';

const KEY = '/registry/configmaps/ns/a';
const json = (generation: string) =>
  JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'a' }, data: { generation } });

describe('toChange (etcd3/watcher.go transform)', () => {
  it("a modification's previous object reads back at its own mod revision, the object at the event's", () => {
    const change = toChange(
      {
        revision: 7,
        key: KEY,
        createRevision: 3,
        value: json('2'),
        prev: { value: json('1'), modRevision: 5 },
      },
      plainObjects,
    );
    expect(change).toEqual({
      type: 'MODIFIED',
      key: KEY,
      revision: 7,
      object: {
        kind: 'ConfigMap',
        metadata: { name: 'a', resourceVersion: '7' },
        data: { generation: '2' },
      },
      prevObject: {
        kind: 'ConfigMap',
        metadata: { name: 'a', resourceVersion: '5' },
        data: { generation: '1' },
      },
    });
    expect(change.prevObject).toBe(change.prevObject);
  });

  it('a modification whose previous value does not decode is delivered, its prevObject undefined (a cacher watch never decodes it)', () => {
    const change = toChange(
      {
        revision: 7,
        key: KEY,
        createRevision: 3,
        value: json('2'),
        prev: { value: '{', modRevision: 5 },
      },
      plainObjects,
    );
    expect(change.object.metadata.resourceVersion).toBe('7');
    expect(change.prevObject).toBeUndefined();
  });

  it('a deletion whose previous value does not decode fails (it has no object without it)', () => {
    expect(() =>
      toChange(
        {
          revision: 7,
          key: KEY,
          createRevision: 3,
          value: undefined,
          prev: { value: '{', modRevision: 5 },
        },
        plainObjects,
      ),
    ).toThrow(/not JSON/);
  });
});
