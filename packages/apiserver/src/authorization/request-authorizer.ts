import { ApiError } from '@listwatch/api';
import { forbiddenMessage, type Attributes } from './attributes.js';
import type { UserInfo } from '../authentication/user.js';
import type { Authorizer } from './authorizer.js';
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

  allowed(attributes: Attributes): boolean {
    return this.authorizer.authorize(attributes) === 'allow';
  }

  /** 403 Forbidden, worded as kube-apiserver (responsewriters.Forbidden), unless allowed. */
  authorize(attributes: Attributes): void {
    if (this.allowed(attributes)) return;
    const why = forbiddenMessage(attributes);
    if (!attributes.resourceRequest)
      throw new ApiError({
        code: 403,
        reason: 'Forbidden',
        message: `forbidden: ${why}`,
        details: {},
      });
    throw ApiError.forbidden(
      { group: attributes.apiGroup, resource: attributes.resource ?? '' },
      attributes.name ?? '',
      why,
    );
  }

  /** SelfSubjectRulesReview's status: the rules a user holds in a namespace. */
  rulesReview(user: UserInfo, namespace: string): Record<string, unknown> {
    const resourceRules: PolicyRule[] = [];
    const nonResourceRules: PolicyRule[] = [];
    for (const rule of this.authorizer.rulesFor?.(user, namespace) ?? []) {
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
    return { resourceRules, nonResourceRules, incomplete: false };
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
