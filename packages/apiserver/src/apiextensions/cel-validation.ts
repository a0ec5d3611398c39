import { CelScalar, celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { fieldErrors, isRecord, type FieldError } from '@listwatch/api';
import {
  COST_LIMIT_EXCEEDED,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  costFunc,
  meteredExpression,
  runMetered,
} from './cel-cost.js';
import { kubernetesLibraries } from './cel-libraries.js';
import { quantityLibrary } from './cel-quantity.js';
import { celTypesRegistry } from './cel-types.js';
import { urlLibrary } from './cel-url.js';
import { parseSimplePath } from './jsonpath.js';
import { type JSONSchemaProps } from './types.js';

// x-kubernetes-validations: CEL rules on a CRD schema (apiextensions-apiserver
// pkg/apiserver/schema/cel/compilation.go, validation.go, and the rule checks and cost limits of
// pkg/apis/apiextensions/validation/validation.go), evaluated with @bufbuild/cel. Rules are
// compiled once per CRD version; their cost is estimated statically, as kube does, so that no
// accepted rule can run long: a comprehension costs its body times the most elements its list or
// map may have (maxItems/maxProperties, else what fits in a request).

type Expr = ReturnType<typeof parse>['expr'];
type CelResult = ReturnType<ReturnType<typeof plan>>;
/** A planned expression, called with `self` and, for transition rules, `oldSelf`. */
type Program = (bindings: Record<string, CelInput>) => CelResult;

/** A rule's program, metered (cel-cost.ts), and its cost outside loops. */
interface Planned {
  program: Program;
  base: number;
}

function planned(expr: ReturnType<typeof parse>): Planned {
  const { parsed, base } = meteredExpression(expr);
  return { program: plan(env, parsed) as unknown as Program, base };
}

/** kube's cel limits (apiextensions-apiserver pkg/apiserver/schema/cel/limits, apiserver/pkg/apis/cel/config.go). */
export const PER_EXPRESSION_COST_LIMIT = 10_000_000;
export const PER_CRD_COST_LIMIT = 100_000_000;
/** The most elements an unbounded list or map may have: a 3 MiB request of two-byte items. */
const UNBOUNDED = Math.floor((3 * 1024 * 1024) / 2);
const REASONS = [
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
];

const env = celEnv({
  variables: { self: CelScalar.DYN, oldSelf: CelScalar.DYN },
  funcs: [...strings, ...kubernetesLibraries, ...quantityLibrary, ...urlLibrary, costFunc],
  registry: celTypesRegistry,
});

interface CompiledRule {
  rule: string;
  program: Planned;
  message?: string;
  messageExpression?: Planned;
  messageExpressionSource?: string;
  reason: string;
  fieldPath?: string;
  transition: boolean;
}

/** The rules of one schema node and its children, compiled. */
interface RuleNode {
  schema: JSONSchemaProps;
  rules: CompiledRule[];
  properties: Map<string, RuleNode>;
  items?: RuleNode;
  additionalProperties?: RuleNode;
}

export interface CompiledRules {
  /** Errors of `object` (and `old`, for transition rules on update), with field paths. */
  validate(object: unknown, old?: unknown): FieldError[];
}

function usesOldSelf(expr: Expr | undefined): boolean {
  if (!expr) return false;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
      return kind.value.name === 'oldSelf';
    case 'selectExpr':
      return usesOldSelf(kind.value.operand);
    case 'callExpr':
      return usesOldSelf(kind.value.target) || kind.value.args.some(usesOldSelf);
    case 'listExpr':
      return kind.value.elements.some(usesOldSelf);
    case 'structExpr':
      return kind.value.entries.some(
        (e) =>
          usesOldSelf(e.value) || (e.keyKind.case === 'mapKey' && usesOldSelf(e.keyKind.value)),
      );
    case 'comprehensionExpr': {
      const c = kind.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].some(usesOldSelf);
    }
    default:
      return false;
  }
}

/** The schema a path of `self` selects (`self.a.b`), if it can be followed. */
function schemaOf(
  expr: Expr | undefined,
  self: JSONSchemaProps,
  vars: Map<string, JSONSchemaProps | undefined>,
): JSONSchemaProps | undefined {
  if (!expr) return undefined;
  const kind = expr.exprKind;
  if (kind.case === 'identExpr')
    return kind.value.name === 'self' || kind.value.name === 'oldSelf'
      ? self
      : vars.get(kind.value.name);
  if (kind.case === 'selectExpr') {
    const parent = schemaOf(kind.value.operand, self, vars);
    const props = parent && isRecord(parent['properties']) ? parent['properties'] : undefined;
    const child = props?.[kind.value.field] ?? parent?.['additionalProperties'];
    return isRecord(child) ? child : undefined;
  }
  return undefined;
}

