import { describe, expect, it } from 'vitest';
import { checkSegments, type Seen } from './validate-watch.js';

// The chaos suite's watch checker (etcd-io/etcd tests/robustness/validate/watch.go's guarantees):
// it must flag every way a watcher can diverge from etcd's history.

const history: Seen[] = [
  { type: 'ADDED', name: 'a', rv: 11 },
  { type: 'ADDED', name: 'b', rv: 12 },
  { type: 'MODIFIED', name: 'a', rv: 13 },
  { type: 'DELETED', name: 'b', rv: 14 },
  { type: 'MODIFIED', name: 'a', rv: 15 },
];

describe('the chaos watch checker', () => {
  it('accepts runs that are exactly the history after their LIST, up to their last event', () => {
    expect(
      checkSegments(
        'w',
        [
          { start: 10, events: history.slice(0, 3) },
          { start: 13, events: history.slice(3) },
          { start: 15, events: [] },
        ],
        history,
      ),
    ).toEqual([]);
  });

  it.each([
    ['a gap (Reliable)', [history[0]!, history[2]!]],
    ['a duplicate (Unique)', [history[0]!, history[0]!, history[1]!]],
    ['a reorder (Ordered)', [history[1]!, history[0]!]],
    ['a wrong type', [history[0]!, { ...history[1]!, type: 'MODIFIED' }]],
    ['a resume past the next event (Resumable)', [history[1]!]],
  ])('flags %s', (_name, events) => {
    expect(checkSegments('w', [{ start: 10, events }], history)).toHaveLength(1);
  });
});
