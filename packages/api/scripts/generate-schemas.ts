// Generates src/generated/schemas.ts, the schema source, from the generated.proto files of
// kubernetes/api and kubernetes/apimachinery (k8s.io/api/<group>/<version>/generated.proto and
// k8s.io/apimachinery/pkg/...), which carry every field with its proto number, its Go doc
// comment and the Go markers in it (+optional, +patchStrategy, +listType...).
//
//   pnpm --filter @listwatch/api generate:schemas -- <proto dir> [--golden <dir>] [--revision <text>]
//
// <proto dir> holds k8s.io/...; the .proto files vendored in this package (proto/k8s.io/..., the
// groups the reference set lacks: autoscaling/v2, apiextensions.k8s.io/v1) are read with it.
// --golden checks the result against kubernetes/api's
// testdata/HEAD/<group>.<version>.<Kind>.json fixtures (every field set): each of their fields
// must be one the source declares. --revision names the upstream commits in the output.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { builtinResources } from '../src/builtin-resource-definitions.js';
import {
  isProtoScalar,
  type JsonForm,
  type SchemaSource,
  type SourceField,
  type SourceKind,
  type SourceType,
} from '../src/schema-types.js';

const OUT = fileURLToPath(new URL('../src/generated/schemas.ts', import.meta.url));
/** Upstream .proto files kept in the package, unchanged (proto/README.md names their commits). */
const VENDORED = fileURLToPath(new URL('../proto', import.meta.url));
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

// --- what the .proto files do not say ---------------------------------------------------------

/**
 * Go types that marshal themselves (MarshalJSON and OpenAPISchemaType in apimachinery): their
 * messages are not their JSON.
 */
const JSON_FORMS: Readonly<Record<string, JsonForm>> = {
  [`${META}.Time`]: 'date-time',
  [`${META}.MicroTime`]: 'date-time',
  [`${META}.Duration`]: 'duration',
  [`${META}.FieldsV1`]: 'object',
  [`${META}.Patch`]: 'object',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'object',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'int-or-string',
  // apiextensions.k8s.io/v1 (marshal.go): any JSON, and a schema or something else.
  [`${APIEXTENSIONS}.JSON`]: 'object',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: 'schema-or-array',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: 'schema-or-bool',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: 'schema-or-string-array',
};

/**
 * Structs Go embeds with `json:""` (encoding/json writes their fields in the parent), by their
 * message and the proto name of the embedding field; the .proto shows them as plain fields.
 */
const EMBEDDED: readonly (readonly [string, string])[] = [
  ['k8s.io.api.core.v1.VolumeSource', 'volumeSource'],
  ['k8s.io.api.core.v1.PersistentVolumeSource', 'persistentVolumeSource'],
  ['k8s.io.api.core.v1.ProbeHandler', 'handler'],
  ['k8s.io.api.core.v1.EphemeralContainerCommon', 'ephemeralContainerCommon'],
  ['k8s.io.api.core.v1.LocalObjectReference', 'localObjectReference'],
  ['k8s.io.api.networking.v1.IngressRuleValue', 'ingressRuleValue'],
];

/**
 * go-to-protobuf names a field after its Go name when that is an initialism (`UID` → `uID`):
 * the JSON names of those, by message and proto name. Any other such name stops the generator.
 */
