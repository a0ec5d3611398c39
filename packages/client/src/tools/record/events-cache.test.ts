import type { Event as CoreV1Event } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../util/fake-clock.js';
import { AGGREGATE_MESSAGE_PREFIX, EventCorrelator } from './events-cache.js';

let seq = 0;
function event(message: string, object = 'web', reason = 'Failed'): CoreV1Event {
  return {
    metadata: { namespace: 'ns', name: `${object}.${seq++}` },
    involvedObject: { kind: 'Pod', namespace: 'ns', name: object, uid: `uid-${object}` },
    source: { component: 'kubelet' },
    type: 'Warning',
    reason,
    message,
    count: 1,
  };
}

const written = (c: EventCorrelator, e: CoreV1Event) => {
  const r = c.correlate(e);
  if (r.skip) throw new Error('skipped');
  return r;
};

// client-go tools/record/events_cache.go, with its constants.
describe('EventCorrelator', () => {
  it('an identical event counts up the first one (same name, count + 1): an update, not a create', () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    const first = written(c, event('pulling image'));
    expect(first.update).toBe(false);
    const second = written(c, event('pulling image'));
    expect(second.update).toBe(true);
    expect(second.event.metadata.name).toBe(first.event.metadata.name);
    expect(second.event.count).toBe(2);
    expect(written(c, event('pulling image')).event.count).toBe(3);
  });

  it('the 10th similar event within 10 minutes (same object, type, reason; another message) is combined, and later ones count it up', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    for (let i = 1; i <= 9; i++) {
      const r = written(c, event(`message ${i}`));
      expect(r.event.message).toBe(`message ${i}`);
    }
    const tenth = written(c, event('message 10'));
    expect(tenth.event.message).toBe(`${AGGREGATE_MESSAGE_PREFIX}message 10`);
    expect(tenth.update).toBe(false);
    const eleventh = written(c, event('message 11'));
    expect(eleventh.event.message).toBe(`${AGGREGATE_MESSAGE_PREFIX}message 11`);
    expect(eleventh.update).toBe(true);
    expect(eleventh.event.metadata.name).toBe(tenth.event.metadata.name);
    expect(eleventh.event.count).toBe(2);
    // More than 10 minutes of quiet: a similar event is new again.
    clock.step(600_001);
    expect(written(c, event('message 12')).event.message).toBe('message 12');
  });

  it('the spam filter lets 25 events per source and object through, then one more every 5 minutes', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    // Distinct reasons: no aggregation, no de-duplication, only the token bucket.
    for (let i = 0; i < 25; i++) expect(c.correlate(event('m', 'web', `R${i}`)).skip).toBe(false);
    expect(c.correlate(event('m', 'web', 'R25')).skip).toBe(true);
    expect(c.correlate(event('m', 'db', 'R0')).skip).toBe(false); // another object: its own bucket
    clock.step(299_000);
    expect(c.correlate(event('m', 'web', 'R26')).skip).toBe(true);
    clock.step(1_000);
    expect(c.correlate(event('m', 'web', 'R27')).skip).toBe(false);
    expect(c.correlate(event('m', 'web', 'R28')).skip).toBe(true);
  });
});
