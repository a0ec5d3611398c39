import { groupResourceString, isRecord, type ResourceDefinition } from '@listwatch/api';
import {
  cbcTransformer,
  gcmTransformer,
  identityTransformer,
  prefixTransformers,
  secretboxTransformer,
  type PrefixedTransformer,
  type Transformer,
  type TransformerForKey,
} from '@listwatch/storage';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

// `--encryption-provider-config`: an apiserver.config.k8s.io/v1 EncryptionConfiguration, read
// as kube-apiserver does (k8s.io/apiserver pkg/server/options/encryptionconfig/config.go, its
// validation in pkg/apis/apiserver/validation/validation_encryption.go). Secrets named in it are
// written encrypted by the first provider and read by any; kms providers are not supported.

const PROVIDERS = ['aescbc', 'aesgcm', 'secretbox', 'identity', 'kms'] as const;

/** What each keyed provider accepts: its key sizes and how it makes a transformer. */
const KEYED: Record<string, { sizes: number[]; make: (key: Uint8Array) => Transformer }> = {
  aescbc: { sizes: [16, 24, 32], make: cbcTransformer },
  aesgcm: { sizes: [16, 24, 32], make: gcmTransformer },
  secretbox: { sizes: [32], make: secretboxTransformer },
};

/** A configuration file that cannot be used: the server refuses to start, saying why. */
export class EncryptionConfigError extends Error {
  constructor(file: string, problems: string[]) {
    super(`invalid --encryption-provider-config ${file}: ${problems.join('; ')}`);
    this.name = 'EncryptionConfigError';
  }
}

interface ResourceRule {
  /** `secrets`, `deployments.apps`, `*.apps`, `*.*`. */
  resources: string[];
  transformer: Transformer;
}

function providerTransformers(
  providers: unknown,
  path: string,
  problems: string[],
): PrefixedTransformer[] {
  if (!Array.isArray(providers) || providers.length === 0) {
    problems.push(`${path}: Required value: at least one provider is required`);
    return [];
  }
  const out: PrefixedTransformer[] = [];
  providers.forEach((provider: unknown, i) => {
    const at = `${path}[${i}]`;
    const kinds = isRecord(provider) ? Object.keys(provider) : [];
    if (kinds.length !== 1 || !PROVIDERS.includes(kinds[0] as (typeof PROVIDERS)[number])) {
      problems.push(
        `${at}: Invalid value: exactly one provider of ${PROVIDERS.join(', ')} must be set`,
      );
      return;
    }
    const kind = kinds[0]!;
    if (kind === 'identity') {
      out.push({ prefix: '', transformer: identityTransformer });
      return;
    }
    if (kind === 'kms') {
      problems.push(`${at}.kms: Unsupported value: kms providers are not supported here`);
      return;
    }
    const spec = KEYED[kind]!;
    const keys = (provider as Record<string, unknown>)[kind];
    const list = isRecord(keys) ? keys['keys'] : undefined;
    if (!Array.isArray(list) || list.length === 0) {
      problems.push(`${at}.${kind}.keys: Required value: keys must contain at least one key`);
      return;
    }
    const names = new Set<string>();
    list.forEach((key: unknown, k) => {
      const keyPath = `${at}.${kind}.keys[${k}]`;
      const name = isRecord(key) ? key['name'] : undefined;
      const secret = isRecord(key) ? key['secret'] : undefined;
      if (typeof name !== 'string' || name === '') {
        problems.push(`${keyPath}.name: Required value: key name is required`);
        return;
      }
      if (name.includes(':')) {
        problems.push(`${keyPath}.name: Invalid value: "${name}": key name must not contain ":"`);
        return;
      }
      if (names.has(name)) {
        problems.push(`${keyPath}.name: Duplicate value: "${name}"`);
        return;
      }
      names.add(name);
      const bytes =
        typeof secret === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(secret)
          ? Buffer.from(secret, 'base64')
          : undefined;
      if (!bytes || !spec.sizes.includes(bytes.length)) {
        // The secret itself never reaches a message.
        problems.push(
          `${keyPath}.secret: Invalid value: "REDACTED": secret is not of the expected length, got ${bytes?.length ?? 0}, expected one of ${JSON.stringify(spec.sizes)}`,
        );
        return;
      }
      out.push({ prefix: `k8s:enc:${kind}:v1:${name}:`, transformer: spec.make(bytes) });
    });
  });
  return out;
}