const JSON_NAMES: Readonly<Record<string, string>> = {
  'k8s.io.api.authentication.v1.BoundObjectReference.uID': 'uid',
  'k8s.io.api.networking.v1.IngressClassParametersReference.aPIGroup': 'apiGroup',
  // JSONSchemaProps names JSON Schema's keywords in its json tags.
  [`${APIEXTENSIONS}.JSONSchemaProps.schema`]: '$schema',
  [`${APIEXTENSIONS}.JSONSchemaProps.ref`]: '$ref',
  ...Object.fromEntries(
    [
      'PreserveUnknownFields',
      'EmbeddedResource',
      'IntOrString',
      'ListMapKeys',
      'ListType',
      'MapType',
      'Validations',
    ].map((name) => [
      `${APIEXTENSIONS}.JSONSchemaProps.xKubernetes${name}`,
      `x-kubernetes-${name.replace(/[A-Z]/g, (c, i: number) => `${i ? '-' : ''}${c.toLowerCase()}`)}`,
    ]),
  ),
  // A field of a self-marshalling type, never a JSON name (the form writes it).
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray.jSONSchemas`]: 'JSONSchemas',
};

/**
 * Go facts by message and proto field name (`pointer`, `keepEmpty`): scripts/go-fields.json,
 * extracted from the Go types by scripts/extract-go-fields.ts.
 */
const GO_FIELDS = JSON.parse(
  readFileSync(fileURLToPath(new URL('./go-fields.json', import.meta.url)), 'utf8'),
) as Record<string, Record<string, string> | undefined>;

/**
 * Alpha fields behind a feature gate that is off by default, whose types live in an API group
 * the reference .proto files do not carry (JobSpec.scheduling: scheduling/v1alpha3, gate
 * WorkloadWithJob). kube-apiserver drops a disabled field on write (the job strategy's
 * dropDisabledFields), so the source leaves it out; the golden check skips what is under it.
 */
const DISABLED_FIELDS: readonly string[] = ['k8s.io.api.batch.v1.JobSpec.scheduling'];

// --- the kinds ---------------------------------------------------------------------------------

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** The proto package of an API group: `core`, or the group's first label (kube's naming). */
function messageOf(gvk: Gvk): string {
  const pkg = gvk.group === '' ? 'core' : (gvk.group.split('.')[0] ?? gvk.group);
  return `k8s.io.api.${pkg}.${gvk.version}.${gvk.kind}`;
}

/**
 * Kinds the apiserver defines outside builtin-resources.ts, with their messages:
 * apiextensions.k8s.io's CustomResourceDefinition (apiextensions-apiserver's generated.proto).
 */
const OTHER_KINDS: readonly { gvk: Gvk; message: string }[] = [
  'CustomResourceDefinition',
  'CustomResourceDefinitionList',
].map((kind) => ({
  gvk: { group: 'apiextensions.k8s.io', version: 'v1', kind },
  message: `${APIEXTENSIONS}.${kind}`,
}));

/** Kinds not served yet whose golden fixtures (kubernetes/api testdata) the protobuf codec will be tested against. */
const FIXTURE_KINDS: readonly Gvk[] = [
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
].map((kind) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', kind }));

/** The kinds of the source and their messages: what we serve, plus what the wire needs. */
function kindRoots(): { gvk: Gvk; message: string }[] {
  const roots = new Map<string, { gvk: Gvk; message: string }>();
  const add = (gvk: Gvk, message = messageOf(gvk)) => {
    roots.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, { gvk, message });
  };
  const listable = [
    ...builtinResources.filter((def) => def.verbs.includes('list')),
    ...FIXTURE_KINDS,
  ];
  for (const def of [...builtinResources, ...FIXTURE_KINDS]) {
    add(def);
    // A create-only review has no list kind (kube registers one only for what lists).
    if (listable.includes(def)) add({ ...def, kind: `${def.kind}List` });
  }
  for (const { gvk, message } of OTHER_KINDS) add(gvk, message);
  // Subresource bodies (apiserver discovery/subresources.ts).
  add({ group: '', version: 'v1', kind: 'Binding' });
  add({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
  add({ group: 'policy', version: 'v1', kind: 'Eviction' });
  add({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
  // metav1 kinds, tagged as kube-apiserver's OpenAPI tags them: in the core group, and
  // DeleteOptions also in meta.k8s.io (the apiserver adds the groups it serves).
  // The legacy discovery documents are metav1 kinds too, served in protobuf as well.
  for (const kind of [
    'Status',
    'APIResourceList',
    'DeleteOptions',
    'APIVersions',
    'APIGroupList',
    'APIGroup',
  ]) {
    add({ group: '', version: 'v1', kind }, `${META}.${kind}`);
  }
  add({ group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' }, `${META}.DeleteOptions`);
  return [...roots.values()];
}

/**
 * Messages every consumer needs besides the kinds': the protobuf codec's envelope
 * (runtime.Unknown) and watch event (metav1.WatchEvent) among them.
 */
const EXTRA_MESSAGES = [
  `${META}.TypeMeta`,
  `${META}.Patch`,
  `${META}.WatchEvent`,
  'k8s.io.apimachinery.pkg.runtime.Unknown',
  // autoscaling/v1's round-trip annotations hold these (apiserver registry/autoscaling/horizontalpodautoscaler/conversion.ts).
  'k8s.io.api.autoscaling.v1.MetricSpec',
  'k8s.io.api.autoscaling.v1.MetricStatus',
];

// --- reading the .proto files ------------------------------------------------------------------

function protoFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return protoFiles(path);
    return entry.name.endsWith('.proto') ? [path] : [];
  });
}

function loadRoot(dirs: readonly string[]): protobuf.Root {
  const root = new protobuf.Root();
  for (const dir of dirs) {
    if (protoFiles(dir).length === 0) throw new Error(`no .proto files under ${dir}`);
  }
  const files = dirs.flatMap(protoFiles);
  for (const file of files) {
    // alternateCommentMode keeps `//` comments, where the Go docs and markers are.
    protobuf.parse(readFileSync(file, 'utf8'), root, {
      keepCase: true,
      alternateCommentMode: true,
    });
  }
  // Resolved field by field as the walk reaches them: a file may import one that is not here.
  return root;
}

