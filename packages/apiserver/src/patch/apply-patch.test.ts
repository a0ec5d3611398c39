import {
  APPLY_PATCH_TYPE,
  ApiError,
  JSON_PATCH_TYPE,
  MERGE_PATCH_TYPE,
  STRATEGIC_MERGE_PATCH_TYPE,
} from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPatch, patchMediaType, supportedPatchTypes } from './apply-patch.js';
import { PATCH_REJECTED_MESSAGE } from './patch-error.js';
import type { JsonObject } from './json-value.js';

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', resourceVersion: '42', labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1.25' },
      { name: 'sidecar', image: 'busybox' },
    ],
  },
};

describe('applyPatch dispatches on Content-Type (apiserver handlers/patch.go)', () => {
  it('a JSON Patch edits by pointer', () => {
    const result = applyPatch(
      JSON_PATCH_TYPE,
      pod,
      '[{"op":"replace","path":"/spec/containers/1/image","value":"alpine"}]',
      'Pod',
    );
    expect(result.spec).toEqual({
      containers: [
        { name: 'app', image: 'nginx:1.25' },
        { name: 'sidecar', image: 'alpine' },
      ],
    });
  });

  it('a merge patch replaces the containers list whole', () => {
    const result = applyPatch(
      MERGE_PATCH_TYPE,
      pod,
      '{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}',
      'Pod',
    );
    expect(result.spec).toEqual({ containers: [{ name: 'app', image: 'nginx:1.27' }] });
  });

  it('a strategic merge patch merges the containers list by name', () => {
    const result = applyPatch(
      STRATEGIC_MERGE_PATCH_TYPE,
      pod,
      '{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}',
      'Pod',
    );
    expect(result.spec).toEqual({
      containers: [
        { name: 'app', image: 'nginx:1.27' },
        { name: 'sidecar', image: 'busybox' },
      ],
    });
  });

  it('parameters after ";" are ignored (charset=utf-8)', () => {
    expect(
      applyPatch(
        `${MERGE_PATCH_TYPE}; charset=utf-8`,
        pod,
        '{"metadata":{"labels":{"app":null}}}',
        'Pod',
      ).metadata,
    ).toEqual({
      name: 'web',
      namespace: 'default',
      resourceVersion: '42',
      labels: {},
    });
    expect(patchMediaType('application/json-patch+json;charset=UTF-8')).toBe(JSON_PATCH_TYPE);
  });

  it('accepts the body as bytes', () => {
    const body = new TextEncoder().encode('{"metadata":{"labels":{"tier":"fé"}}}');
    expect((applyPatch(MERGE_PATCH_TYPE, pod, body, 'Pod').metadata as JsonObject).labels).toEqual({
      app: 'web',
      tier: 'fé',
    });
  });

  it('a resourceVersion in the patch is kept in the result (preconditions are the caller’s)', () => {
    const result = applyPatch(
      MERGE_PATCH_TYPE,
      pod,
      '{"metadata":{"resourceVersion":"41","labels":{"x":"y"}}}',
      'Pod',
    );
    expect((result.metadata as JsonObject).resourceVersion).toBe('41');
  });

  it('does not change the original object', () => {
    const copy = structuredClone(pod);
    applyPatch(
      STRATEGIC_MERGE_PATCH_TYPE,
      pod,
      '{"spec":{"containers":[{"name":"app","$patch":"delete"}]}}',
      'Pod',
    );
    applyPatch(JSON_PATCH_TYPE, pod, '[{"op":"remove","path":"/spec"}]', 'Pod');
    expect(pod).toEqual(copy);
  });

  it('server-side apply is a 415 listing the patch types we accept', () => {
    const error = failure(() => applyPatch(APPLY_PATCH_TYPE, pod, 'metadata: {}', 'Pod'));
    expect(error.code).toBe(415);
    expect(error.reason).toBe('UnsupportedMediaType');
    expect(error.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json',
    );
  });

  it('an unknown Content-Type is a 415', () => {
    expect(failure(() => applyPatch('application/json', pod, '{}', 'Pod')).code).toBe(415);
    expect(failure(() => applyPatch('', pod, '{}', 'Pod')).code).toBe(415);
  });

  it('kinds without a schema refuse strategic merge patch like custom resources (415)', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    const error = failure(() =>
      applyPatch(STRATEGIC_MERGE_PATCH_TYPE, widget, '{}', {
        group: 'example.com',
        kind: 'Widget',
      }),
    );
    expect(error.code).toBe(415);
    expect(error.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json-patch+json, application/merge-patch+json',
    );
    expect(
      applyPatch(MERGE_PATCH_TYPE, widget, '{"spec":{"size":3}}', {
        group: 'example.com',
        kind: 'Widget',
      }),
    ).toEqual({
      ...widget,
      spec: { size: 3 },
    });
    expect(supportedPatchTypes()).toEqual([JSON_PATCH_TYPE, MERGE_PATCH_TYPE]);
    expect(supportedPatchTypes('Deployment.apps')).toEqual([
      JSON_PATCH_TYPE,
      MERGE_PATCH_TYPE,
      STRATEGIC_MERGE_PATCH_TYPE,
    ]);
  });

  it('unparsable JSON and merge patches are a 400 "error decoding patch"', () => {
    for (const type of [JSON_PATCH_TYPE, MERGE_PATCH_TYPE]) {
      const error = failure(() => applyPatch(type, pod, '{not json', 'Pod'));
      expect(error.code).toBe(400);
      expect(error.reason).toBe('BadRequest');
      expect(error.message).toMatch(/^error decoding patch: /);
    }
  });

  it('an unparsable strategic merge patch is a 400 with the decoder text alone', () => {
    const error = failure(() => applyPatch(STRATEGIC_MERGE_PATCH_TYPE, pod, '{not json', 'Pod'));
    expect(error.code).toBe(400);
    expect(error.message).not.toMatch(/^error decoding patch/);
  });

  it('an empty body is a 400 "unexpected end of JSON input"', () => {
    expect(failure(() => applyPatch(JSON_PATCH_TYPE, pod, '', 'Pod')).message).toBe(
      'error decoding patch: unexpected end of JSON input',
    );
    expect(failure(() => applyPatch(STRATEGIC_MERGE_PATCH_TYPE, pod, '  ', 'Pod')).message).toBe(
      'unexpected end of JSON input',
    );
  });

  it('a merge patch that is not an object is a 400', () => {
    expect(failure(() => applyPatch(MERGE_PATCH_TYPE, pod, '[1]', 'Pod')).message).toBe(
      'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    expect(failure(() => applyPatch(MERGE_PATCH_TYPE, pod, 'null', 'Pod')).message).toBe(
      'Invalid JSON Patch',
    );
  });

  it('a JSON Patch that is not a list is a 400', () => {
    expect(failure(() => applyPatch(JSON_PATCH_TYPE, pod, '{"op":"add"}', 'Pod')).code).toBe(400);
  });

  it('a failing JSON Patch test is a 422 Invalid with kube’s fixed message', () => {
    const error = failure(() =>
      applyPatch(
        JSON_PATCH_TYPE,
        pod,
        '[{"op":"test","path":"/metadata/resourceVersion","value":"7"}]',
        'Pod',
      ),
    );
    expect(error.code).toBe(422);
    expect(error.reason).toBe('Invalid');
    expect(error.message).toBe(PATCH_REJECTED_MESSAGE);
    expect(error.status.details?.causes).toEqual([
      { message: 'testing value /metadata/resourceVersion failed: test failed' },
    ]);
  });

  it('a JSON Patch that turns the object into an array is a 422 on field "patch"', () => {
    const error = failure(() =>
      applyPatch(JSON_PATCH_TYPE, pod, '[{"op":"replace","path":"","value":[1]}]', 'Pod'),
    );
    expect(error.code).toBe(422);
    expect(error.reason).toBe('Invalid');
    expect(error.message).toMatch(/^ "" is invalid: patch: Invalid value: "\[1\]"/);
    expect(error.status.details?.causes?.[0]?.field).toBe('patch');
  });

  it('a strategic merge patch list item without its key is a 400 (kube: a 500 without a reason)', () => {
    const error = failure(() =>
      applyPatch(STRATEGIC_MERGE_PATCH_TYPE, pod, '{"spec":{"containers":[{"image":"x"}]}}', 'Pod'),
    );
    expect(error.code).toBe(400);
    expect(error.status.reason).toBe('BadRequest');
    expect(error.message).toBe('map: map[image:x] does not contain declared merge key: name');
  });

  it('a strategic merge patch with a malformed directive is a 400', () => {
    const error = failure(() =>
      applyPatch(STRATEGIC_MERGE_PATCH_TYPE, pod, '{"metadata":{"$setElementOrder":[]}}', 'Pod'),
    );
    expect(error.code).toBe(400);
    expect(error.message).toBe('invalid patch format of setElementOrder list');
  });

  it('any body with any patch type either applies to an object or fails with an ApiError', () => {
    const type = fc.constantFrom(
      JSON_PATCH_TYPE,
      MERGE_PATCH_TYPE,
      STRATEGIC_MERGE_PATCH_TYPE,
      APPLY_PATCH_TYPE,
      'text/plain',
    );
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(type, body, (contentType, text) => {
        try {
          const result = applyPatch(contentType, pod, text, 'Pod');
          expect(typeof result).toBe('object');
          expect(Array.isArray(result)).toBe(false);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
        }
      }),
    );
  });
});
