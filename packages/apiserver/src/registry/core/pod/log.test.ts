import { ApiError, type KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventsV1ToEvent, eventToEventsV1 } from '../event/strategy.js';
import { logContainer, podLogOptions } from './log.js';

// The parsers of pods/log (PodLogOptions from the query, ValidatePodLogOptions, LogLocation's
// container choice) and the events.k8s.io/v1 ⇄ core/v1 mapping, over arbitrary input.

const QUERY_KEYS = [
  'container',
  'follow',
  'previous',
  'timestamps',
  'sinceSeconds',
  'sinceTime',
  'tailLines',
  'limitBytes',
  'other',
];

describe('podLogOptions', () => {
  it('any query gives options or a 400/422 Status, never another failure', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.oneof(fc.string(), fc.integer().map(String))),
          { maxLength: 8 },
        ),
        (pairs) => {
          const query = new URLSearchParams(pairs);
          try {
            const options = podLogOptions(query, 'p');
            if (options.tailLines !== undefined)
              expect(options.tailLines).toBeGreaterThanOrEqual(0);
            if (options.limitBytes !== undefined) expect(options.limitBytes).toBeGreaterThan(0);
          } catch (err) {
            expect(err).toBeInstanceOf(ApiError);
            expect([400, 422]).toContain((err as ApiError).code);
          }
        },
      ),
    );
  });

  it('negative tailLines is 422 on PodLogOptions with field tailLines', () => {
    try {
      podLogOptions(new URLSearchParams('tailLines=-3'), 'p');
      expect.unreachable();
    } catch (err) {
      expect((err as ApiError).status).toMatchObject({
        code: 422,
        details: { kind: 'PodLogOptions', name: 'p', causes: [{ field: 'tailLines' }] },
      });
    }
  });
});

describe('logContainer', () => {
  const pod = (containers: string[], init: string[] = []): KubeObject => ({
    metadata: { name: 'p' },
    spec: {
      containers: containers.map((name) => ({ name })),
      ...(init.length ? { initContainers: init.map((name) => ({ name })) } : {}),
    },
  });

  it('the only container is the default; several need a name, listed as kube lists them', () => {
    expect(logContainer(pod(['a']), undefined)).toBe('a');
    expect(() => logContainer(pod(['a', 'b'], ['i']), undefined)).toThrow(
      'a container name must be specified for pod p, choose one of: [a b] or one of the init containers: [i]',
    );
    expect(logContainer(pod(['a', 'b'], ['i']), 'i')).toBe('i');
    expect(() => logContainer(pod(['a']), 'x')).toThrow('container x is not valid for pod p');
  });

  it('whatever the pod spec holds, the answer is a container of the pod or a 400', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.option(fc.string(), { nil: undefined }), (spec, requested) => {
        const object = { metadata: { name: 'p' }, spec } as KubeObject;
        try {
          const chosen = logContainer(object, requested);
          expect(JSON.stringify(spec)).toContain(JSON.stringify(chosen));
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          expect((err as ApiError).code).toBe(400);
        }
      }),
    );
  });
});

describe('events.k8s.io/v1 ⇄ core/v1', () => {
  const fields = [
    'involvedObject',
    'source',
    'message',
    'firstTimestamp',
    'lastTimestamp',
    'count',
    'reportingComponent',
    'reason',
    'eventTime',
    'series',
    'type',
    'action',
    'related',
    'reportingInstance',
  ];
  it('a core Event converted to events.k8s.io/v1 and back is the same Event', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...fields), fc.jsonValue()), (body) => {
        const event = {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'e' },
          ...body,
        } as KubeObject;
        const served = eventToEventsV1(event);
        expect(served.apiVersion).toBe('events.k8s.io/v1');
        expect(Object.keys(served)).not.toContain('message');
        expect(eventsV1ToEvent(served)).toEqual(event);
      }),
    );
  });
});
