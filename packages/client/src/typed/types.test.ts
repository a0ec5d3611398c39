import type { WatchEvent } from '@listwatch/api';
import { describe, expectTypeOf, it } from 'vitest';
import {
  typedResource,
  type appsV1,
  type coreV1,
  type CoreV1Event,
  type Deployment,
  type EventsV1Event,
  type GetOptions,
  type InformerOptions,
  type ListParams,
  type ObjectOf,
  type Pod,
  type ResourceClient,
  type SharedInformerFactory,
  type WatchStream,
  type WatchStreamEvent,
  type WatchStreamOptions,
  type WriteOptions,
} from '../index.js';

// Issue 33, "types where users look": checked by `tsc` (the package's typecheck compiles the
// tests, strict with exactOptionalPropertyTypes); the runtime assertions are no-ops.
describe('the types @listwatch/client hands its users', () => {
  it('re-exports the built-in object types, so nobody adds kubernetes-types to name a Pod', () => {
    expectTypeOf<Pod>().toHaveProperty('spec');
    expectTypeOf<Deployment['spec']>().not.toBeAny();
    expectTypeOf<CoreV1Event['involvedObject']>().not.toBeAny();
    expectTypeOf<EventsV1Event['regarding']>().not.toBeAny();
  });

  it('ObjectOf gives the object type of a typed reference, built-in or custom', () => {
    expectTypeOf<ObjectOf<typeof coreV1.pods>>().toEqualTypeOf<Pod>();
    expectTypeOf<ObjectOf<typeof appsV1.deployments>>().toEqualTypeOf<Deployment>();
    interface Foo {
      apiVersion?: string;
      kind?: string;
      metadata?: { name?: string };
      spec: { replicas: number };
    }
    const foos = typedResource<Foo>({
      group: 'samplecontroller.k8s.io',
      version: 'v1alpha1',
      kind: 'Foo',
      plural: 'foos',
      namespaced: true,
    });
    expectTypeOf<ObjectOf<typeof foos>>().toEqualTypeOf<Foo>();
    expectTypeOf(foos.plural).toBeString();
    expectTypeOf<ReturnType<SharedInformerFactory['informerFor']>>().not.toBeAny();
  });

  it('option types take an explicit undefined under exactOptionalPropertyTypes', () => {
    const selector: string | undefined = undefined;
    const params: ListParams = { labelSelector: selector, limit: undefined, continue: undefined };
    const get: GetOptions = { resourceVersion: undefined };
    const write: WriteOptions = { dryRun: undefined, fieldManager: undefined };
    const watch: WatchStreamOptions = { signal: undefined, idleTimeoutMs: undefined };
    const informer: InformerOptions = { namespace: undefined, resyncPeriodMs: undefined };
    expectTypeOf(params).toExtend<ListParams>();
    expectTypeOf([get, write, watch, informer]).not.toBeAny();
  });

  it('a watch yields events without an ERROR member (an ERROR event is thrown)', () => {
    type Yielded = WatchStream<Pod> extends AsyncIterable<infer E> ? E : never;
    expectTypeOf<Yielded>().toEqualTypeOf<WatchStreamEvent<Pod>>();
    expectTypeOf<Yielded['type']>().toEqualTypeOf<'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'>();
    expectTypeOf<Yielded['object']>().toEqualTypeOf<Pod>();
    expectTypeOf<WatchEvent<Pod>['type']>().toExtend<Yielded['type'] | 'ERROR'>();
    type FromClient = Awaited<ReturnType<ResourceClient<Pod>['watch']>>;
    expectTypeOf<FromClient>().toEqualTypeOf<WatchStream<Pod>>();
  });
});
