import type { KubeObject, OwnerReference } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DependencyGraph, type GraphNode, type ObjectIdentity } from './graph.js';

// graph_builder.go processGraphChanges, on its own: what the informers' events make of the
// graph, and what they ask of the collector's queues.

const uids = ['u0', 'u1', 'u2', 'u3', 'u4'];

const identity = (uid: string): ObjectIdentity => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: `cm-${uid}`,
  uid,
  namespace: 'ns',
});

const ref = (uid: string, block = false): OwnerReference => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: `cm-${uid}`,
  uid,
  ...(block ? { blockOwnerDeletion: true } : {}),
});

const object = (
  uid: string,
  owners: OwnerReference[],
  meta: Partial<KubeObject['metadata']> = {},
): KubeObject => ({
  metadata: { name: `cm-${uid}`, namespace: 'ns', uid, ownerReferences: owners, ...meta },
});

function recorder() {
  const deletes: string[] = [];
  const orphans: string[] = [];
  const graph = new DependencyGraph({
    attemptToDelete: (n: GraphNode) => deletes.push(n.identity.uid),
    attemptToOrphan: (n: GraphNode) => orphans.push(n.identity.uid),
  });
  return { graph, deletes, orphans };
}

describe('the dependency graph', () => {
  it('after any sequence of adds, updates and deletes, a node’s dependents are live objects naming it, and a live object its owner’s node does not list was queued for collection', () => {
    const event = fc.oneof(
      fc.record({
        type: fc.constant('observe' as const),
        uid: fc.constantFrom(...uids),
        owners: fc.uniqueArray(fc.constantFrom(...uids), { maxLength: 3 }),
      }),
      fc.record({ type: fc.constant('delete' as const), uid: fc.constantFrom(...uids) }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const { graph, deletes } = recorder();
        const live = new Map<string, string[]>();
        for (const e of events) {
          if (e.type === 'observe') {
            const owners = e.owners.filter((o) => o !== e.uid);
            graph.observe(
              identity(e.uid),
              object(
                e.uid,
                owners.map((o) => ref(o)),
              ),
            );
            live.set(e.uid, owners);
          } else {
            graph.observeDeletion(identity(e.uid));
            live.delete(e.uid);
          }
        }
        for (const [uid, owners] of live) {
          for (const owner of owners) {
            // An owner that left the graph (and may be back as a virtual node without it) left
            // its dependent queued for collection.
            const listed = [...(graph.node(owner)?.dependents ?? [])].some(
              (d) => d.identity.uid === uid,
            );
            if (!listed) expect(deletes, `dependent ${uid} of ${owner}`).toContain(uid);
          }
        }
        // Every dependent a node holds is a live object naming it.
        for (const uid of uids) {
          for (const dep of graph.node(uid)?.dependents ?? []) {
            expect(live.get(dep.identity.uid), `${dep.identity.uid} under ${uid}`).toContain(uid);
          }
        }
      }),
    );
  });

  it('an owner referenced before it is seen is a virtual node, queued for a check against the apiserver', () => {
    const { graph, deletes } = recorder();
    graph.observe(identity('child'), object('child', [ref('parent')]));
    expect(graph.node('parent')?.observed).toBe(false);
    expect(deletes).toEqual(['parent']);
    graph.observe(identity('parent'), object('parent', []));
    expect(graph.node('parent')?.observed).toBe(true);
  });

  it('a deleted owner queues its dependents; a virtual owner verified absent goes the same way', () => {
    const { graph, deletes } = recorder();
    graph.observe(identity('parent'), object('parent', []));
    graph.observe(identity('child'), object('child', [ref('parent')]));
    graph.observeDeletion(identity('parent'));
    expect(deletes).toEqual(['child']);
    graph.observe(identity('orphan'), object('orphan', [ref('ghost')]));
    deletes.length = 0;
    graph.verifiedAbsent(identity('ghost'));
    expect(graph.node('ghost')).toBeUndefined();
    expect(deletes).toEqual(['orphan']);
    // An observed node is never removed on the collector's word.
    graph.verifiedAbsent(identity('orphan'));
    expect(graph.node('orphan')).toBeDefined();
  });

  it('a deletion starting with foregroundDeletion queues the owner and its dependents; one with orphan queues it for orphaning', () => {
    const { graph, deletes, orphans } = recorder();
    graph.observe(identity('fg'), object('fg', []));
    graph.observe(identity('dep'), object('dep', [ref('fg', true)]));
    deletes.length = 0;
    const marked = { deletionTimestamp: '2026-01-01T00:00:00Z' };
    graph.observe(
      identity('fg'),
      object('fg', [], { ...marked, finalizers: ['foregroundDeletion'] }),
      object('fg', []),
    );
    expect(graph.node('fg')?.deletingDependents).toBe(true);
    expect(deletes.sort()).toEqual(['dep', 'fg']);
    expect(
      graph
        .node('fg')
        ?.blockingDependents()
        .map((d) => d.identity.uid),
    ).toEqual(['dep']);
    // The dependent dropping its blocking reference unblocks the owner.
    deletes.length = 0;
    graph.observe(identity('dep'), object('dep', [ref('fg')]));
    expect(deletes).toEqual(['fg']);

    graph.observe(identity('or'), object('or', []));
    graph.observe(
      identity('or'),
      object('or', [], { ...marked, finalizers: ['orphan'] }),
      object('or', []),
    );
    expect(orphans).toEqual(['or']);
  });
});
