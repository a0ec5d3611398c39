import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every write goes through a resource's Store (registry/generic/store.ts) and its strategy, as
// kube's controllers and post-start hooks write through the loopback client: only the registry
// (and the server's wiring, which opens the storage it hands the registry) reaches storage's
// write methods. A controller, an admission plugin or a handler that writes storage itself skips
// admission, validation, allocation and conversion. Reads too: the server's own readers (the RBAC
// policy, the controllers, admission) get, list and watch through the Stores as the loopback
// client, as kube's run on the loopback client's informers — served by the watch cache, in the
// resource's version, never from raw storage keys.

const root = fileURLToPath(new URL('.', import.meta.url));

/** The registry and the wiring that opens storage and hands it over. */
const STORAGE_LAYER = [
  /^registry\//,
  /^encryption\//,
  /^testing\//,
  /^(server|server-config|server-context|server-shutdown|cli|main|metrics)\.ts$/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.ts$/.test(entry.name) && !/\.test(-helper)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

const outside = sources(root)
  .map((path) => relative(root, path))
  .filter((file) => !STORAGE_LAYER.some((pattern) => pattern.test(file)));

/**
 * What writing storage looks like in source: a value imported from the storage package (its
 * classes, its error checks), or a storage's create, delete or GuaranteedUpdate on a key — a
 * REST storage's verbs take the request's context first.
 */
const VALUE_IMPORT = /^import (?!type )[^;]*from '@listwatch\/storage'/s;
const RAW_WRITE = [
  /\bguaranteedUpdate\(/,
  /\bstorage\s*\.\s*(create|delete)\(\s*(?!scope\.context|ctx\b|context\b|this\.context)/,
];
/**
 * What reading storage looks like: a storage's get, list or watch on a key or prefix, or a read of
 * a watch cache (a resource's ListWatchSource) behind its Store's back. A REST storage's verbs
 * take the request's context first.
 */
const RAW_READ = [
  /\bstorage\s*\??\.\s*(get|list|watch)\s*(\?\.)?\(\s*(?!scope\.context|ctx\b|context\b|this\.context)/,
  /\bsource\s*\??\.\s*(get|list|watch|cachedObject)\s*(\?\.)?\(/,
];

describe('storage writes stay in the registry (every write goes through a Store)', () => {
  it('no module outside the registry imports the storage package’s values, writes or reads storage', () => {
    const offences: string[] = [];
    for (const file of outside) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const statement of text.match(/^import [^;]*;/gms) ?? [])
        if (VALUE_IMPORT.test(statement))
          offences.push(`${file}: ${statement.replace(/\s+/g, ' ')}`);
      text.split('\n').forEach((line, i) => {
        if ([...RAW_WRITE, ...RAW_READ].some((pattern) => pattern.test(line)))
          offences.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offences).toEqual([]);
  });

  it('the scan reads the controllers, the CRD and APIService handlers, admission and bootstrap', () => {
    expect(outside).toEqual(
      expect.arrayContaining([
        'apiextensions/crd-handler.ts',
        'apiextensions/customresourcedefinition-strategy.ts',
        'apiregistration/apiservice-controller.ts',
        'controllers/kubernetes-service.ts',
        'controllers/service-accounts.ts',
        'authorization/bootstrap-policy.ts',
        'admission/namespace-lifecycle.ts',
        'admission/admission.ts',
        'authorization/rbac-policy-store.ts',
        'controllers/reflector.ts',
        'handlers/write.ts',
      ]),
    );
  });
});
