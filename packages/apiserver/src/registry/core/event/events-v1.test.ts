import type { KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { openWatch, serverForFile } from '../../../testing/test-server.js';

// events.k8s.io/v1 and core/v1 Events are one resource (kube stores both under /registry/events
// as the internal Event): the field mapping of pkg/apis/events/v1/conversion.go, and
// ValidateEventCreate/Update for writes through events.k8s.io (pkg/apis/core/validation/events.go).

const env = serverForFile('events');

const coreEvent = (name: string, namespace: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', name: 'web-1', namespace },
  reason: 'Started',
  message: 'Started container web',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:01:00Z',
  count: 2,
  type: 'Normal',
});

const newEvent = (name: string, namespace: string): KubeObject => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2026-01-01T00:00:00.000000Z',
  reportingController: 'example.com/controller',
  reportingInstance: 'controller-1',
  action: 'Scaling',
  reason: 'ScaledUp',
  regarding: { kind: 'Deployment', name: 'web', namespace },
  note: 'scaled up to 3',
  type: 'Normal',
});

describe('events.k8s.io/v1 Events', () => {
  it('a core/v1 Event reads, lists and watches through events.k8s.io/v1 with its fields renamed (note, regarding, deprecated*)', async () => {
    const ns = await env.namespace();
    const watch = openWatch(
      env.server.url,
      `/apis/events.k8s.io/v1/namespaces/${ns}/events?watch=true`,
    );
    try {
      const created = await env.api.post(`/api/v1/namespaces/${ns}/events`, coreEvent('e1', ns));
      expect(created.status).toBe(201);
      const read = await env.api.get(`/apis/events.k8s.io/v1/namespaces/${ns}/events/e1`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        regarding: { kind: 'Pod', name: 'web-1' },
        note: 'Started container web',
        deprecatedSource: { component: 'kubelet', host: 'node-1' },
        deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
        deprecatedLastTimestamp: '2026-01-01T00:01:00Z',
        deprecatedCount: 2,
        reason: 'Started',
      });
      expect(read.body['message']).toBeUndefined();
      expect(read.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
      const list = await env.api.get<{ kind: string; apiVersion: string; items: KubeObject[] }>(
        `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
      );
      expect(list.body).toMatchObject({ kind: 'EventList', apiVersion: 'events.k8s.io/v1' });
      expect(list.body.items.map((i) => i['note'])).toEqual(['Started container web']);
      const [added] = await watch.take(1);
      expect(added?.type).toBe('ADDED');
      expect(added?.object).toMatchObject({
        apiVersion: 'events.k8s.io/v1',
        note: 'Started container web',
      });
    } finally {
      await watch.close();
    }
  });

  it('an Event created through events.k8s.io/v1 reads back through core/v1 (message, involvedObject, reportingComponent)', async () => {
    const ns = await env.namespace();
    const created = await env.api.post(
      `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
      newEvent('e2', ns),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'scaled up to 3' });
    const core = await env.api.get(`/api/v1/namespaces/${ns}/events/e2`);
    expect(core.body).toMatchObject({
      apiVersion: 'v1',
      message: 'scaled up to 3',
      involvedObject: { kind: 'Deployment', name: 'web' },
      reportingComponent: 'example.com/controller',
      reportingInstance: 'controller-1',
      action: 'Scaling',
    });
    expect(core.body['note']).toBeUndefined();
    // Deleting through either API deletes the one object.
    expect((await env.api.delete(`/apis/events.k8s.io/v1/namespaces/${ns}/events/e2`)).status).toBe(
      200,
    );
    expect((await env.api.get(`/api/v1/namespaces/${ns}/events/e2`)).status).toBe(404);
  });

  it('a create through events.k8s.io/v1 needs eventTime and no deprecated fields (ValidateEventCreate); without an eventTime legacyValidateEvent checks it as an old-style event', async () => {
    const ns = await env.namespace();
    const res = await env.api.post<Status>(`/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'bad' },
      regarding: { kind: 'Pod', name: 'p', namespace: ns },
      type: 'Normal',
      deprecatedCount: 3,
    });
    expect(res.status).toBe(422);
    expect(res.body.details?.causes?.map((c) => [c.field, c.reason])).toEqual([
      ['eventTime', 'FieldValueRequired'],
      ['count', 'FieldValueInvalid'],
    ]);
  });

  it('a new-style event (with an eventTime) needs reportingController, reportingInstance, action and reason (legacyValidateEvent)', async () => {
    const ns = await env.namespace();
    const res = await env.api.post<Status>(`/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'bad' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      regarding: { kind: 'Pod', name: 'p', namespace: ns },
      type: 'Normal',
    });
    expect(res.status).toBe(422);
    expect(res.body.details?.causes?.map((c) => [c.field, c.reason])).toEqual([
      // IsQualifiedName("") says both that the name part is empty and that it fails the regex.
      ['reportingController', 'FieldValueRequired'],
      ['reportingController', 'FieldValueInvalid'],
      ['reportingController', 'FieldValueInvalid'],
      ['reportingInstance', 'FieldValueRequired'],
      ['action', 'FieldValueRequired'],
      ['reason', 'FieldValueRequired'],
    ]);
  });

  it('a core/v1 Event about an object of another namespace is refused on involvedObject.namespace, and a new-style one names reportingComponent (legacyValidateEvent)', async () => {
    const ns = await env.namespace();
    const base = `/api/v1/namespaces/${ns}/events`;
    const other = await env.api.post<Status>(base, coreEvent('other', 'elsewhere'));
    expect(other.status).toBe(422);
    expect(other.body.details?.causes?.map((c) => [c.field, c.reason, c.message])).toEqual([
      [
        'involvedObject.namespace',
        'FieldValueInvalid',
        'Invalid value: "elsewhere": does not match event.namespace',
      ],
    ]);
    const newStyle = await env.api.post<Status>(base, {
      ...coreEvent('new', ns),
      eventTime: '2026-01-01T00:00:00.000000Z',
      action: 'Started',
      reportingInstance: 'node-1',
    });
    expect(newStyle.status).toBe(422);
    expect(newStyle.body.details?.causes?.map((c) => [c.field, c.reason])).toEqual([
      ['reportingComponent', 'FieldValueRequired'],
      ['reportingComponent', 'FieldValueInvalid'],
      ['reportingComponent', 'FieldValueInvalid'],
    ]);
  });

  it('what an events.k8s.io/v1 Event records never changes; its note may (ValidateEventUpdate)', async () => {
    const ns = await env.namespace();
    const path = `/apis/events.k8s.io/v1/namespaces/${ns}/events/e3`;
    expect(
      (await env.api.post(`/apis/events.k8s.io/v1/namespaces/${ns}/events`, newEvent('e3', ns)))
        .status,
    ).toBe(201);
    const reason = await env.api.patch<Status>(path, { reason: 'ScaledDown' });
    expect(reason.status).toBe(422);
    expect(reason.body.details?.causes?.map((c) => c.field)).toEqual(['reason']);
    const note = await env.api.patch(path, { note: 'scaled up to 4' });
    expect(note.status).toBe(200);
    expect(note.body['note']).toBe('scaled up to 4');
  });
});
