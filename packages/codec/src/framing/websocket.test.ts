import type { WatchEvent } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { CodecError } from '../codec-error.js';
import { samplePod } from '@listwatch/testing';
import { encodeWatchEvent } from './encoder.js';
import { CBOR_SEQUENCE, JSON_NEWLINE } from './format.js';
import { decodeWebSocketMessage, encodeWebSocketMessage } from './websocket.js';

const event: WatchEvent = { type: 'MODIFIED', object: samplePod(3) };

describe('WebSocket watch messages (apiserver handlers/watch.go HandleWS)', () => {
  it('a JSON event is one text message including its trailing newline', () => {
    const message = encodeWebSocketMessage(event, 'json');
    expect(message.binary).toBe(false);
    expect(Buffer.from(message.data).toString()).toBe(`${JSON.stringify(event)}\n`);
    expect(message.data).toEqual(encodeWatchEvent(event, JSON_NEWLINE));
  });

  it('a CBOR event is one binary message without a length prefix', () => {
    const message = encodeWebSocketMessage(event, 'cbor');
    expect(message.binary).toBe(true);
    expect([...message.data.subarray(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
    expect(message.data).toEqual(encodeWatchEvent(event, CBOR_SEQUENCE));
  });

  it('messages decode back to the event, as text, bytes, ArrayBuffer or fragments', () => {
    const json = encodeWebSocketMessage(event, 'json').data;
    const cbor = encodeWebSocketMessage(event, 'cbor').data;
    expect(decodeWebSocketMessage(Buffer.from(json).toString(), 'json')).toEqual(event);
    expect(decodeWebSocketMessage(json, 'json')).toEqual(event);
    expect(decodeWebSocketMessage(Uint8Array.from(cbor).buffer, 'cbor')).toEqual(event);
    expect(decodeWebSocketMessage([cbor.subarray(0, 10), cbor.subarray(10)], 'cbor')).toEqual(
      event,
    );
  });

  it('a malformed message is a CodecError', () => {
    expect(() => decodeWebSocketMessage('{"type":"ADDED"', 'json')).toThrow(CodecError);
    expect(() => decodeWebSocketMessage('{"type":"NOPE","object":{}}', 'json')).toThrow(CodecError);
    expect(() => decodeWebSocketMessage(Uint8Array.of(0xa1), 'cbor')).toThrow(CodecError);
  });
});
