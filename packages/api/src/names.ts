import { fieldErrors, type FieldError } from './field-error.js';
import type { ObjectMeta } from './object-meta.js';

// Name and label rules with Kubernetes' own messages (1.32):
// k8s.io/apimachinery/pkg/util/validation/validation.go (IsDNS1123Label, IsDNS1123Subdomain,
// IsQualifiedName, IsValidLabelValue), pkg/api/validation/path/name.go (path segments),
// pkg/api/validation/generic.go (NameIsDNSSubdomain & co) and objectmeta.go (ValidateObjectMeta).
// Lengths are UTF-8 bytes, as Go's len() counts them.

function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

function emptyError(): string {
  return 'must be non-empty';
}

/** Go's RegexError: the message, its examples and the regex, worded exactly as Kubernetes does. */
function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  let out = `${message} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += ' or ';
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${format}')`;
}

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const dns1123LabelRegexp = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123SubdomainRegexp = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const dns1035LabelRegexp = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const qualifiedNameRegexp = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValueRegexp = new RegExp(`^${LABEL_VALUE_FMT}$`);

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
/** ValidateAnnotationsSize: keys plus values, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/** A DNS (RFC 1123) label: namespaces, and the names of most "DNS-visible" resources. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH)
    errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRegexp.test(value)) {
    // A valid subdomain that is no valid label (length already checked) can only have dots.
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** A DNS (RFC 1123) subdomain: the default rule for object names. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH)
    errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRegexp.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

/** A DNS (RFC 1035) label: Service names, which must not start with a digit. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH)
    errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRegexp.test(value)) {
    errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  }
  return errs;
}

/** A qualified name (label and annotation keys): `[prefix/]name`, prefix a DNS subdomain. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((msg) => `prefix part ${msg}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH)
    errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

/** A label value: empty, or up to 63 alphanumerics with `-_.` inside. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRegexp.test(value)) {
    errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** A name that is safe as one URL path segment and one storage key segment. */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return isValidPathSegmentPrefix(name);
}

/** As isValidPathSegmentName for a generateName prefix: a suffix follows, so `.`/`..` are fine. */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const illegal of ['/', '%']) {
    if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  }
  return errs;
}

/**
 * Checks a name (prefix=false) or a generateName prefix (prefix=true); returns the reasons it is
 * invalid. Kubernetes' ValidateNameFunc.
 */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

/** The name rules Kubernetes applies per resource (generic.go and path/name.go). */
export type NameRule =
  'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'pathSegment' | ValidateNameFunc;

/**
 * A generateName prefix may end in `-`, as a random suffix follows: Kubernetes' maskTrailingDash
 * swaps the last two characters for `a` before checking (kept, off-by-one and all, for identical
 * verdicts; a lone `-` becomes `a` where Go would panic).
 */
function maskTrailingDash(name: string): string {
  return name.endsWith('-') ? `${name.slice(0, Math.max(0, name.length - 2))}a` : name;
}

export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: ValidateNameFunc = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);
export const nameIsPathSegment: ValidateNameFunc = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);

export function nameValidator(rule: NameRule): ValidateNameFunc {
  switch (rule) {
    case 'dns1123Subdomain':
      return nameIsDNSSubdomain;
    case 'dns1123Label':
      return nameIsDNSLabel;
    case 'dns1035Label':
      return nameIsDNS1035Label;
    case 'pathSegment':
      return nameIsPathSegment;
    default:
      return rule;
  }
}

/** metav1validation.ValidateLabels: each key a qualified name, each value a label value. */
export function validateLabels(
  labels: Readonly<Record<string, string>> | undefined,
  field: string,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(field, key, msg));
    for (const msg of isValidLabelValue(value)) errs.push(fieldErrors.invalid(field, value, msg));
  }
  return errs;
}