/** The most elements a list or map (or characters a string) the schema allows. */
function maxSize(schema: JSONSchemaProps | undefined): number {
  if (!schema) return UNBOUNDED;
  for (const key of ['maxItems', 'maxProperties', 'maxLength']) {
    const v = schema[key];
    if (typeof v === 'number' && Number.isFinite(v)) return Math.min(v, UNBOUNDED);
  }
  return UNBOUNDED;
}

/** kube's estimated cost, simplified: one per node, comprehensions times their range's size. */
function estimate(
  expr: Expr | undefined,
  self: JSONSchemaProps,
  vars: Map<string, JSONSchemaProps | undefined>,
): number {
  if (!expr) return 0;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      return 1 + estimate(kind.value.operand, self, vars);
    case 'callExpr':
      return (
        1 +
        estimate(kind.value.target, self, vars) +
        kind.value.args.reduce((sum, a) => sum + estimate(a, self, vars), 0)
      );
    case 'listExpr':
      return 1 + kind.value.elements.reduce((sum, e) => sum + estimate(e, self, vars), 0);
    case 'structExpr':
      return 1 + kind.value.entries.reduce((sum, e) => sum + estimate(e.value, self, vars), 0);
    case 'comprehensionExpr': {
      const c = kind.value;
      const range = schemaOf(c.iterRange, self, vars);
      const element = range && isRecord(range['items']) ? range['items'] : undefined;
      const inner = new Map(vars).set(c.iterVar, element);
      const body = estimate(c.loopCondition, self, inner) + estimate(c.loopStep, self, inner);
      return (
        estimate(c.iterRange, self, vars) +
        estimate(c.accuInit, self, vars) +
        estimate(c.result, self, inner) +
        maxSize(range) * Math.max(body, 1)
      );
    }
    default:
      return 1;
  }
}

