import { ApiError, type KubeObject } from '@listwatch/api';
import { forbiddenMessage, type Attributes } from './attributes.js';
import type { UserInfo } from '../authentication/user.js';
import {
  aggregateErrors,
  type Authorization,
  type Authorizer,
  type ResolvedRules,
} from './authorizer.js';
import type { PolicyRule } from './policy-rule.js';

interface TrackedWatch {
  attributes: Attributes;
  end(): void;
}

/**
 * Authorizes requests, and keeps authorizing open watches: after every policy change each watch
 * is checked again and one no longer allowed is ended (its client then relists and gets 403).
 */
export class RequestAuthorizer {
  private readonly watches = new Set<TrackedWatch>();

  constructor(
    private readonly authorizer: Authorizer,
    /** Calls back after every policy change; undefined when the policy never changes. */
    onPolicyChange?: (listener: () => void) => void,
  ) {
    onPolicyChange?.(() => this.recheck());
  }

  /** The decision and its reason, without refusing anything. */
  decide(attributes: Attributes): Authorization {
    return this.authorizer.authorize(attributes);
  }

  allowed(attributes: Attributes): boolean {
    return this.decide(attributes).decision === 'allow';
  }

  /** The rules a user holds in a namespace ('' for cluster scope): RulesFor of the resolvers. */
  rulesFor(user: UserInfo, namespace: string): ResolvedRules {
    return this.authorizer.rulesFor?.(user, namespace) ?? { rules: [], errors: [] };
  }

  /** The rules a stored Role or ClusterRole grants, an aggregated ClusterRole's resolved. */
  roleRules(role: KubeObject): PolicyRule[] {
    if (this.authorizer.roleRules) return this.authorizer.roleRules(role);
    const rules = role['rules'];
    return Array.isArray(rules) ? (rules as PolicyRule[]) : [];
  }

  /**
   * 403 Forbidden, worded as kube-apiserver (responsewriters.Forbidden), unless allowed. Returns
   * the decision, for the audit annotations.
   */
  authorize(attributes: Attributes): Authorization {
    const result = this.decide(attributes);
    if (result.decision === 'allow') return result;
    throw forbidden(attributes, result.reason);
  }

  /**
   * SelfSubjectRulesReview's status: the rules a user holds in a namespace, and what could not be
   * resolved as its evaluationError (selfsubjectrulesreview/rest.go).
   */
  rulesReview(user: UserInfo, namespace: string): Record<string, unknown> {
    const resourceRules: PolicyRule[] = [];
    const nonResourceRules: PolicyRule[] = [];
    const { rules, errors } = this.rulesFor(user, namespace);
    for (const rule of rules) {
      if (rule.nonResourceURLs?.length)
        nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
      if (rule.resources?.length)
        resourceRules.push({
          verbs: rule.verbs,
          apiGroups: rule.apiGroups ?? [],
          resources: rule.resources,
          ...(rule.resourceNames?.length ? { resourceNames: rule.resourceNames } : {}),
        });
    }
    return {
      resourceRules,
      nonResourceRules,
      incomplete: false,
      ...(errors.length ? { evaluationError: aggregateErrors(errors) } : {}),
    };
  }

  /** Keeps checking an open watch; `end` is called once it is no longer allowed. Returns untrack. */
  track(attributes: Attributes, end: () => void): () => void {
    const watch = { attributes, end };
    this.watches.add(watch);
    return () => this.watches.delete(watch);
  }

  private recheck(): void {
    for (const watch of [...this.watches]) {
      if (this.allowed(watch.attributes)) continue;
      this.watches.delete(watch);
      watch.end();
    }
  }
}

/** The 403 of a refused request; the authorizer's reason, when it gives one, follows. */
export function forbidden(attributes: Attributes, reason: string): ApiError {
  const why = forbiddenMessage(attributes) + (reason ? `: ${reason}` : '');
  if (!attributes.resourceRequest)
    return new ApiError({
      code: 403,
      reason: 'Forbidden',
      message: `forbidden: ${why}`,
      details: {},
    });
  return ApiError.forbidden(
    { group: attributes.apiGroup, resource: attributes.resource ?? '' },
    attributes.name ?? '',
    why,
  );
}
