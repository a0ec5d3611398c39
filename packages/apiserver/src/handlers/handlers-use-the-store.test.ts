import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Handlers only negotiate, decode, call a REST storage (registry/generic/store.ts and the
// subresources' storages) and encode, as kube's endpoints/handlers do: none reaches storage.

const dir = fileURLToPath(new URL('.', import.meta.url));
const handlers = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

/** What reaching storage looks like in source: its package, or a storage or watch cache handle. */
const STORAGE_USE = [/\.storage\b/, /\.source\b/, /\bcachedObject\(/, /\bguaranteedUpdate\(/];

describe('handlers call the Store, never storage (endpoints/handlers)', () => {
  it('no handler module imports @listwatch/storage or touches a storage or watch cache', () => {
    const offences: string[] = [];
    for (const file of handlers) {
      const lines = readFileSync(`${dir}/${file}`, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/from '@listwatch\/storage'/.test(line))
          offences.push(`${file}:${i + 1}: ${line.trim()}`);
        if (/^import /.test(line)) return;
        for (const pattern of STORAGE_USE)
          if (pattern.test(line)) offences.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offences).toEqual([]);
  });

  it('the scan reads every handler, the write path among them', () => {
    expect(handlers).toEqual(
      expect.arrayContaining([
        'write.ts',
        'apply.ts',
        'delete.ts',
        'read.ts',
        'scale-subresource.ts',
      ]),
    );
  });
});