/** validation.go getCostErrorMessage. */
function costMessage(name: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor < 100 ? `${factor.toFixed(1)}x` : 'more than 100x';
  return `${name} exceeds budget by factor of ${text} (try simplifying the rule(s), or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/**
 * Compiles every rule of a version schema. `path` names the schema in errors
 * (`spec.versions[0].schema.openAPIV3Schema`); errors are the CRD's 422 causes.
 */
export function compileRules(
  schema: JSONSchemaProps,
  path: string,
): { rules: CompiledRules; errors: FieldError[] } {
  const errors: FieldError[] = [];
  let total = 0;
  const build = (s: JSONSchemaProps, at: string, cardinality: number, depth: number): RuleNode => {
    const node: RuleNode = { schema: s, rules: [], properties: new Map() };
    if (depth > 64) return node;
    const list = Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] : [];
    list.forEach((raw: unknown, i) => {
      const rulePath = `${at}.x-kubernetes-validations[${i}]`;
      const compiled = compileRule(raw, rulePath, s, errors);
      if (!compiled) return;
      const cost = compiled.cost;
      if (cost > PER_EXPRESSION_COST_LIMIT) {
        errors.push(
          fieldErrors.forbidden(
            `${rulePath}.rule`,
            costMessage('estimated rule cost', cost, PER_EXPRESSION_COST_LIMIT),
          ),
        );
        return;
      }
      total += cost * cardinality;
      node.rules.push(compiled.rule);
    });
    const properties = isRecord(s['properties']) ? s['properties'] : {};
    for (const [name, child] of Object.entries(properties)) {
      if (isRecord(child))
        node.properties.set(
          name,
          build(child, `${at}.properties[${name}]`, cardinality, depth + 1),
        );
    }
    if (isRecord(s['items']))
      node.items = build(s['items'], `${at}.items`, cardinality * maxSize(s), depth + 1);
    if (isRecord(s['additionalProperties']))
      node.additionalProperties = build(
        s['additionalProperties'],
        `${at}.additionalProperties`,
        cardinality * maxSize(s),
        depth + 1,
      );
    return node;
  };
  const root = build(schema, path, 1, 0);
  if (total > PER_CRD_COST_LIMIT) {
    errors.push(
      fieldErrors.forbidden(
        path,
        costMessage(
          'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
          total,
          PER_CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return { rules: { validate: (object, old) => evaluate(root, object, old) }, errors };
}

function compileRule(
  raw: unknown,
  path: string,
  schema: JSONSchemaProps,
  errors: FieldError[],
): { rule: CompiledRule; cost: number } | undefined {
  if (!isRecord(raw)) {
    errors.push(fieldErrors.invalid(path, raw, 'must be an object'));
    return undefined;
  }
  const { rule, message, messageExpression, reason, fieldPath } = raw;
  let ok = true;
  if (typeof rule !== 'string' || rule.trim() === '') {
    errors.push(fieldErrors.required(`${path}.rule`, 'rule is not specified'));
    return undefined;
  }
  if (message !== undefined) {
    if (typeof message !== 'string' || message.trim() === '') {
      errors.push(
        fieldErrors.invalid(`${path}.message`, message, 'must be non-empty if specified'),
      );
      ok = false;
    } else if (/[\n\r]/.test(message)) {
      errors.push(fieldErrors.invalid(`${path}.message`, message, 'must not contain line breaks'));
      ok = false;
    }
  } else if (/[\n\r]/.test(rule) && messageExpression === undefined) {
    errors.push(
      fieldErrors.required(
        `${path}.message`,
        'message must be specified if rule contains line breaks',
      ),
    );
    ok = false;
  }
  if (
    messageExpression !== undefined &&
    (typeof messageExpression !== 'string' || messageExpression.trim() === '')
  ) {
    errors.push(
      fieldErrors.required(
        `${path}.messageExpression`,
        'messageExpression must be non-empty if specified',
      ),
    );
    ok = false;
  }
  if (reason !== undefined && (typeof reason !== 'string' || !REASONS.includes(reason))) {
    errors.push(fieldErrors.notSupported(`${path}.reason`, reason, REASONS));
    ok = false;
  }
  if (fieldPath !== undefined && (typeof fieldPath !== 'string' || !parseSimplePath(fieldPath))) {
    errors.push(fieldErrors.invalid(`${path}.fieldPath`, fieldPath, 'must be a valid path'));
    ok = false;
  }
  let parsed: ReturnType<typeof parse>;
  let program: Planned;
  try {
    parsed = parse(rule);
    program = planned(parsed);
  } catch (err) {
    errors.push(
      fieldErrors.invalid(
        `${path}.rule`,
        rule,
        `compilation failed: ERROR: ${(err as Error).message}`,
      ),
    );
    return undefined;
  }
  let messageProgram: Planned | undefined;
  let messageCost = 0;
  if (typeof messageExpression === 'string' && messageExpression.trim() !== '') {
    try {
      const parsedMessage = parse(messageExpression);
      messageProgram = planned(parsedMessage);
      messageCost = estimate(parsedMessage.expr, schema, new Map());
    } catch (err) {
      errors.push(
        fieldErrors.invalid(
          `${path}.messageExpression`,
          messageExpression,
          `messageExpression compilation failed: ERROR: ${(err as Error).message}`,
        ),
      );
      ok = false;
    }
  }
  if (!ok) return undefined;
  return {
    rule: {
      rule,
      program,
      ...(typeof message === 'string' ? { message } : {}),
      ...(messageProgram
        ? {
            messageExpression: messageProgram,
            messageExpressionSource: messageExpression as string,
          }
        : {}),
      reason: typeof reason === 'string' ? reason : 'FieldValueInvalid',
      ...(typeof fieldPath === 'string' ? { fieldPath } : {}),
      transition: usesOldSelf(parsed.expr),
    },
    cost: estimate(parsed.expr, schema, new Map()) + messageCost,
  };
}

/** JSON as CEL sees it under a schema: integers are ints, objects maps. */
function toCel(value: unknown, schema: JSONSchemaProps | undefined, depth = 0): CelInput {
  if (depth > 10_000) return null;
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    return schema?.['type'] !== 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
  }
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = schema && isRecord(schema['items']) ? schema['items'] : undefined;
    return value.map((v) => toCel(v, items, depth + 1));
  }
  if (isRecord(value)) {
    const properties = schema && isRecord(schema['properties']) ? schema['properties'] : {};
    const additional =
      schema && isRecord(schema['additionalProperties'])
        ? schema['additionalProperties']
        : undefined;
    const entries: [string, CelInput][] = Object.entries(value).map(([k, v]) => {
      const child = properties[k];
      return [k, toCel(v, isRecord(child) ? child : additional, depth + 1)];
    });
    return new Map(entries);
  }
  return null;
}

function typeName(schema: JSONSchemaProps): string {
  return typeof schema['type'] === 'string' ? schema['type'] : 'object';
}

function ruleError(
  rule: CompiledRule,
  path: string,
  schema: JSONSchemaProps,
  message: string,
): FieldError {
  const steps = rule.fieldPath ? parseSimplePath(rule.fieldPath) : undefined;
  const field = steps
    ? steps.reduce<string>(
        (p, s) => (typeof s === 'number' ? `${p}[${s}]` : p ? `${p}.${s}` : s),
        path,
      )
    : path;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(field, message);
    case 'FieldValueRequired':
      return fieldErrors.required(field, message);
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field, badValue: typeName(schema), detail: message };
    default:
      return fieldErrors.invalid(field, typeName(schema), message);
  }
}

/** validation.go ruleErrorString: the rule's message, else the rule. */
function ruleErrorString(rule: CompiledRule): string {
  return (rule.message ?? rule.rule).trim();
}

const OUT_OF_BUDGET =
  'validation failed due to running out of cost budget, no further validation rules will be run';

/**
 * validation.go Validate: the rules of every node, sharing RuntimeCELCostBudget; a call past
 * PerCallLimit, or past what is left of the budget, ends the validation with its error.
 */
function evaluate(root: RuleNode, object: unknown, old: unknown): FieldError[] {
  const errors: FieldError[] = [];
  let remaining = RUNTIME_CEL_COST_BUDGET;
  let stopped = false;
  const stop = (error: FieldError) => {
    errors.push(error);
    stopped = true;
  };
  const runRules = (node: RuleNode, value: unknown, oldValue: unknown, path: string) => {
    if (remaining <= 0)
      return stop(fieldErrors.invalid(path, typeName(node.schema), OUT_OF_BUDGET));
    const self = toCel(value, node.schema);
    const oldSelf = oldValue === undefined ? undefined : toCel(oldValue, node.schema);
    for (const rule of node.rules) {
      if (rule.transition && oldSelf === undefined) continue;
      const bindings = oldSelf === undefined ? { self } : { self, oldSelf };
      const run = runMetered(
        () => rule.program.program(bindings),
        rule.program.base,
        PER_CALL_LIMIT,
      );
      const type = typeName(node.schema);
      if (run.exceeded) {
        return stop(
          fieldErrors.invalid(
            path,
            type,
            `'${COST_LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
          ),
        );
      }
      if (run.cost > remaining) return stop(fieldErrors.invalid(path, type, OUT_OF_BUDGET));
      remaining -= run.cost;
      const result = run.result;
      if (isCelError(result) || result instanceof Error) {
        errors.push(
          fieldErrors.invalid(
            path,
            type,
            `${result.message} evaluating rule: ${ruleErrorString(rule)}`,
          ),
        );
        continue;
      }
      if (result === true) continue;
      let message = rule.message?.trim() ?? `failed rule: ${rule.rule.trim()}`;
      if (rule.messageExpression) {
        const source = rule.messageExpressionSource ?? '';
        const planned = rule.messageExpression;
        const text = runMetered(() => planned.program(bindings), planned.base, PER_CALL_LIMIT);
        if (text.exceeded) {
          return stop(
            fieldErrors.invalid(
              path,
              type,
              `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(source)}`,
            ),
          );
        }
        if (text.cost > remaining) {
          return stop(
            fieldErrors.invalid(
              path,
              type,
              'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
            ),
          );
        }
        remaining -= text.cost;
        const value = text.result;
        if (typeof value === 'string' && value.trim() !== '' && !/[\n\r]/.test(value))
          message = value.trim();
      }
      errors.push(ruleError(rule, path, node.schema, message));
    }
  };
  const walk = (
    node: RuleNode,
    value: unknown,
    oldValue: unknown,
    path: string,
    depth: number,
  ): void => {
    if (stopped || value === undefined || value === null || depth > 10_000) return;
    if (node.rules.length) runRules(node, value, oldValue, path);
    if (Array.isArray(value) && node.items) {
      // Items correlate with the old list only by map keys (x-kubernetes-list-type: map).
      const keys = node.schema['x-kubernetes-list-map-keys'];
      const oldItems: unknown[] = Array.isArray(oldValue) && Array.isArray(keys) ? oldValue : [];
      value.forEach((item, i) => {
        const match = oldItems.find(
          (o: unknown) =>
            isRecord(o) && isRecord(item) && (keys as string[]).every((k) => o[k] === item[k]),
        );
        walk(node.items!, item, match, `${path}[${i}]`, depth + 1);
      });
    } else if (isRecord(value)) {
      const oldRecord = isRecord(oldValue) ? oldValue : undefined;
      for (const [key, inner] of Object.entries(value)) {
        const child = node.properties.get(key) ?? node.additionalProperties;
        if (child) walk(child, inner, oldRecord?.[key], path ? `${path}.${key}` : key, depth + 1);
      }
    }
  };
  walk(root, object, old, '', 0);
  return errors;
}

/** Whether a schema has any rule: versions without do not pay for the walk. */
export function hasRules(schema: unknown, depth = 0): boolean {
  if (depth > 64 || !isRecord(schema)) return false;
  if (
    Array.isArray(schema['x-kubernetes-validations']) &&
    schema['x-kubernetes-validations'].length
  )
    return true;
  const properties = isRecord(schema['properties']) ? Object.values(schema['properties']) : [];
  return [...properties, schema['items'], schema['additionalProperties']].some((s) =>
    hasRules(s, depth + 1),
  );
}
