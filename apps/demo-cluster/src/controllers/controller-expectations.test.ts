import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ControllerExpectations } from './controller-expectations.js';

// kubernetes pkg/controller/controller_utils.go (UIDTrackingControllerExpectations).

it('a key nobody set expectations for is satisfied', () => {
  expect(new ControllerExpectations().satisfied('ns/web')).toBe(true);
});

it('expected creations are satisfied only once each was observed, in any order with other keys', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 20 }), (n, others) => {
      const e = new ControllerExpectations();
      e.expectCreations('ns/web', n);
      e.expectCreations('ns/api', others);
      for (let i = 0; i < n; i++) {
        expect(e.satisfied('ns/web')).toBe(false);
        e.creationObserved('ns/web');
        if (i < others) e.creationObserved('ns/api');
      }
      expect(e.satisfied('ns/web')).toBe(true);
    }),
  );
});

it('expected deletions are tracked by pod: deleting some other pod satisfies nothing', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1 }), (names) => {
      const e = new ControllerExpectations();
      e.expectDeletions(
        'ns/web',
        names.map((n) => `ns/${n}`),
      );
      e.deletionObserved('ns/web', 'ns/NOT-OURS');
      e.deletionObserved('ns/web', `ns/${names[0]}`);
      e.deletionObserved('ns/web', `ns/${names[0]}`);
      expect(e.satisfied('ns/web')).toBe(names.length === 1);
      for (const n of names) e.deletionObserved('ns/web', `ns/${n}`);
      expect(e.satisfied('ns/web')).toBe(true);
    }),
  );
});

it('unobserved expectations expire after their TTL, so a lost watch event cannot stall a ReplicaSet', () => {
  let t = 0;
  const e = new ControllerExpectations(1000, () => t);
  e.expectCreations('ns/web', 3);
  t = 1000;
  expect(e.satisfied('ns/web')).toBe(false);
  t = 1001;
  expect(e.satisfied('ns/web')).toBe(true);
});

it('forgetting a key satisfies it', () => {
  const e = new ControllerExpectations();
  e.expectCreations('ns/web', 2);
  e.delete('ns/web');
  expect(e.satisfied('ns/web')).toBe(true);
});
