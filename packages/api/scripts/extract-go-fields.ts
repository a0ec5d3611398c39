// Extracts scripts/go-fields.json: the two facts of each Go struct field that the generated.proto
// files do not carry and the protobuf codec needs, read from the Go types of kubernetes/api and
// kubernetes/apimachinery (the commits the .proto files come from):
// - `pointer`: the Go field is a pointer (`*int32`, `*bool`, `*Time`...). gogo's marshaller
//   writes every other field even when zero, so only for pointers does a zero on the wire mean
//   "set to zero" (`replicas: 0`, `automountServiceAccountToken: false`);
// - `keepEmpty`: its json tag lacks omitempty, so encoding/json writes it even when zero
//   (`status.replicas: 0`).
//
//   pnpm --filter @listwatch/api extract:go-fields -- <dir holding k8s.io/api, k8s.io/apimachinery
//   and k8s.io/apiextensions-apiserver>
//
// Only packages with a generated.proto, no alpha or beta versions, are read; messages are named as the .proto names them.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = fileURLToPath(new URL('./go-fields.json', import.meta.url));

function packageDirs(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const here = entries.some((e) => e.isFile() && e.name === 'generated.proto') ? [dir] : [];
  return [
    ...here,
    ...entries
      // Served versions only: alpha and beta packages are left out.
      .filter((e) => e.isDirectory() && e.name !== 'testdata' && !/^v\d+(alpha|beta)/.test(e.name))
      .flatMap((e) => packageDirs(join(dir, e.name))),
  ];
}

const FIELD = /^\s*(?:(\w+)\s+)?(\*?[\w.[\]*]+)\s+`([^`]*)`/;

function tag(tags: string, key: string): string | undefined {
  return new RegExp(`(?:^|\\s)${key}:"([^"]*)"`).exec(tags)?.[1];
}

function main(argv: string[]): void {
  const [root] = argv.filter((a) => a !== '--');
  if (!root) throw new Error('usage: extract-go-fields <dir holding k8s.io/...>');
  const base = resolve(root);
  const out: Record<string, Record<string, string>> = {};
  for (const dir of packageDirs(base)) {
    // The proto package spells a dash as an underscore (k8s.io.apiextensions_apiserver...).
    const pkg = relative(base, dir).split('/').join('.').replace(/-/g, '_');
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_generated'))
        continue;
      if (file === 'generated.pb.go') continue;
      let struct: string | undefined;
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        const open = /^type (\w+) struct \{/.exec(line);
        if (open) {
          struct = open[1];
          continue;
        }
        if (line.startsWith('}')) struct = undefined;
        if (!struct || line.trimStart().startsWith('//')) continue;
        const match = FIELD.exec(line);
        if (!match) continue;
        const [, , goType = '', tags = ''] = match;
        const proto = tag(tags, 'protobuf');
        const json = tag(tags, 'json');
        const protoName = /(?:^|,)name=([^,]+)/.exec(proto ?? '')?.[1];
        if (!protoName || json === undefined) continue;
        const [jsonName = '', ...options] = json.split(',');
        const facts: string[] = [];
        if (goType.startsWith('*')) facts.push('pointer');
        if (jsonName !== '' && jsonName !== '-' && !options.includes('omitempty'))
          facts.push('keepEmpty');
        if (facts.length) (out[`${pkg}.${struct}`] ??= {})[protoName] = facts.join(',');
      }
    }
  }
  const sorted = Object.fromEntries(
    Object.entries(out)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [
        k,
        Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))),
      ]),
  );
  writeFileSync(OUT, `${JSON.stringify(sorted, null, 1)}\n`);
  console.log(`${OUT}: ${Object.keys(sorted).length} messages`);
}

main(process.argv.slice(2));
