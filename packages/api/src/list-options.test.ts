import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { encodeContinue, encodeContinueToken } from './continue-token.js';
import {
  classifyGet,
  classifyList,
  classifyRead,
  classifyWatch,
  isContinuedList,
  listOptionsToQuery,
  parseGetOptions,
  parseListOptions,
  type ListOptions,
} from './list-options.js';
import { isValidResourceVersion } from './resource-version.js';
import type { ResourceDefinition } from './resource-definition.js';

function parse(
  query: string,
  definition?: Pick<ResourceDefinition, 'selectableFields'>,
): ListOptions {
  return parseListOptions(new URLSearchParams(query), definition ? { definition } : {});
}

function errorOf(
  query: string,
  definition?: Pick<ResourceDefinition, 'selectableFields'>,
): ApiError {
  try {
    parse(query, definition);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error(`${query} parsed`);
}

const token = encodeContinue(12, '/registry/pods/default/a', '/registry/pods/');
const pods: Pick<ResourceDefinition, 'selectableFields'> = {
  selectableFields: { 'spec.nodeName': () => '' },
};

describe('parseListOptions', () => {
  it("decodes kubectl get's first page", () => {
    const options = parse('limit=500');
    expect(options).toMatchObject({ watch: false, limit: 500, allowWatchBookmarks: false });
    expect(options.labelSelector.isEmpty()).toBe(true);
    expect(options.fieldSelector.isEmpty()).toBe(true);
    expect(options.resourceVersion).toBeUndefined();
  });

  it("decodes a reflector's watch", () => {
    const options = parse(
      'watch=true&resourceVersion=123&allowWatchBookmarks=true&timeoutSeconds=300&labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn1',
      pods,
    );
    expect(options).toMatchObject({
      watch: true,
      resourceVersion: '123',
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    expect(options.labelSelector.toString()).toBe('app=web');
    expect(options.fieldSelector.requiresExactMatch('spec.nodeName')).toBe('n1');
  });

  it('decodes a watch-list request (KEP-3157) with Go bool spellings', () => {
    expect(
      parse(
        'watch=1&sendInitialEvents=True&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=T',
      ),
    ).toMatchObject({
      watch: true,
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
    });
  });

  // runtime.Convert_Slice_string_To_bool: only absent, `0` and `false` (any case) are false.
  it.each([
    ['watch', { watch: true }],
    ['watch=', { watch: true }],
    ['watch=yes', { watch: true }],
    ['watch=f', { watch: true }],
    ['watch=false', { watch: false }],
    ['watch=FALSE', { watch: false }],
    ['watch=fAlSe', { watch: false }],
    ['watch=0', { watch: false }],
    ['watch=0&watch=1', { watch: false }],
    ['watch&allowWatchBookmarks', { watch: true, allowWatchBookmarks: true }],
    ['watch=1&allowWatchBookmarks=off', { watch: true, allowWatchBookmarks: true }],
    [
      'watch&sendInitialEvents&resourceVersionMatch=NotOlderThan',
      { watch: true, sendInitialEvents: true },
    ],
    [
      'watch&sendInitialEvents=maybe&resourceVersionMatch=NotOlderThan',
      { watch: true, sendInitialEvents: true },
    ],
    [
      'watch&sendInitialEvents=False&resourceVersionMatch=NotOlderThan',
      { watch: true, sendInitialEvents: false },
    ],
  ])('decodes the query booleans of %j as Kubernetes does, never a 400', (query, expected) => {
    expect(parse(query)).toMatchObject(expected);
  });

  it('decodes a continue token and passes handler parameters through', () => {
    const options = parse(
      `continue=${token}&resourceVersion=0&pretty=true&fieldManager=kubectl&fieldValidation=Strict&dryRun=All`,
    );
    expect(options).toMatchObject({
      continue: token,
      continueToken: { resourceVersion: 12, start: 'default/a\u0000' },
      pretty: true,
      fieldManager: 'kubectl',
      fieldValidation: 'Strict',
      dryRun: ['All'],
    });
  });

  it('empty parameters mean unset; limit=0 means no limit', () => {
    expect(parse('resourceVersion=&limit=0&continue=&labelSelector=')).toMatchObject({
      watch: false,
    });
    const options = parse('resourceVersion=&limit=0&continue=');
    expect(options.resourceVersion).toBeUndefined();
    expect(options.limit).toBeUndefined();
    expect(options.continue).toBeUndefined();
  });

  // internalversion/validation/validation_test.go, worded as errors.NewInvalid prints it.
  it.each([
    [
      'resourceVersionMatch=NotOlderThan',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      `resourceVersion=0&resourceVersionMatch=NotOlderThan&continue=${token}`,
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    ],
    [
      'resourceVersion=5&resourceVersionMatch=Foo',
      'resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""',
    ],
    [
      'resourceVersion=0&resourceVersionMatch=Exact',
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    [
      'sendInitialEvents=true',
      'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    ],
    [
      'watch=true&sendInitialEvents=true',
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ],
    [
      'watch=true&resourceVersionMatch=NotOlderThan',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    ],
    [
      'watch=true&sendInitialEvents=true&resourceVersionMatch=Exact',
      '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
  ])('%s is 422 Invalid: %s', (query, message) => {
    const err = errorOf(query);
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toBe(`ListOptions.meta.k8s.io "" is invalid: ${message}`);
    // An empty name is left out, as omitempty leaves it out of StatusDetails.
    expect(err.status.details).toEqual({
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: err.status.details?.causes,
    });
  });

  it.each([
    [
      `continue=${token}&resourceVersion=5`,
      'specifying resource version is not allowed when using continue',
    ],
    [
      'continue=abc%2B',
      'invalid continue token: continue key is not valid: illegal base64 data at input byte 3',
    ],
    [
      'labelSelector=a%20b',
      "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
    ],
    ['fieldSelector=x', "invalid selector: 'x'; can't understand 'x'"],
    ['limit=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['limit=-1', 'limit: Invalid value: -1: must be greater than or equal to 0'],
    [
      'limit=99999999999999999999',
      'strconv.ParseInt: parsing "99999999999999999999": value out of range',
    ],
    [
      'watch=true&timeoutSeconds=-5',
      'timeoutSeconds: Invalid value: -5: must be greater than or equal to 0',
    ],
    ['watch=true&timeoutSeconds=', 'strconv.ParseInt: parsing "": invalid syntax'],
    [
      'resourceVersion=abc',
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    ],
    ['fieldSelector=spec.bogus%3D1', 'field label not supported: spec.bogus'],
  ])('%s is 400 BadRequest: %s', (query, message) => {
    const err = errorOf(query, pods);
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });

  it('decoding errors come before validation errors, and storage checks after them, as in ListResource', () => {
    expect(errorOf('limit=x&resourceVersionMatch=Exact').code).toBe(400);
    expect(errorOf('resourceVersionMatch=Foo&resourceVersion=abc').code).toBe(422);
    expect(errorOf('resourceVersionMatch=Exact&resourceVersion=abc').code).toBe(400);
  });

  it('a watch ignores continue (no token check)', () => {
    const options = parse('watch=true&continue=garbage&resourceVersion=5');
    expect(options.continue).toBeUndefined();
    expect(options.continueToken).toBeUndefined();
  });

  it('listOptionsToQuery writes what parseListOptions reads', () => {
    const options = parse(
      `labelSelector=b%3D1,a&fieldSelector=metadata.name%3Dx&limit=7&continue=${token}&dryRun=All&dryRun=x`,
    );
    const again = parse(listOptionsToQuery(options).toString());
    expect(again.labelSelector.toString()).toBe('a,b=1');
    expect({ ...again, labelSelector: '', fieldSelector: '' }).toEqual({
      ...options,
      labelSelector: '',
      fieldSelector: '',
    });
  });
});

// "Semantics for get and list" (Kubernetes API concepts): the LIST table.
describe('classifyList', () => {
  it.each([
    ['', { mode: 'consistent' }],
    ['limit=10', { mode: 'consistent' }],
    ['resourceVersion=0', { mode: 'any' }],
    ['resourceVersion=0&limit=10', { mode: 'any' }],
    ['resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=10', { mode: 'any' }],
    ['resourceVersion=42', { mode: 'notOlderThan', resourceVersion: 42 }],
    [
      'resourceVersion=42&resourceVersionMatch=NotOlderThan',
      { mode: 'notOlderThan', resourceVersion: 42 },
    ],
    [
      'resourceVersion=42&resourceVersionMatch=NotOlderThan&limit=10',
      { mode: 'notOlderThan', resourceVersion: 42 },
    ],
    ['resourceVersion=42&limit=10', { mode: 'exact', resourceVersion: 42 }],
    ['resourceVersion=42&resourceVersionMatch=Exact', { mode: 'exact', resourceVersion: 42 }],
    [
      'resourceVersion=42&resourceVersionMatch=Exact&limit=10',
      { mode: 'exact', resourceVersion: 42 },
    ],
  ])('%j → %j', (query, semantics) => {
    expect(classifyList(parse(query))).toEqual(semantics);
  });

  it("a continued list reads at the token's revision from the token's key", () => {
    expect(classifyList(parse(`continue=${token}&limit=5`))).toEqual({
      mode: 'exact',
      resourceVersion: 12,
      continueFrom: { resourceVersion: 12, start: 'default/a\u0000' },
    });
  });

  it('a token re-issued after compaction (rv -1) continues at the latest revision', () => {
    const latest = encodeContinueToken({ resourceVersion: -1, start: 'default/b\u0000' });
    expect(classifyList({ continue: latest })).toEqual({
      mode: 'consistent',
      continueFrom: { resourceVersion: -1, start: 'default/b\u0000' },
    });
  });
});

// "Semantics for watch" (Kubernetes API concepts) and KEP-3157: the WATCH table.
describe('classifyWatch', () => {
  it.each([
    [
      'watch=true',
      { initialEvents: true, read: { mode: 'consistent' }, initialEventsEndBookmark: false },
    ],
    [
      'watch=true&resourceVersion=0',
      { initialEvents: true, read: { mode: 'any' }, initialEventsEndBookmark: false },
    ],
    [
      'watch=true&resourceVersion=9',
      { initialEvents: false, from: { mode: 'after', resourceVersion: 9 } },
    ],
    [
      'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      { initialEvents: true, read: { mode: 'consistent' }, initialEventsEndBookmark: true },
    ],
    [
      'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=9',
      {
        initialEvents: true,
        read: { mode: 'notOlderThan', resourceVersion: 9 },
        initialEventsEndBookmark: false,
      },
    ],
    [
      'watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan',
      { initialEvents: false, from: { mode: 'consistent' } },
    ],
    [
      'watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=0',
      { initialEvents: false, from: { mode: 'any' } },
    ],
    [
      'watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=9',
      { initialEvents: false, from: { mode: 'after', resourceVersion: 9 } },
    ],
  ])('%j → %j', (query, semantics) => {
    expect(classifyWatch(parse(query))).toEqual(semantics);
  });
});

// delegator.go Get: a GET is never Exact.
describe('parseGetOptions and classifyGet', () => {
  it.each([
    ['', {}, { mode: 'consistent' }],
    ['resourceVersion=', {}, { mode: 'consistent' }],
    ['resourceVersion=0', { resourceVersion: '0' }, { mode: 'any' }],
    ['resourceVersion=00', { resourceVersion: '00' }, { mode: 'any' }],
    ['resourceVersion=7', { resourceVersion: '7' }, { mode: 'notOlderThan', resourceVersion: 7 }],
  ])('%j → %j → %j', (query, options, semantics) => {
    expect(parseGetOptions(new URLSearchParams(query))).toEqual(options);
    expect(classifyGet(parseGetOptions(new URLSearchParams(query)))).toEqual(semantics);
  });

  it('a bad resourceVersion is the 400 of storage', () => {
    expect(() => parseGetOptions(new URLSearchParams('resourceVersion=x'))).toThrow(
      'invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax',
    );
  });
});

// --- properties ------------------------------------------------------------------------------

const paramValue = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '5',
    '-1',
    'true',
    'false',
    'True',
    'x',
    'Exact',
    'NotOlderThan',
    'a=b',
    'a in (b)',
    token,
  ),
  fc.string({ maxLength: 8 }),
);
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'watch',
        'resourceVersion',
        'resourceVersionMatch',
        'limit',
        'continue',
        'labelSelector',
        'fieldSelector',
        'allowWatchBookmarks',
        'sendInitialEvents',
        'timeoutSeconds',
        'pretty',
        'dryRun',
      ),
      paramValue,
    ),
    { maxLength: 6 },
  )
  .map((pairs) => new URLSearchParams(pairs));

describe('list options properties', () => {
  it('any query either parses or is a 400/422 ApiError, never another exception', () => {
    fc.assert(
      fc.property(query, (q) => {
        try {
          parseListOptions(q);
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          expect([400, 422]).toContain((err as ApiError).code);
        }
      }),
    );
  });

  it('whatever parses classifies without error and re-parses from its own query', () => {
    fc.assert(
      fc.property(query, (q) => {
        let options: ListOptions;
        try {
          options = parseListOptions(q);
        } catch {
          return;
        }
        if (options.watch) expect(classifyWatch(options)).toBeDefined();
        else expect(classifyList(options)).toBeDefined();
        const again = parseListOptions(listOptionsToQuery(options));
        expect(again.labelSelector.toString()).toBe(options.labelSelector.toString());
        expect(again.fieldSelector.toString()).toBe(options.fieldSelector.toString());
        expect({ ...again, labelSelector: 0, fieldSelector: 0 }).toEqual({
          ...options,
          labelSelector: 0,
          fieldSelector: 0,
        });
      }),
    );
  });

  it('an unset resourceVersion is always a consistent list; "0" always any', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1000 }),
        fc.constantFrom(undefined, 'NotOlderThan' as const),
        (limit, match) => {
          expect(classifyList({ limit })).toEqual({ mode: 'consistent' });
          expect(
            classifyList({
              resourceVersion: '0',
              limit,
              ...(match ? { resourceVersionMatch: match } : {}),
            }),
          ).toEqual({ mode: 'any' });
        },
      ),
    );
  });
});

