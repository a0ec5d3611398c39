import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenFile } from './token-file.js';

// kube-apiserver's authentication (k8s.io/apiserver pkg/authentication): x509 client
// certificates (--client-ca-file), static tokens (--token-auth-file), anonymous requests
// (--anonymous-auth); a credential that fails is 401, never anonymous.

describe('TokenFile', () => {
  it('reads token,user,uid and the quoted group list; a line under three columns is an error', () => {
    const file = TokenFile.parse('t1,alice,1001,"dev,ops"\nt2,bob,1002\n\n,nobody,3\n');
    expect(file.authenticate('t1')).toEqual({ name: 'alice', uid: '1001', groups: ['dev', 'ops'] });
    expect(file.authenticate('t2')).toEqual({ name: 'bob', uid: '1002', groups: [] });
    expect(file.authenticate('')).toBeUndefined();
    expect(file.size).toBe(2);
    expect(() => TokenFile.parse('t3,carol\n', 'tokens.csv')).toThrow(
      "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
  });

  it('finds every user of a generated file by its token, and no other token (property)', () => {
    const field = fc.stringMatching(/^[A-Za-z0-9:._@-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(field, field, field, fc.array(field, { maxLength: 3 })), {
          selector: ([token]) => token,
          maxLength: 8,
        }),
        field,
        (rows, stranger) => {
          const text = rows
            .map(([t, u, id, g]) => `${t},${u},${id}${g.length ? `,"${g.join(',')}"` : ''}`)
            .join('\n');
          const file = TokenFile.parse(text);
          for (const [t, u, id, g] of rows)
            expect(file.authenticate(t)).toEqual({ name: u, uid: id, groups: g });
          if (!rows.some(([t]) => t === stranger))
            expect(file.authenticate(stranger)).toBeUndefined();
        },
      ),
    );
  });
});
