import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Attributes } from '../authorization/attributes.js';
import type { AuditStage } from './audit-event.js';
import { isRecord } from '@listwatch/api';

// `--audit-policy-file`: an audit.k8s.io/v1 Policy, checked as k8s.io/apiserver
// pkg/audit/policy/checker.go does (the first rule matching a request gives its level and the
// stages to omit; no rule: level None) and validated as pkg/apis/audit/validation.

export const AUDIT_LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];
const STAGES: readonly AuditStage[] = [
  'RequestReceived',
  'ResponseStarted',
  'ResponseComplete',
  'Panic',
];

interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface AuditPolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: AuditStage[];
}

export interface AuditPolicy {
  rules: AuditPolicyRule[];
  omitStages: AuditStage[];
}

/** What the policy says of one request. */
export interface AuditDecision {
  level: AuditLevel;
  omitStages: readonly AuditStage[];
}

/** Every request at Metadata, every stage: the log without a policy file. */
export const METADATA_POLICY: AuditPolicy = {
  rules: [
    {
      level: 'Metadata',
      users: [],
      userGroups: [],
      verbs: [],
      resources: [],
      namespaces: [],
      nonResourceURLs: [],
      omitStages: [],
    },
  ],
  omitStages: [],
};

/** A policy file that cannot be used: the server refuses to start. */
export class AuditPolicyError extends Error {
  constructor(file: string, problems: string[]) {
    super(`invalid --audit-policy-file ${file}: ${problems.join('; ')}`);
    this.name = 'AuditPolicyError';
  }
}

function strings(value: unknown, path: string, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  problems.push(`${path}: Invalid value: must be a list of strings`);
  return [];
}

function stages(value: unknown, path: string, problems: string[]): AuditStage[] {
  const list = strings(value, path, problems);
  for (const [i, stage] of list.entries())
    if (!STAGES.includes(stage as AuditStage))
      problems.push(
        `${path}[${i}]: Unsupported value: "${stage}": supported values: ${STAGES.map((s) => `"${s}"`).join(', ')}`,
      );
  return list as AuditStage[];
}

function rule(value: unknown, path: string, problems: string[]): AuditPolicyRule | undefined {
  if (!isRecord(value)) {
    problems.push(`${path}: Invalid value: must be an object`);
    return undefined;
  }
  const level = value['level'];
  if (!AUDIT_LEVELS.includes(level as AuditLevel))
    problems.push(
      `${path}.level: ${level === undefined ? 'Required value' : `Unsupported value: ${JSON.stringify(level)}`}: supported values: ${AUDIT_LEVELS.map((l) => `"${l}"`).join(', ')}`,
    );
  const resources: GroupResources[] = [];
  const given = value['resources'];
  if (given !== undefined && !Array.isArray(given))
    problems.push(`${path}.resources: Invalid value: must be a list`);
  for (const [i, gr] of (Array.isArray(given) ? given : []).entries()) {
    const at = `${path}.resources[${i}]`;
    if (!isRecord(gr)) {
      problems.push(`${at}: Invalid value: must be an object`);
      continue;
    }
    const names = strings(gr['resources'], `${at}.resources`, problems);
    const resourceNames = strings(gr['resourceNames'], `${at}.resourceNames`, problems);
    for (const name of names)
      if (resourceNames.length && (name === '*' || name.includes('/*')))
        problems.push(
          `${at}.resourceNames: Invalid value: using resourceNames with wildcard resource "${name}" is not allowed`,
        );
    resources.push({
      group: typeof gr['group'] === 'string' ? gr['group'] : '',
      resources: names,
      resourceNames,
    });
  }
  const nonResourceURLs = strings(value['nonResourceURLs'], `${path}.nonResourceURLs`, problems);
  if (nonResourceURLs.length && (resources.length || value['namespaces'] !== undefined))
    problems.push(
      `${path}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`,
    );
  for (const url of nonResourceURLs)
    if (!url.startsWith('/') && url !== '*')
      problems.push(
        `${path}.nonResourceURLs: Invalid value: "${url}": non-resource URL rules must begin with a '/' character`,
      );
  return {
    level: level as AuditLevel,
    users: strings(value['users'], `${path}.users`, problems),
    userGroups: strings(value['userGroups'], `${path}.userGroups`, problems),
    verbs: strings(value['verbs'], `${path}.verbs`, problems),
    resources,
    namespaces: strings(value['namespaces'], `${path}.namespaces`, problems),
    nonResourceURLs,
    omitStages: stages(value['omitStages'], `${path}.omitStages`, problems),
  };
}