const resourceVersion = fc.oneof(
  fc.constantFrom(undefined, '', '0', '00', '1', '9223372036854775807', '9223372036854775808'),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String),
  fc.string({ maxLength: 4 }),
);

describe('resourceVersion classification properties', () => {
  it('parseGetOptions accepts exactly the valid resourceVersions, else a 400', () => {
    fc.assert(
      fc.property(resourceVersion, (rv) => {
        const query = new URLSearchParams(rv === undefined ? '' : { resourceVersion: rv });
        if (rv === undefined || isValidResourceVersion(rv)) {
          expect(parseGetOptions(query)).toEqual(rv ? { resourceVersion: rv } : {});
        } else {
          expect(() => parseGetOptions(query)).toThrow(ApiError);
        }
      }),
    );
  });

  it('every classification reads a resourceVersion as classifyRead does', () => {
    fc.assert(
      fc.property(
        resourceVersion.filter((rv) => rv === undefined || isValidResourceVersion(rv)),
        fc.constantFrom(undefined, 'Exact' as const, 'NotOlderThan' as const),
        fc.nat({ max: 3 }),
        fc.constantFrom(undefined, true, false),
        fc.boolean(),
        (rv, match, limit, sendInitialEvents, allowWatchBookmarks) => {
          const read = classifyRead(rv);
          // "" and "0" (in any spelling) are consistent and any; N is never clamped below N.
          if (!rv) expect(read).toEqual({ mode: 'consistent' });
          else if (BigInt(rv) === 0n) expect(read).toEqual({ mode: 'any' });
          else expect(read).toMatchObject({ mode: 'notOlderThan' });
          expect(classifyGet(rv ? { resourceVersion: rv } : {})).toEqual(read);

          const options = {
            ...(rv ? { resourceVersion: rv } : {}),
            ...(match ? { resourceVersionMatch: match } : {}),
            limit,
          };
          const list = classifyList(options);
          expect(isContinuedList(list)).toBe(false);
          const exact = match === 'Exact' || (match === undefined && limit > 0);
          expect(list).toEqual(
            read.mode === 'notOlderThan' && exact ? { ...read, mode: 'exact' } : read,
          );

          const watch = classifyWatch({
            ...(rv ? { resourceVersion: rv } : {}),
            ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
            allowWatchBookmarks,
          });
          const initial = sendInitialEvents ?? read.mode !== 'notOlderThan';
          expect(watch.initialEvents).toBe(initial);
          if (watch.initialEvents) {
            expect(watch.read).toEqual(read);
            expect(watch.initialEventsEndBookmark).toBe(
              sendInitialEvents === true && allowWatchBookmarks,
            );
          } else {
            expect(watch.from).toEqual(
              read.mode === 'notOlderThan'
                ? { mode: 'after', resourceVersion: read.resourceVersion }
                : read,
            );
          }
        },
      ),
    );
  });
});