/** `k8s.io.api.core.v1.Pod` → `io.k8s.api.core.v1.Pod`, the OpenAPI definition name. */
function definitionName(message: string): string {
  // go-to-protobuf spells a dash of the Go package as an underscore; OpenAPI keeps the dash.
  const name = message
    .replace(/^\./, '')
    .replace('apiextensions_apiserver', 'apiextensions-apiserver');
  return name.startsWith('k8s.io.') ? `io.k8s.${name.slice('k8s.io.'.length)}` : name;
}

/** The `+name=value` markers of a comment, in order (`+optional` has value ''). */
function markers(comment: string | null): [string, string][] {
  const found: [string, string][] = [];
  for (const line of (comment ?? '').split('\n')) {
    const match = /^\+([\w.:/-]+)(?:=(.*))?$/.exec(line.trim());
    if (match?.[1]) found.push([match[1], match[2] ?? '']);
  }
  return found;
}

/**
 * A Go doc comment as kube's OpenAPI words it (k8s.io/kube-openapi fmtRawDoc): nothing after
 * `---`, no `+marker` or `TODO` lines, lines joined, paragraphs kept.
 */
function describe(comment: string | null): string | undefined {
  let out = '';
  for (const raw of (comment ?? '').split('---')[0]?.split('\n') ?? []) {
    const line = raw.trimEnd();
    const leading = line.trimStart();
    if (line === '') out = `${out.replace(/[ \n]$/, '')}\n\n`;
    else if (leading.startsWith('TODO') || leading.startsWith('+')) continue;
    else out += `${line} `;
  }
  const text = out.trim();
  return text === '' ? undefined : text;
}

/** A scalar the source's consumers know (no unsigned or fixed types in Kubernetes' .proto). */
function scalar(field: protobuf.Field): string {
  if (!isProtoScalar(field.type)) throw new Error(`${field.fullName}: scalar ${field.type}`);
  return field.type;
}

function typeOf(field: protobuf.Field, queue: (message: string) => string): string {
  field.resolve();
  const element = field.resolvedType ? queue(field.resolvedType.fullName) : scalar(field);
  if (field instanceof protobuf.MapField) {
    if (field.keyType !== 'string')
      throw new Error(`${field.fullName}: a map keyed by ${field.keyType}`);
    return `map[string]${element}`;
  }
  return field.repeated ? `[]${element}` : element;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], where: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`${where}: unexpected marker value ${value}`);
}

function defaultOf(value: string): SourceField['default'] {
  // `+default=ref(GoConstant)` names a Go constant the .proto does not have: left out.
  try {
    const parsed = JSON.parse(value) as unknown;
    if (['string', 'number', 'boolean'].includes(typeof parsed)) {
      return parsed as string | number | boolean;
    }
  } catch {
    // not a JSON literal
  }
  return undefined;
}