/** Parses an audit.k8s.io/v1 Policy (YAML or JSON), or throws saying what is wrong. */
export function parseAuditPolicy(text: string, file: string): AuditPolicy {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (err) {
    throw new AuditPolicyError(file, [
      `not YAML or JSON: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
  if (
    !isRecord(document) ||
    document['kind'] !== 'Policy' ||
    document['apiVersion'] !== 'audit.k8s.io/v1'
  )
    throw new AuditPolicyError(file, ['expected kind Policy, apiVersion audit.k8s.io/v1']);
  const problems: string[] = [];
  const given = document['rules'];
  if (!Array.isArray(given)) problems.push('rules: Required value: a policy needs rules');
  const rules = (Array.isArray(given) ? given : [])
    .map((r: unknown, i) => rule(r, `rules[${i}]`, problems))
    .filter((r): r is AuditPolicyRule => r !== undefined);
  const omitStages = stages(document['omitStages'], 'omitStages', problems);
  if (problems.length) throw new AuditPolicyError(file, problems);
  return { rules, omitStages };
}

export function loadAuditPolicy(file: string): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new AuditPolicyError(file, [
      `cannot read: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
  return parseAuditPolicy(text, file);
}

/** ruleMatchesResource: group, resource (`*`, `pods/log`, `pods/` + `*`, `*` + `/status`), name. */
function matchesResource(rule: AuditPolicyRule, a: Attributes): boolean {
  if (rule.namespaces.length && !rule.namespaces.includes(a.namespace ?? '')) return false;
  if (rule.resources.length === 0) return true;
  const resource = a.resource ?? '';
  const combined = a.subresource ? `${resource}/${a.subresource}` : resource;
  return rule.resources.some((gr) => {
    if (gr.group !== a.apiGroup) return false;
    const matched =
      gr.resources.length === 0 ||
      gr.resources.some(
        (r) =>
          r === combined ||
          r === '*' ||
          (r === `${resource}/*` && a.subresource !== undefined) ||
          (r === `*/${a.subresource ?? ''}` && a.subresource !== undefined),
      );
    if (!matched) return false;
    return gr.resourceNames.length === 0 || gr.resourceNames.includes(a.name ?? '');
  });
}

/** ruleMatchesNonResource: exact paths, or prefixes ending in `*`. */
function matchesNonResource(rule: AuditPolicyRule, a: Attributes): boolean {
  if (rule.resources.length || rule.namespaces.length) return false;
  if (rule.nonResourceURLs.length === 0) return true;
  return rule.nonResourceURLs.some((url) =>
    url.endsWith('*') ? a.path.startsWith(url.slice(0, -1)) : url === a.path,
  );
}

function matches(rule: AuditPolicyRule, a: Attributes): boolean {
  if (rule.users.length && !rule.users.includes(a.user.name)) return false;
  if (rule.userGroups.length && !a.user.groups.some((g) => rule.userGroups.includes(g)))
    return false;
  if (rule.verbs.length && !rule.verbs.includes(a.verb)) return false;
  if (a.resourceRequest) return rule.nonResourceURLs.length === 0 && matchesResource(rule, a);
  return matchesNonResource(rule, a);
}

/**
 * The level and omitted stages of a request: the first matching rule's, with the policy's
 * omitStages added. Resources whose objects carry credentials (Secrets, token requests and
 * reviews) are never logged above Metadata, whatever the policy asks.
 */
export function auditDecision(policy: AuditPolicy, attributes: Attributes): AuditDecision {
  const rule = policy.rules.find((r) => matches(r, attributes));
  if (!rule) return { level: 'None', omitStages: [] };
  const omitStages = [...new Set([...policy.omitStages, ...rule.omitStages])];
  const level = rule.level !== 'None' && carriesCredentials(attributes) ? 'Metadata' : rule.level;
  return { level, omitStages };
}

function carriesCredentials(a: Attributes): boolean {
  if (!a.resourceRequest) return false;
  return (
    (a.apiGroup === '' && a.resource === 'secrets') ||
    (a.apiGroup === '' && a.resource === 'serviceaccounts' && a.subresource === 'token') ||
    (a.apiGroup === 'authentication.k8s.io' && a.resource === 'tokenreviews')
  );
}
