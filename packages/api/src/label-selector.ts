import { ApiError } from './api-error.js';
import {
  aggregateMessage,
  fieldErrorMessage,
  fieldErrors,
  type FieldError,
} from './field-error.js';
import { isQualifiedName, isValidLabelValue } from './names.js';

// Label selectors as k8s.io/apimachinery/pkg/labels/selector.go parses, matches and prints them.
// The lexer and parser are ported closely so that every input gets Kubernetes' verdict and
// Kubernetes' error text (the API returns it verbatim as a 400).

/** selection.Operator values, spelled as Kubernetes spells them. */
export type LabelSelectorOperator =
  'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One AND-ed term: `key in (a,b)`, `key=a`, `!key`, ... */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  /** Empty for exists/!; one value for =, ==, !=, gt, lt; one or more for in/notin. */
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>>;

const BINARY_OPERATORS: readonly LabelSelectorOperator[] = [
  'in',
  'notin',
  '=',
  '==',
  '!=',
  'gt',
  'lt',
];
const UNARY_OPERATORS: readonly LabelSelectorOperator[] = ['exists', '!'];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64), or undefined. */
function parseInt64(value: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(value)) return undefined;
  const n = BigInt(value);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

function hasLabel(labels: Labels, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

/** Requirement.Matches. */
export function requirementMatches(requirement: LabelRequirement, labels: Labels): boolean {
  const { key, operator, values } = requirement;
  switch (operator) {
    case 'in':
    case '=':
    case '==':
      return hasLabel(labels, key) && values.includes(labels[key] ?? '');
    case 'notin':
    case '!=':
      return !hasLabel(labels, key) || !values.includes(labels[key] ?? '');
    case 'exists':
      return hasLabel(labels, key);
    case '!':
      return !hasLabel(labels, key);
    case 'gt':
    case 'lt': {
      if (!hasLabel(labels, key) || values.length !== 1) return false;
      const actual = parseInt64(labels[key] ?? '');
      const bound = parseInt64(values[0] ?? '');
      if (actual === undefined || bound === undefined) return false;
      return operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** Requirement.String: values sorted on output, whatever order they are held in. */
export function requirementToString(requirement: LabelRequirement): string {
  const { key, operator, values } = requirement;
  if (operator === 'exists') return key;
  if (operator === '!') return `!${key}`;
  const joined = values.length === 1 ? (values[0] ?? '') : [...values].sort().join(',');
  switch (operator) {
    case 'in':
      return `${key} in (${joined})`;
    case 'notin':
      return `${key} notin (${joined})`;
    case 'gt':
      return `${key}>${joined}`;
    case 'lt':
      return `${key}<${joined}`;
    default:
      return `${key}${operator}${joined}`;
  }
}

/**
 * labels.NewRequirement's checks, as field errors on the paths Go prints for a nil field path
 * (`key`, `values`, `values[i][key]`).
 */
function requirementErrors(key: string, operator: string, values: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(fieldErrors.invalid('key', key, keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errs.push(
          fieldErrors.invalid(
            'values',
            values,
            "for 'in', 'notin' operators, values set can't be empty",
          ),
        );
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(
          fieldErrors.invalid(
            'values',
            values,
            'exact-match compatibility requires one single value',
          ),
        );
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push(
          fieldErrors.invalid(
            'values',
            values,
            'values set must be empty for exists and does not exist',
          ),
        );
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(
          fieldErrors.invalid(
            'values',
            values,
            "for 'Gt', 'Lt' operators, exactly one value is required",
          ),
        );
      }
      values.forEach((value, i) => {
        if (parseInt64(value) === undefined) {
          errs.push(
            fieldErrors.invalid(
              `values[${i}]`,
              value,
              "for 'Gt', 'Lt' operators, the value must be an integer",
            ),
          );
        }
      });
      break;
    default:
      errs.push(
        fieldErrors.notSupported('operator', operator, [...BINARY_OPERATORS, ...UNARY_OPERATORS]),
      );
  }
  values.forEach((value, i) => {
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0)
      errs.push(fieldErrors.invalid(`values[${i}][${key}]`, value, valueErrs.join('; ')));
  });
  return errs;
}

/**
 * A validated requirement (labels.NewRequirement); throws a 400 BadRequest worded as Kubernetes'
 * aggregated field errors.
 */
export function newLabelRequirement(
  key: string,
  operator: LabelSelectorOperator,
  values: readonly string[] = [],
): LabelRequirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length > 0) throw ApiError.badRequest(aggregateMessage(errs));
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

/**
 * A parsed label selector: the AND of its requirements, sorted by key. Immutable; share freely.
 * `nothing()` is the selector that matches no object (a nil metav1.LabelSelector).
 */
export class LabelSelector {
  private static readonly EVERYTHING = new LabelSelector([], true);
  private static readonly NOTHING = new LabelSelector([], false);

  readonly requirements: readonly LabelRequirement[];
  /** False only for `nothing()`: there is nothing to select. */
  readonly selectable: boolean;

  private constructor(requirements: readonly LabelRequirement[], selectable: boolean) {
    // Stable, so equal keys keep their input order (Go's sort.Sort is stable for small inputs).
    this.requirements = Object.freeze(
      [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    );
    this.selectable = selectable;
    Object.freeze(this);
  }

  static everything(): LabelSelector {
    return LabelSelector.EVERYTHING;
  }

  static nothing(): LabelSelector {
    return LabelSelector.NOTHING;
  }

  /** From already-validated requirements (see newLabelRequirement). */
  static fromRequirements(requirements: readonly LabelRequirement[]): LabelSelector {
    return requirements.length === 0
      ? LabelSelector.EVERYTHING
      : new LabelSelector(requirements, true);
  }

  matches(labels: Labels | undefined): boolean {
    if (!this.selectable) return false;
    const set = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, set));
  }

  /** True when the selector does not restrict anything (`nothing()` is not empty). */
  isEmpty(): boolean {
    return this.selectable && this.requirements.length === 0;
  }

  /** The canonical form: requirements by key, values sorted, comma-separated. */
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }

  /** The one value a key must have (`key=v`, `key==v`, `key in (v)`), if the selector says so. */
  requiresExactMatch(key: string): string | undefined {
    const requirement = this.requirements.find((r) => r.key === key);
    if (!requirement) return undefined;
    const exact =
      requirement.operator === '=' ||
      requirement.operator === '==' ||
      requirement.operator === 'in';
    return exact && requirement.values.length === 1 ? requirement.values[0] : undefined;
  }

  /** A new selector with more requirements (Selector.Add). */
  add(...requirements: LabelRequirement[]): LabelSelector {
    if (!this.selectable) return this;
    return LabelSelector.fromRequirements([...this.requirements, ...requirements]);
  }
}