function sourceField(
  message: protobuf.Type,
  field: protobuf.Field,
  queue: (message: string) => string,
): SourceField {
  const messageName = message.fullName.replace(/^\./, '');
  const where = `${messageName}.${field.name}`;
  let name = field.name;
  const json = JSON_NAMES[where];
  if (json) name = json;
  else if (/^[a-z][A-Z]/.test(name))
    throw new Error(`${where}: no JSON name known for this go-to-protobuf name`);
  const type = typeOf(field, queue);
  const fieldType = field.resolvedType?.fullName.replace(/^\./, '');
  const inline = EMBEDDED.some(
    ([embedded, proto]) => embedded === fieldType && proto === field.name,
  );
  const out: {
    -readonly [K in keyof SourceField]: SourceField[K];
  } = { name, number: field.id, type };
  if (name !== field.name) out.protoName = field.name;
  const description = describe(field.comment);
  if (description) out.description = description;
  const keys: string[] = [];
  for (const [marker, value] of markers(field.comment)) {
    switch (marker) {
      case 'optional':
      case 'k8s:optional':
        out.optional = true;
        break;
      case 'required':
      case 'k8s:required':
        out.required = true;
        break;
      case 'default': {
        const parsed = defaultOf(value);
        if (parsed !== undefined) out.default = parsed;
        break;
      }
      case 'patchStrategy':
        out.patchStrategy = value;
        break;
      case 'patchMergeKey':
        out.patchMergeKey = value;
        break;
      case 'listType':
        out.listType = oneOf(value, ['atomic', 'set', 'map'], where);
        break;
      case 'listMapKey':
        keys.push(value);
        break;
      case 'mapType':
        out.mapType = oneOf(value, ['atomic', 'granular'], where);
        break;
    }
  }
  if (keys.length) out.listMapKeys = keys;
  if (inline) out.inline = true;
  const goFacts = (GO_FIELDS[messageName]?.[field.name] ?? '').split(',');
  if (goFacts.includes('pointer')) out.pointer = true;
  else if (goFacts.includes('keepEmpty')) out.keepEmpty = true;
  return out;
}

function sourceType(message: protobuf.Type, queue: (message: string) => string): SourceType {
  const name = message.fullName.replace(/^\./, '');
  const out: { -readonly [K in keyof SourceType]: SourceType[K] } = {
    fields: message.fieldsArray
      .filter((field) => !DISABLED_FIELDS.includes(`${name}.${field.name}`))
      .map((field) => sourceField(message, field, queue)),
  };
  const description = describe(message.comment);
  if (description) out.description = description;
  const typeMarkers = markers(message.comment);
  const json = JSON_FORMS[name];
  const only = message.fieldsArray[0];
  if (json) out.json = json;
  else if (
    // A named slice (`type Verbs []string`): go-to-protobuf wraps it in a message of `items`.
    typeMarkers.some(([marker]) => marker === 'protobuf.nullable') &&
    message.fieldsArray.length === 1 &&
    only?.name === 'items' &&
    only.repeated
  ) {
    out.json = 'items';
  }
  for (const [marker, value] of typeMarkers) {
    if (marker === 'structType') out.structType = oneOf(value, ['atomic', 'granular'], name);
  }
  return out;
}

// --- the golden check --------------------------------------------------------------------------

/** Every JSON path in the fixtures that the source does not declare. */
function goldenProblems(source: SchemaSource, dir: string): { checked: number; unknown: string[] } {
  const unknown: string[] = [];
  let checked = 0;
  const fieldsOf = (typeName: string, kind: boolean): Map<string, string> => {
    const fields = new Map<string, string>();
    if (kind)
      for (const f of source.types[definitionName(`${META}.TypeMeta`)]?.fields ?? [])
        fields.set(f.name, f.type);
    const add = (name: string) => {
      for (const f of source.types[name]?.fields ?? []) {
        if (f.inline) add(f.type);
        else fields.set(f.name, f.type);
      }
    };
    add(typeName);
    return fields;
  };
  const walk = (value: unknown, type: string, path: string, kind = false): void => {
    if (type.startsWith('[]')) {
      if (Array.isArray(value)) value.forEach((v, i) => walk(v, type.slice(2), `${path}[${i}]`));
      return;
    }
    if (type.startsWith('map[string]')) {
      if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value))
          walk(v, type.slice('map[string]'.length), `${path}.${k}`);
      }
      return;
    }
    const t = source.types[type];
    if (!t || !value || typeof value !== 'object') return;
    if (t.json === 'items') {
      const items = t.fields[0]?.type;
      if (items) walk(value, items, path);
      return;
    }
    if (t.json) return;
    const fields = fieldsOf(type, kind);
    for (const [key, inner] of Object.entries(value)) {
      const fieldType = fields.get(key);
      if (fieldType === undefined) {
        if (!DISABLED_FIELDS.some((f) => definitionName(f) === `${type}.${key}`))
          unknown.push(`${path}.${key}`);
      } else walk(inner, fieldType, `${path}.${key}`);
    }
  };
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const match = /^(.*)\.(v\w+)\.(\w+)\.json$/.exec(file);
    if (!match) continue;
    const [, group = '', version = '', kindName = ''] = match;
    const kind = source.kinds.find(
      (k) =>
        k.group === (group === 'core' ? '' : group) && k.version === version && k.kind === kindName,
    );
    if (!kind) continue;
    checked++;
    walk(JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown, kind.type, kindName, true);
  }
  return { checked, unknown };
}

