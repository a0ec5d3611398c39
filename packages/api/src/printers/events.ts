import { ageSince } from '../human-duration.js';
import type { TableColumn } from '../resource-definition.js';
import { column, fieldDoc, fieldText, text } from './columns.js';

// The Table printer of Events (kubernetes pkg/printers/internalversion/printers.go printEvent).
// events.k8s.io/v1 Events are the same objects as core/v1 Events (one resource, two group
// versions), printed by the same printer, which reads the internal Event (note is message,
// regarding is involvedObject).

export const eventsTableColumns = {
  events: [
    column('Last Seen', 'Time when last this event was observed', (o, now) =>
      ageSince(
        text(o, 'lastTimestamp', '') || text(o, 'eventTime', '') || o.metadata.creationTimestamp,
        now,
      ),
    ),
    column('Type', 'Type of this event', (o) => text(o, 'type', '')),
    column('Reason', 'Reason why this event was generated', (o) => text(o, 'reason', '')),
    column(
      'Object',
      'The object this event is about',
      (o) =>
        `${text(o, 'involvedObject.kind', '').toLowerCase()}/${text(o, 'involvedObject.name', '')}`,
    ),
    fieldText('Message', 'core.v1.Event', 'message', ''),
  ],
  eventsV1: [
    column('Last Seen', 'Time when last this event was observed', (o, now) => {
      const last =
        text(o, 'series.lastObservedTime', '') ||
        text(o, 'deprecatedLastTimestamp', '') ||
        text(o, 'eventTime', '');
      return ageSince(last || o.metadata.creationTimestamp, now);
    }),
    column('Type', 'Type of this event', (o) => text(o, 'type', '')),
    column('Reason', 'Reason why this event was generated', (o) => text(o, 'reason', '')),
    column(
      'Object',
      'The object this event is about',
      (o) => `${text(o, 'regarding.kind', '').toLowerCase()}/${text(o, 'regarding.name', '')}`,
    ),
    column('Message', fieldDoc('core.v1.Event', 'message'), (o) => text(o, 'note', '')),
  ],
} satisfies Record<string, TableColumn[]>;