// --- lexer (selector.go Lexer) -----------------------------------------------------------------

const enum Token {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const STRING_TO_TOKEN: ReadonlyMap<string, Token> = new Map([
  [')', Token.ClosedPar],
  [',', Token.Comma],
  ['!', Token.DoesNotExist],
  ['==', Token.DoubleEquals],
  ['=', Token.Equals],
  ['>', Token.GreaterThan],
  ['in', Token.In],
  ['<', Token.LessThan],
  ['!=', Token.NotEquals],
  ['notin', Token.NotIn],
  ['(', Token.OpenPar],
]);

interface ScannedItem {
  token: Token;
  literal: string;
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecialSymbol(ch: string): boolean {
  return (
    ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<'
  );
}

/** Go's lexer reads bytes and treats a NUL like the end of input; '\0' plays that part here. */
const EOF = '\0';

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  private read(): string {
    if (this.pos < this.s.length) return this.s[this.pos++] ?? EOF;
    return EOF;
  }

  private unread(): void {
    this.pos--;
  }

  private scanIdOrKeyword(): ScannedItem {
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === EOF) break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
    }
    const keyword = STRING_TO_TOKEN.get(buffer);
    return keyword !== undefined
      ? { token: keyword, literal: buffer }
      : { token: Token.Identifier, literal: buffer };
  }

  private scanSpecialSymbol(): ScannedItem {
    let last: ScannedItem | undefined;
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === EOF) break;
      if (!isSpecialSymbol(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
      const token = STRING_TO_TOKEN.get(buffer);
      if (token !== undefined) {
        last = { token, literal: buffer };
      } else if (last) {
        this.unread();
        break;
      }
    }
    return last ?? { token: Token.Error, literal: `error expected: keyword found '${buffer}'` };
  }

  lex(): ScannedItem {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === EOF) return { token: Token.EndOfString, literal: '' };
    this.unread();
    return isSpecialSymbol(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }
}