/** JSON with a line per kind, type and field: readable diffs when upstream changes. */
function serialize(source: SchemaSource): string {
  const j = (value: unknown) => JSON.stringify(value);
  const type = ([name, t]: [string, SourceType]) => {
    const { fields, ...rest } = t;
    const head = Object.entries(rest)
      .map(([k, v]) => `${j(k)}: ${j(v)}, `)
      .join('');
    const body = fields.map((f) => `      ${j(f)}`).join(',\n');
    return `    ${j(name)}: {${head}"fields": [${fields.length ? `\n${body}\n    ` : ''}]}`;
  };
  return [
    '{',
    `  "source": ${j(source.source)},`,
    '  "kinds": [',
    source.kinds.map((k) => `    ${j(k)}`).join(',\n'),
    '  ],',
    '  "types": {',
    Object.entries(source.types).map(type).join(',\n'),
    '  }',
    '}',
  ].join('\n');
}

// --- main ----------------------------------------------------------------------------------------

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined) throw new Error(`${name} needs a value`);
  args.splice(i, 2);
  return value;
}

function main(argv: string[]): void {
  const args = argv.filter((a) => a !== '--');
  const golden = option(args, '--golden');
  const revision = option(args, '--revision');
  const [protoDir] = args;
  if (!protoDir || args.length !== 1) {
    throw new Error('usage: generate-schemas <proto dir> [--golden <dir>] [--revision <text>]');
  }
  const root = loadRoot([resolve(protoDir), VENDORED]);

  const types: Record<string, SourceType> = {};
  const pending: string[] = [];
  const queue = (message: string): string => {
    const name = message.replace(/^\./, '');
    pending.push(name);
    return definitionName(name);
  };
  const kinds: SourceKind[] = kindRoots().map(({ gvk, message }) => ({
    group: gvk.group,
    version: gvk.version,
    kind: gvk.kind,
    type: queue(message),
  }));
  EXTRA_MESSAGES.forEach(queue);
  for (let message = pending.shift(); message !== undefined; message = pending.shift()) {
    const name = definitionName(message);
    if (types[name]) continue;
    types[name] = sourceType(root.lookupType(message), queue);
  }

  const source: SchemaSource = {
    source: `kubernetes/api, kubernetes/apimachinery and kubernetes/apiextensions-apiserver generated.proto${revision ? ` (${revision})` : ''}`,
    kinds,
    types: Object.fromEntries(Object.entries(types).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
  if (golden) {
    const { checked, unknown } = goldenProblems(source, resolve(golden));
    if (unknown.length) throw new Error(`golden fields the source lacks:\n${unknown.join('\n')}`);
    console.log(`checked ${checked} golden fixtures: every field is declared`);
  }
  const text = [
    '// Generated by scripts/generate-schemas.ts from kubernetes/api, kubernetes/apimachinery and',
    '// kubernetes/apiextensions-apiserver generated.proto. Do not edit: run `pnpm --filter @listwatch/api generate:schemas -- <proto dir>`.',
    "import type { SchemaSource } from '../schema-types.js';",
    '',
    `export const schemaSource: SchemaSource = ${serialize(source)};`,
    '',
  ].join('\n');
  writeFileSync(OUT, text);
  console.log(
    `${OUT}: ${kinds.length} kinds, ${Object.keys(types).length} types, ${text.length} bytes`,
  );
}

main(process.argv.slice(2));
