import { parse } from 'csv-parse/sync';
import type { UserInfo } from './user.js';

/**
 * `--token-auth-file`: static bearer tokens in Kubernetes' CSV format, one per line:
 * `token,user,uid[,"group1,group2"]` (k8s.io/apiserver pkg/authentication/token/tokenfile).
 */
export class TokenFile {
  private constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {}

  /** Parses the file's text; a line with fewer than three columns is an error, as upstream. */
  static parse(text: string, path = 'token file'): TokenFile {
    const records: string[][] = parse(text, {
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    });
    const tokens = new Map<string, UserInfo>();
    for (const record of records) {
      if (record.length < 3)
        throw new Error(
          `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
        );
      const [token = '', name = '', uid = '', groups] = record;
      if (token === '') continue; // upstream skips empty tokens with a warning
      tokens.set(token, {
        name,
        ...(uid ? { uid } : {}),
        groups: groups ? groups.split(',') : [],
      });
    }
    return new TokenFile(tokens);
  }

  /** The user a token names, or undefined. */
  authenticate(token: string): UserInfo | undefined {
    return this.tokens.get(token);
  }

  get size(): number {
    return this.tokens.size;
  }
}
