import { ApiError } from './api-error.js';
import { aggregateMessage, fieldErrorMessage, fieldErrors } from './field-error.js';
import { isQualifiedName } from './names.js';
import {
  BINARY_OPERATORS,
  requirementErrors,
  type LabelRequirement,
  type LabelSelectorOperator,
} from './label-requirement.js';
import { LabelSelector } from './label-selector.js';

// labels.Parse (k8s.io/apimachinery/pkg/labels/selector.go Lexer and Parser), ported closely so
// that every input gets Kubernetes' verdict and Kubernetes' error text (the API returns it
// verbatim as a 400).

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