/** Parses an EncryptionConfiguration (YAML or JSON) into its rules, or throws saying why. */
export function parseEncryptionConfiguration(text: string, file: string): ResourceRule[] {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (err) {
    throw new EncryptionConfigError(file, [
      `not YAML or JSON: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
  if (
    !isRecord(document) ||
    document['kind'] !== 'EncryptionConfiguration' ||
    document['apiVersion'] !== 'apiserver.config.k8s.io/v1'
  )
    throw new EncryptionConfigError(file, [
      'expected kind EncryptionConfiguration, apiVersion apiserver.config.k8s.io/v1',
    ]);
  const problems: string[] = [];
  const rules: ResourceRule[] = [];
  const entries = document['resources'];
  if (!Array.isArray(entries) || entries.length === 0)
    problems.push('resources: Required value: resources must contain at least one entry');
  (Array.isArray(entries) ? entries : []).forEach((entry: unknown, i) => {
    const resources = isRecord(entry) ? entry['resources'] : undefined;
    if (
      !Array.isArray(resources) ||
      resources.length === 0 ||
      !resources.every((r) => typeof r === 'string' && r !== '')
    ) {
      problems.push(`resources[${i}].resources: Required value: resources must be named`);
      return;
    }
    const providers = providerTransformers(
      isRecord(entry) ? entry['providers'] : undefined,
      `resources[${i}].providers`,
      problems,
    );
    if (providers.length)
      rules.push({ resources: resources as string[], transformer: prefixTransformers(providers) });
  });
  if (problems.length) throw new EncryptionConfigError(file, problems);
  return rules;
}

/** Whether a configured name (`secrets`, `*.apps`, `*.*`) names `resource` of `group`. */
function names(pattern: string, resource: string, group: string): boolean {
  if (pattern === '*.*') return true;
  const dot = pattern.indexOf('.');
  const [plural, patternGroup] =
    dot === -1 ? [pattern, ''] : [pattern.slice(0, dot), pattern.slice(dot + 1)];
  return patternGroup === group && (plural === '*' || plural === resource);
}

/**
 * The transformer of each storage key: the first rule naming the key's resource. Built-in keys
 * are `<prefix>/<plural>/...` (the group from the definitions); custom resources'
 * `<prefix>/<group>/<plural>/...`, as kube-apiserver lays out etcd.
 */
export function transformersByResource(
  rules: readonly ResourceRule[],
  storagePrefix: string,
  definitions: readonly Pick<ResourceDefinition, 'plural' | 'group'>[],
): TransformerForKey {
  const groupOf = new Map(definitions.map((d) => [d.plural, d.group]));
  const cache = new Map<string, Transformer | undefined>();
  return (key) => {
    const rest = key.slice(storagePrefix.length + 1).split('/');
    const first = rest[0] ?? '';
    const [resource, group] = first.includes('.')
      ? [rest[1] ?? '', first]
      : [first, groupOf.get(first) ?? ''];
    const id = groupResourceString({ resource, group });
    if (!cache.has(id))
      cache.set(
        id,
        rules.find((rule) => rule.resources.some((p) => names(p, resource, group)))?.transformer,
      );
    return cache.get(id);
  };
}

/** Reads `--encryption-provider-config` into the storage's transformers. */
export function loadEncryptionConfig(
  file: string,
  storagePrefix: string,
  definitions: readonly Pick<ResourceDefinition, 'plural' | 'group'>[],
): TransformerForKey {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new EncryptionConfigError(file, [
      `cannot read: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
  return transformersByResource(
    parseEncryptionConfiguration(text, file),
    storagePrefix,
    definitions,
  );
}