/** ValidateAnnotations: keys are qualified names (any case); keys + values ≤ 256 KiB in all. */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  field: string,
): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(key.toLowerCase()))
      errs.push(fieldErrors.invalid(field, key, msg));
    total += byteLength(key) + byteLength(value);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES)
    errs.push(fieldErrors.tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

/** schema.FromAPIVersionAndKind: a malformed apiVersion yields an empty group and version. */
function groupVersionOf(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return { group: '', version: '' };
}

function validateOwnerReferences(refs: ObjectMeta['ownerReferences'], field: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const { group, version } = groupVersionOf(ref.apiVersion);
    if (version === '')
      errs.push(
        fieldErrors.invalid(`${field}.apiVersion`, ref.apiVersion, 'version must not be empty'),
      );
    if (ref.kind === '')
      errs.push(fieldErrors.invalid(`${field}.kind`, ref.kind, 'must not be empty'));
    if (ref.name === '')
      errs.push(fieldErrors.invalid(`${field}.name`, ref.name, 'must not be empty'));
    if (ref.uid === '')
      errs.push(fieldErrors.invalid(`${field}.uid`, ref.uid, 'must not be empty'));
    // BannedOwners: an Event can never own anything.
    if (group === '' && version === 'v1' && ref.kind === 'Event') {
      errs.push(
        fieldErrors.invalid(field, ref, `/v1, Kind=Event is disallowed from being an owner`),
      );
    }
    if (ref.controller === true) {
      const name = `${ref.kind}/${ref.name}`;
      if (firstController !== '') {
        errs.push(
          fieldErrors.invalid(
            field,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`,
          ),
        );
      } else {
        firstController = name;
      }
    }
  }
  return errs;
}

function validateFinalizers(
  finalizers: readonly string[] | undefined,
  field: string,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const finalizer of finalizers ?? []) {
    for (const msg of isQualifiedName(finalizer))
      errs.push(fieldErrors.invalid(field, finalizer, msg));
  }
  if (finalizers?.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(
      fieldErrors.invalid(
        field,
        finalizers,
        'finalizer orphan and foregroundDeletion cannot be both set',
      ),
    );
  }
  return errs;
}

export interface ObjectMetaValidationOptions {
  /** Namespaced resources require a namespace (a DNS label); cluster-scoped ones forbid it. */
  namespaced: boolean;
  nameRule: NameRule;
  /** Path of the metadata in error messages; `metadata` by default. */
  fieldPath?: string;
}

/**
 * ValidateObjectMeta (objectmeta.go) on create, after name generation: generateName, name,
 * namespace, generation, labels, annotations, ownerReferences and finalizers. The caller turns a
 * non-empty result into `ApiError.invalid` (422 with one cause per error).
 */
export function validateObjectMeta(
  meta: ObjectMeta,
  options: ObjectMetaValidationOptions,
): FieldError[] {
  const path = options.fieldPath ?? 'metadata';
  const validateName = nameValidator(options.nameRule);
  const errs: FieldError[] = [];

  if (meta.generateName) {
    for (const msg of validateName(meta.generateName, true)) {
      errs.push(fieldErrors.invalid(`${path}.generateName`, meta.generateName, msg));
    }
  }
  if (!meta.name) {
    errs.push(fieldErrors.required(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const msg of validateName(meta.name, false))
      errs.push(fieldErrors.invalid(`${path}.name`, meta.name, msg));
  }

  if (options.namespaced) {
    if (!meta.namespace) {
      errs.push(fieldErrors.required(`${path}.namespace`));
    } else {
      for (const msg of nameIsDNSLabel(meta.namespace, false)) {
        errs.push(fieldErrors.invalid(`${path}.namespace`, meta.namespace, msg));
      }
    }
  } else if (meta.namespace) {
    errs.push(fieldErrors.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }

  if (meta.generation !== undefined && meta.generation < 0) {
    errs.push(
      fieldErrors.invalid(
        `${path}.generation`,
        meta.generation,
        'must be greater than or equal to 0',
      ),
    );
  }
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(meta.finalizers, `${path}.finalizers`));
  return errs;
}

/** utilrand's alphabet: no vowels (no accidental words) and no look-alikes (0/o, 1/l, 3/e). */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const RANDOM_LENGTH = 5;
/** Kubernetes' MaxGeneratedNameLength: 63 − 5, so a generated name still fits a DNS label. */
export const MAX_GENERATED_NAME_PREFIX_LENGTH = 63 - RANDOM_LENGTH;

/** names.SimpleNameGenerator: the prefix (cut to 58 characters) plus 5 random characters. */
export function generateName(prefix: string): string {
  const base =
    prefix.length > MAX_GENERATED_NAME_PREFIX_LENGTH
      ? prefix.slice(0, MAX_GENERATED_NAME_PREFIX_LENGTH)
      : prefix;
  let suffix = '';
  // Web Crypto (Node and browsers alike); a 32-bit draw's modulo bias over 27 letters is ~1e-8.
  const draws = crypto.getRandomValues(new Uint32Array(RANDOM_LENGTH));
  for (const draw of draws) suffix += NAME_ALPHABET[draw % NAME_ALPHABET.length];
  return base + suffix;
}