// --- parser (selector.go Parser) ---------------------------------------------------------------

const enum Context {
  KeyAndOperator,
  Values,
}

/** A parse failure inside the parser; it leaves parseLabelSelector as a 400 ApiError. */
class ParseFailure extends Error {}

function fail(message: string): never {
  throw new ParseFailure(message);
}

class Parser {
  private readonly items: ScannedItem[] = [];
  private position = 0;

  constructor(input: string) {
    const lexer = new Lexer(input);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item.token === Token.EndOfString) break;
    }
  }

  /** `in` and `notin` are plain identifiers where values are expected ('value in (in)'). */
  private static inContext(item: ScannedItem, context: Context): ScannedItem {
    if (context === Context.Values && (item.token === Token.In || item.token === Token.NotIn)) {
      return { token: Token.Identifier, literal: item.literal };
    }
    return item;
  }

  private lookahead(context: Context): ScannedItem {
    const item = this.items[this.position] ?? { token: Token.EndOfString, literal: '' };
    return Parser.inContext(item, context);
  }

  private consume(context: Context): ScannedItem {
    const item = this.items[this.position] ?? { token: Token.EndOfString, literal: '' };
    this.position++;
    return Parser.inContext(item, context);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { token, literal } = this.lookahead(Context.Values);
      switch (token) {
        case Token.Identifier:
        case Token.DoesNotExist: {
          try {
            requirements.push(this.parseRequirement());
          } catch (err) {
            if (err instanceof ParseFailure) fail(`unable to parse requirement: ${err.message}`);
            throw err;
          }
          const next = this.consume(Context.Values);
          if (next.token === Token.EndOfString) return requirements;
          if (next.token === Token.Comma) {
            const after = this.lookahead(Context.Values);
            if (after.token !== Token.Identifier && after.token !== Token.DoesNotExist) {
              fail(`found '${after.literal}', expected: identifier after ','`);
            }
            break;
          }
          fail(`found '${next.literal}', expected: ',' or 'end of string'`);
          break;
        }
        case Token.EndOfString:
          return requirements;
        default:
          fail(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator: inferred } = this.parseKeyAndInferOperator();
    if (inferred === 'exists' || inferred === '!') return this.newRequirement(key, inferred, []);
    const operator = this.parseOperator();
    const values =
      operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    // sets.String.List(): deduplicated and sorted.
    return this.newRequirement(key, operator, [...values].sort());
  }

  private newRequirement(
    key: string,
    operator: LabelSelectorOperator,
    values: string[],
  ): LabelRequirement {
    const errs = requirementErrors(key, operator, values);
    if (errs.length > 0) fail(aggregateMessage(errs));
    return Object.freeze({ key, operator, values: Object.freeze(values) });
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelSelectorOperator | undefined } {
    let operator: LabelSelectorOperator | undefined;
    let item = this.consume(Context.Values);
    if (item.token === Token.DoesNotExist) {
      operator = '!';
      item = this.consume(Context.Values);
    }
    if (item.token !== Token.Identifier) fail(`found '${item.literal}', expected: identifier`);
    const keyErrs = isQualifiedName(item.literal);
    if (keyErrs.length > 0) {
      // The parser validates with a nil field path, which Go prints as `<nil>`.
      fail(fieldErrorMessage(fieldErrors.invalid('<nil>', item.literal, keyErrs.join('; '))));
    }
    const next = this.lookahead(Context.Values).token;
    if ((next === Token.EndOfString || next === Token.Comma) && operator !== '!')
      operator = 'exists';
    return { key: item.literal, operator };
  }

  private parseOperator(): LabelSelectorOperator {
    const { token, literal } = this.consume(Context.KeyAndOperator);
    switch (token) {
      case Token.In:
        return 'in';
      case Token.Equals:
        return '=';
      case Token.DoubleEquals:
        return '==';
      case Token.GreaterThan:
        return 'gt';
      case Token.LessThan:
        return 'lt';
      case Token.NotIn:
        return 'notin';
      case Token.NotEquals:
        return '!=';
      default:
        return fail(`found '${literal}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(Context.Values);
    if (open.token !== Token.OpenPar) fail(`found '${open.literal}' expected: '('`);
    const { token, literal } = this.lookahead(Context.Values);
    switch (token) {
      case Token.Identifier:
      case Token.Comma: {
        const values = this.parseIdentifiersList();
        if (this.consume(Context.Values).token !== Token.ClosedPar)
          fail(`found '${literal}', expected: ')'`);
        return values;
      }
      case Token.ClosedPar:
        this.consume(Context.Values);
        return new Set(['']);
      default:
        return fail(`found '${literal}', expected: ',', ')' or identifier`);
    }
  }

  /** A possibly empty list of possibly empty identifiers: `(a,,b)` holds "a", "" and "b". */
  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { token, literal } = this.consume(Context.Values);
      switch (token) {
        case Token.Identifier: {
          values.add(literal);
          const next = this.lookahead(Context.Values);
          if (next.token === Token.Comma) continue;
          if (next.token === Token.ClosedPar) return values;
          return fail(`found '${next.literal}', expected: ',' or ')'`);
        }
        case Token.Comma: {
          if (values.size === 0) values.add('');
          const next = this.lookahead(Context.Values).token;
          if (next === Token.ClosedPar) {
            values.add('');
            return values;
          }
          if (next === Token.Comma) {
            this.consume(Context.Values);
            values.add('');
          }
          break;
        }
        default:
          return fail(`found '${literal}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead(Context.Values).token;
    if (ahead === Token.EndOfString || ahead === Token.Comma) return new Set(['']);
    const { token, literal } = this.consume(Context.Values);
    if (token === Token.Identifier) return new Set([literal]);
    return fail(`found '${literal}', expected: identifier`);
  }
}

/**
 * labels.Parse: the `labelSelector` query parameter. The empty string selects everything. A
 * malformed selector is a 400 BadRequest with Kubernetes' message.
 */
export function parseLabelSelector(selector: string): LabelSelector {
  try {
    return LabelSelector.fromRequirements(new Parser(selector).parse());
  } catch (err) {
    if (err instanceof ParseFailure) throw ApiError.badRequest(err.message);
    throw err;
  }
}

/** metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** metav1.LabelSelector, as Deployments and ReplicaSets carry it in `spec.selector`. */
export interface MetaLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** labels.ValidatedSelectorFromSet: `k1=v1,k2=v2`; an empty set selects everything. */
export function labelSelectorFromMatchLabels(
  matchLabels: Readonly<Record<string, string>> | undefined,
): LabelSelector {
  return LabelSelector.fromRequirements(
    Object.entries(matchLabels ?? {}).map(([key, value]) => newLabelRequirement(key, '=', [value])),
  );
}

const EXPRESSION_OPERATORS: Readonly<Record<string, LabelSelectorOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector: matchLabels and matchExpressions AND-ed together. A missing
 * selector matches nothing, an empty one everything; invalid content is a 400 BadRequest.
 */
export function labelSelectorFromMetaV1(
  selector: MetaLabelSelector | null | undefined,
): LabelSelector {
  if (selector === null || selector === undefined) return LabelSelector.nothing();
  const expressions = selector.matchExpressions ?? [];
  const requirements = Object.entries(selector.matchLabels ?? {}).map(([key, value]) =>
    newLabelRequirement(key, '=', [value]),
  );
  for (const expression of expressions) {
    const operator = Object.prototype.hasOwnProperty.call(EXPRESSION_OPERATORS, expression.operator)
      ? EXPRESSION_OPERATORS[expression.operator]
      : undefined;
    if (operator === undefined) {
      throw ApiError.badRequest(
        `${JSON.stringify(expression.operator)} is not a valid label selector operator`,
      );
    }
    requirements.push(newLabelRequirement(expression.key, operator, expression.values ?? []));
  }
  return LabelSelector.fromRequirements(requirements);
}
