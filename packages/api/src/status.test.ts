import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { statusOf, successStatus, type StatusFields } from './status.js';

// metav1.Status as Go's encoding/json writes it: struct field order of
// staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go, omitempty fields left out.
const STATUS_ORDER = [
  'kind',
  'apiVersion',
  'metadata',
  'status',
  'message',
  'reason',
  'details',
  'code',
];
const DETAILS_ORDER = ['name', 'group', 'kind', 'uid', 'causes', 'retryAfterSeconds'];
const CAUSE_ORDER = ['reason', 'message', 'field'];
const LIST_META_ORDER = ['selfLink', 'resourceVersion', 'continue', 'remainingItemCount'];

function inOrder(keys: string[], order: string[]): boolean {
  const positions = keys.map((k) => order.indexOf(k));
  return positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]!));
}

describe('statusOf (metav1.Status field order)', () => {
  it('a 404 is byte for byte what kube-apiserver writes', () => {
    expect(JSON.stringify(ApiError.notFound({ resource: 'pods' }, 'x').status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"x\\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}',
    );
  });

  it('a grouped 409 and a delete reply name group and uid where StatusDetails has them', () => {
    expect(
      JSON.stringify(
        ApiError.alreadyExists({ group: 'apps', resource: 'deployments' }, 'n').status,
      ),
    ).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"n\\" already exists","reason":"AlreadyExists","details":{"name":"n","group":"apps","kind":"deployments"},"code":409}',
    );
    expect(
      JSON.stringify(successStatus({ uid: 'u', kind: 'configmaps', name: 'c', group: '' })),
    ).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"c","kind":"configmaps","uid":"u"},"code":200}',
    );
  });

  it('details added to an error after it was built still leave in order', () => {
    const err = ApiError.badRequest('b');
    err.status.details = { retryAfterSeconds: 1, causes: [{ field: 'f', message: 'm' }] };
    expect(JSON.stringify(statusOf(err.status))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"b","reason":"BadRequest","details":{"causes":[{"message":"m","field":"f"}],"retryAfterSeconds":1},"code":400}',
    );
  });

  it('whatever order the fields come in, they leave in kube order with empty ones omitted', () => {
    const text = fc.option(fc.string({ maxLength: 3 }), { nil: undefined });
    const fields = fc.record(
      {
        code: fc.integer({ min: 0, max: 600 }),
        message: text,
        reason: text,
        status: fc.constantFrom('Success', 'Failure'),
        metadata: fc.record(
          { continue: text, resourceVersion: text, remainingItemCount: fc.nat(), selfLink: text },
          { requiredKeys: [] },
        ),
        details: fc.record(
          {
            retryAfterSeconds: fc.nat(5),
            causes: fc.array(fc.record({ field: text, message: text, reason: text }), {
              maxLength: 2,
            }),
            uid: text,
            kind: text,
            group: text,
            name: text,
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['code'] },
    );
    fc.assert(
      fc.property(fields, (f) => {
        const status = statusOf(f as StatusFields) as unknown as Record<string, unknown>;
        const round = JSON.parse(JSON.stringify(status)) as Record<string, unknown>;
        expect(inOrder(Object.keys(round), STATUS_ORDER)).toBe(true);
        expect(round['metadata']).toBeDefined();
        for (const [key, value] of Object.entries(round)) {
          expect(value === '' || value === 0, key).toBe(false);
        }
        const meta = round['metadata'] as Record<string, unknown>;
        expect(inOrder(Object.keys(meta), LIST_META_ORDER)).toBe(true);
        const details = round['details'] as Record<string, unknown> | undefined;
        if (details) {
          expect(inOrder(Object.keys(details), DETAILS_ORDER)).toBe(true);
          for (const cause of (details['causes'] ?? []) as Record<string, unknown>[])
            expect(inOrder(Object.keys(cause), CAUSE_ORDER)).toBe(true);
        }
      }),
    );
  });
});
