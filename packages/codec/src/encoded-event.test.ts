import type { WatchEvent } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { decodeCbor } from './cbor.js';
import { EncodedEvent } from './encoded-event.js';
import { encodeWatchEvent } from './framing/encoder.js';
import {
  CBOR_LENGTH_PREFIXED,
  CBOR_SEQUENCE,
  JSON_LENGTH_PREFIXED,
  JSON_NEWLINE,
  STREAM_FORMATS,
} from './framing/format.js';
import { podDefinition } from './testing/pod-definition.js';
import { samplePod } from '@listwatch/testing';

const modified: WatchEvent = { type: 'MODIFIED', object: samplePod(7) };
const bookmark: WatchEvent = {
  type: 'BOOKMARK',
  object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '42' } },
};

describe('EncodedEvent (encode once for all watchers, like cachingObject)', () => {
  it('every caller gets the same Uint8Array for a format', () => {
    const encoded = new EncodedEvent(modified);
    for (const format of STREAM_FORMATS) {
      const first = encoded.bytes(format);
      expect(encoded.bytes(format)).toBe(first);
      expect(encoded.bytes({ ...format })).toBe(first);
    }
  });

  it('the bytes are the framed event, as encodeWatchEvent writes it', () => {
    const encoded = new EncodedEvent(modified);
    for (const format of STREAM_FORMATS) {
      expect(encoded.bytes(format)).toEqual(encodeWatchEvent(modified, format));
    }
    expect(Buffer.from(encoded.bytes('json')).toString()).toBe(`${JSON.stringify(modified)}\n`);
  });

  it('an encoding alone means its watch framing', () => {
    const encoded = new EncodedEvent(modified);
    expect(encoded.bytes('json')).toBe(encoded.bytes(JSON_NEWLINE));
    expect(encoded.bytes('cbor')).toBe(encoded.bytes(CBOR_SEQUENCE));
    expect(encoded.bytes(JSON_LENGTH_PREFIXED)).not.toBe(encoded.bytes(CBOR_LENGTH_PREFIXED));
  });

  it('BOOKMARK events are not cached: their bytes are computed for each watcher', () => {
    const encoded = new EncodedEvent(bookmark);
    const first = encoded.bytes(JSON_NEWLINE);
    const second = encoded.bytes(JSON_NEWLINE);
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
  });

  it('the WebSocket message shares the stream bytes', () => {
    const encoded = new EncodedEvent(modified);
    expect(encoded.webSocketMessage('json')).toEqual({
      data: encoded.bytes(JSON_NEWLINE),
      binary: false,
    });
    expect(encoded.webSocketMessage('cbor').data).toBe(encoded.bytes(CBOR_SEQUENCE));
  });

  it('the Table form without columns is cached; the first event, with columns, is not', () => {
    const encoded = new EncodedEvent(modified);
    const view = { as: 'Table', definition: podDefinition } as const;
    expect(encoded.bytes(JSON_NEWLINE, view)).toBe(encoded.bytes(JSON_NEWLINE, view));
    const withColumns = encoded.bytes(JSON_NEWLINE, { ...view, columns: true });
    expect(encoded.bytes(JSON_NEWLINE, { ...view, columns: true })).not.toBe(withColumns);
    expect(JSON.parse(Buffer.from(withColumns).toString())).toMatchObject({
      type: 'MODIFIED',
      object: { kind: 'Table', columnDefinitions: expect.any(Array) },
    });
    expect(
      JSON.parse(Buffer.from(encoded.bytes(JSON_NEWLINE, view)).toString()).object
        .columnDefinitions,
    ).toBeNull();
  });

  it('Table forms differ per includeObject and never replace the plain bytes', () => {
    const encoded = new EncodedEvent(modified);
    const plain = encoded.bytes(JSON_NEWLINE);
    const none = encoded.bytes(JSON_NEWLINE, {
      as: 'Table',
      definition: podDefinition,
      includeObject: 'None',
    });
    const meta = encoded.bytes(JSON_NEWLINE, { as: 'Table', definition: podDefinition });
    expect(none).not.toEqual(meta);
    expect(encoded.bytes(JSON_NEWLINE)).toBe(plain);
  });

  it('the table-form event object is available for a watcher building its first event', () => {
    const event = new EncodedEvent(modified).tableEvent(podDefinition, {
      columns: true,
      includeObject: 'None',
    });
    expect(event.type).toBe('MODIFIED');
    expect(event.object).toMatchObject({ kind: 'Table', rows: [{ object: null }] });
  });

  it('the PartialObjectMetadata form is cached and carries only metadata', () => {
    const encoded = new EncodedEvent(modified);
    const view = { as: 'PartialObjectMetadata' } as const;
    const bytes = encoded.bytes(CBOR_SEQUENCE, view);
    expect(encoded.bytes(CBOR_SEQUENCE, view)).toBe(bytes);
    expect(decodeCbor(bytes)).toEqual({
      type: 'MODIFIED',
      object: {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: modified.object.metadata,
      },
    });
  });
});
