import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown } from '../cache/deleted-final-state-unknown.js';
import { enqueueMapped, requestForObject, requestForOwner } from '../handler/enqueue.js';
import type { Request } from '../reconcile/reconcile.js';
import {
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  or,
} from './predicate.js';

function obj(
  generation: number,
  labels: Record<string, string> = {},
  annotations = {},
): KubeObject {
  return { metadata: { namespace: 'ns', name: 'x', generation, labels, annotations } };
}

// controller-runtime pkg/predicate and pkg/handler.
describe('predicates', () => {
  it('generationChanged passes an update only when metadata.generation changed (status and label writes are skipped)', () => {
    expect(generationChangedPredicate.update!(obj(1), obj(1, { a: 'b' }))).toBe(false);
    expect(generationChangedPredicate.update!(obj(1), obj(2))).toBe(true);
  });

  it('labelChanged and annotationChanged pass an update only when their map changed', () => {
    expect(labelChangedPredicate.update!(obj(1, { a: 'b' }), obj(2, { a: 'b' }))).toBe(false);
    expect(labelChangedPredicate.update!(obj(1, { a: 'b' }), obj(1, { a: 'c' }))).toBe(true);
    expect(annotationChangedPredicate.update!(obj(1, {}, { x: '1' }), obj(2, {}, { x: '1' }))).toBe(
      false,
    );
    expect(annotationChangedPredicate.update!(obj(1), obj(1, {}, { x: '1' }))).toBe(true);
    const either = or(generationChangedPredicate, labelChangedPredicate);
    expect(either.update!(obj(1), obj(1, { a: 'b' }))).toBe(true);
    expect(either.update!(obj(1), obj(1, {}, { x: '1' }))).toBe(false);
  });

  it('an event handler filters by its predicates, then enqueues what the map names; creates and deletes pass generationChanged', () => {
    const got: Request[] = [];
    const handler = enqueueMapped((r) => got.push(r), requestForObject, [
      generationChangedPredicate,
    ]);
    void handler.onAdd!(obj(1), false);
    void handler.onUpdate!(obj(1), obj(1, { a: 'b' }));
    expect(got).toHaveLength(1);
    void handler.onUpdate!(obj(1), obj(2));
    void handler.onDelete!(new DeletedFinalStateUnknown('ns/x', obj(2)));
    expect(got).toHaveLength(4); // the update enqueues old and new (one key: the queue collapses it)
    expect(got.every((r) => r.namespace === 'ns' && r.name === 'x')).toBe(true);
  });

  it("requestForOwner names the child's controller owner of the given group and kind, and nothing for other owners", () => {
    const child = (apiVersion: string, kind: string, controller: boolean): KubeObject => ({
      metadata: {
        namespace: 'ns',
        name: 'child',
        ownerReferences: [{ apiVersion, kind, name: 'parent', uid: 'u', controller }],
      },
    });
    const forFoo = requestForOwner({
      group: 'samplecontroller.k8s.io',
      kind: 'Foo',
      namespaced: true,
    });
    expect(forFoo(child('samplecontroller.k8s.io/v1alpha1', 'Foo', true))).toEqual([
      { namespace: 'ns', name: 'parent' },
    ]);
    expect(forFoo(child('samplecontroller.k8s.io/v1alpha1', 'Foo', false))).toEqual([]);
    expect(forFoo(child('apps/v1', 'Foo', true))).toEqual([]);
    expect(forFoo(child('samplecontroller.k8s.io/v1alpha1', 'Bar', true))).toEqual([]);
  });
});
