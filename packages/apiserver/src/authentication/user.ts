/** Who a request is (k8s.io/apiserver pkg/authentication/user.Info). */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: readonly string[];
  /** What else the authenticator knows (a service-account token's pod, node, credential ID). */
  extra?: Readonly<Record<string, readonly string[]>>;
}

export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';

/** What a request without credentials is when `--anonymous-auth` allows it (anonymous.go). */
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: [ALL_UNAUTHENTICATED] };

export function isAnonymous(user: UserInfo): boolean {
  return user.name === ANONYMOUS.name;
}

/** Every authenticated user is also in system:authenticated (group.AuthenticatedGroupAdder). */
export function authenticated(user: UserInfo): UserInfo {
  return user.groups.includes(ALL_AUTHENTICATED)
    ? user
    : { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}
