import { fieldErrors, type FieldError } from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { validateImmutableData } from '../configmap/strategy.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The Secret's registry strategy: k8s.io/kubernetes pkg/apis/core/v1/defaults.go
// (SetDefaults_Secret), conversion.go (Convert_v1_Secret_To_core_Secret: stringData into data)
// and pkg/apis/core/validation/validation.go (ValidateSecret).

/** A Secret as decoded (kubernetes-types' core/v1 Secret). */
export type Secret = TypedObject<corev1.Secret>;

/** core.MaxSecretSize: the decoded bytes of all data values together. */
export const MAX_SECRET_SIZE = 1024 * 1024;
/** The redaction kube puts in field errors instead of a secret's bytes. */
const REDACTED = '<secret contents redacted>';

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const configKeyRegexp = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** IsConfigMapKey (apimachinery util/validation): the rule for ConfigMap and Secret keys. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(key) > 253) errs.push('must be no more than 253 characters');
  if (!configKeyRegexp.test(key)) {
    errs.push(
      `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name', or 'KEY_NAME', or 'key-name', regex used for validation is '${CONFIG_KEY_FMT}')`,
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const BASE64 = /[A-Za-z0-9+/]/;

/**
 * base64.StdEncoding.Decode as encoding/json runs it for a []byte: the decoded length, or Go's
 * CorruptInputError text. Line breaks are skipped; padding is required.
 */
export function decodedBase64Length(text: string): number | string {
  const corrupt = (offset: number) => `illegal base64 data at input byte ${offset}`;
  let si = 0;
  let length = 0;
  for (;;) {
    let j = 0;
    let quantum = 4;
    for (; j < 4; j++) {
      if (si === text.length) {
        if (j === 0) return length;
        return corrupt(si - j);
      }
      const ch = text[si++] as string;
      if (BASE64.test(ch)) continue;
      if (ch === '\n' || ch === '\r') {
        j--;
        continue;
      }
      if (ch !== '=' || j < 2) return corrupt(si - 1);
      if (j === 2) {
        // "==" is expected, the first "=" is already consumed.
        while (si < text.length && (text[si] === '\n' || text[si] === '\r')) si++;
        if (si === text.length) return corrupt(text.length);
        if (text[si] !== '=') return corrupt(si - 1);
        si++;
      }
      while (si < text.length && (text[si] === '\n' || text[si] === '\r')) si++;
      if (si < text.length) return corrupt(si);
      quantum = j;
      break;
    }
    length += quantum - 1;
    if (quantum < 4) return length;
  }
}

export const secretStrategy: ResourceStrategy<Secret> = {
  decode(secret) {
    secret.type ||= 'Opaque';
    const data = secret.data;
    // A []byte is decoded and re-encoded: what is stored is canonical base64 without line
    // breaks. A value that is not base64 is left for validate to report.
    for (const [key, value] of Object.entries(data ?? {})) {
      if (typeof decodedBase64Length(value) === 'number')
        data![key] = Buffer.from(value.replace(/[\r\n]/g, ''), 'base64').toString('base64');
    }
    // stringData is write-only: merged over data, then gone.
    const stringData = secret.stringData;
    if (stringData && Object.keys(stringData).length) {
      const merged = { ...data };
      for (const [key, value] of Object.entries(stringData))
        merged[key] = Buffer.from(value, 'utf8').toString('base64');
      secret.data = merged;
    }
    delete secret.stringData;
  },

  validate(secret) {
    const errs: FieldError[] = [];
    let total = 0;
    for (const [key, value] of Object.entries(secret.data ?? {})) {
      const field = `data[${key}]`;
      for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(field, key, msg));
      const size = decodedBase64Length(value);
      // kube fails the decode itself (400); a field error says which key is wrong.
      if (typeof size === 'string') errs.push(fieldErrors.invalid(field, REDACTED, size));
      else total += size;
    }
    if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong('data', MAX_SECRET_SIZE));
    return errs;
  },

  // ValidateSecretUpdate: the type never changes; an immutable secret's data neither.
  validateUpdate(next, current) {
    const errs: FieldError[] = [];
    if ((next.type || 'Opaque') !== (current.type || 'Opaque'))
      errs.push(fieldErrors.invalid('type', next.type, 'field is immutable'));
    errs.push(...validateImmutableData(next, current, ['data']));
    return errs;
  },
};
