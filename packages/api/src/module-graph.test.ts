import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What a module loads at run time: its static imports and re-exports, `import type` excepted
// (verbatimModuleSyntax erases only those), followed through the package's own files.

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT = /^(import|export)\s+(type\s+)?[^'";]*?from\s+'(\.[^']+)'|^import\s+'(\.[^']+)'/gms;

function loadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      if (m[2]) continue; // import type / export type
      const spec = m[3] ?? m[4];
      if (spec) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    }
  };
  visit(resolve(SRC, entry));
  return seen;
}

const SCHEMAS = resolve(SRC, 'generated/schemas.ts');

describe('the module graph of @listwatch/api', () => {
  it('parsing label and field selectors, reading the built-in field labels and the kind table (builtinKinds) does not load the schema source (generated/schemas.ts)', () => {
    for (const entry of [
      'field-selector.ts',
      'label-selector.ts',
      'builtin-field-labels.ts',
      // The kind table a client looks kinds up in names its printers, never loads them.
      'builtin-resources.ts',
    ]) {
      expect([...loadedBy(entry)], entry).not.toContain(SCHEMAS);
    }
  });

  it('the Table printers do load it (their column descriptions are the schema docs): the walk sees a real import', () => {
    expect(loadedBy('builtin-table-printers.ts')).toContain(SCHEMAS);
    expect(loadedBy('builtin-resource-definitions.ts')).toContain(SCHEMAS);
    expect(loadedBy('index.ts')).toContain(SCHEMAS);
  });
});
