import { beforeAll, inject } from 'vitest';

// A setup file of the tiers with prerequisites: when the global setup found one missing, every
// test file of the tier fails with what it needs and how to install it, before its own hooks run.
const missing = inject('listwatchMissing');
if (missing) {
  beforeAll(() => {
    throw new Error(missing);
  });
}
