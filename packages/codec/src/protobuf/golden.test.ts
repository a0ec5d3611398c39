import { schemaFor } from '@listwatch/api';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeProtobuf, encodeProtobuf } from './kube-protobuf.js';

// kubernetes/api testdata/HEAD fixtures: the same object, every field set, in JSON and in
// protobuf. They are reference data kept outside the repository.
const GOLDEN =
  process.env['LISTWATCH_GOLDEN_DIR'] ?? '/work/shared/reference/kubernetes-api/golden';

function fixtures(): { name: string; json: unknown; pb: Uint8Array }[] {
  if (!existsSync(GOLDEN)) return [];
  return readdirSync(GOLDEN)
    .filter((file) => file.endsWith('.json'))
    .flatMap((file) => {
      const match = /^(.*)\.(v\w+)\.(\w+)\.json$/.exec(file);
      if (!match) return [];
      const [, group = '', version = '', kind = ''] = match;
      if (!schemaFor({ group: group === 'core' ? '' : group, version, kind })) return [];
      const name = file.slice(0, -'.json'.length);
      return [
        {
          name,
          json: JSON.parse(readFileSync(join(GOLDEN, file), 'utf8')) as unknown,
          pb: new Uint8Array(readFileSync(join(GOLDEN, `${name}.pb`))),
        },
      ];
    });
}

const cases = fixtures();

describe.skipIf(cases.length === 0)('the golden fixtures of kubernetes/api testdata/HEAD', () => {
  it('cover the kinds the schema source serves', () => {
    expect(cases.map((c) => c.name)).toEqual(
      expect.arrayContaining(['apps.v1.Deployment', 'core.v1.Pod', 'core.v1.Service']),
    );
  });

  it.each(cases)('decoding $name.pb gives exactly $name.json', ({ json, pb }) => {
    expect(decodeProtobuf(pb)).toStrictEqual(json);
  });

  it.each(cases)('encoding $name.json gives $name.pb byte for byte', ({ json, pb }) => {
    expect(Buffer.from(encodeProtobuf(json)).toString('hex')).toBe(Buffer.from(pb).toString('hex'));
  });
});
