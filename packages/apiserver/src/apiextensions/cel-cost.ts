import { CelScalar, celFunc, parse, type CelFunc } from '@bufbuild/cel';

// The runtime cost of a CEL rule, as cel-go's actual-cost tracking bounds it for kube
// (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go: each call is limited to
// PerCallLimit, and all the rules of one object share RuntimeCELCostBudget). @bufbuild/cel has
// no cost tracking, so a rule is metered where its cost grows: its comprehensions. Before each
// iteration's step, a `@cost(n)` call (a name no rule can write) charges what that step and the
// loop condition evaluate, one per expression node, and fails the evaluation once the call's
// limit is passed, so no step runs past it; what lies outside loops is charged once, up front.

/** k8s.io/apiserver pkg/apis/cel/config.go. */
export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** cel-go's error when an evaluation passes its cost limit. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

type Parsed = ReturnType<typeof parse>;
type Expr = NonNullable<Parsed['expr']>;

class Meter {
  used = 0;
  exceeded = false;
  constructor(readonly limit: number) {}
}

let active: Meter | undefined;

const COST = '@cost';

/** The metering function, for the environment rules are planned in. */
export const costFunc: CelFunc = celFunc(COST, [CelScalar.INT], CelScalar.BOOL, (n) => {
  const meter = active;
  if (!meter) return true;
  meter.used += Number(n);
  if (meter.used > meter.limit) {
    meter.exceeded = true;
    throw new Error(COST_LIMIT_EXCEEDED);
  }
  return true;
});

/** `@cost(1) ? 0 : 0`, whose nodes a metered step is made of. */
const TEMPLATE = (() => {
  const expr = parse('cost(1) ? 0 : 0').expr;
  if (expr?.exprKind.case !== 'callExpr') throw new Error('unexpected CEL template');
  const cost = expr.exprKind.value.args[0];
  if (cost?.exprKind.case !== 'callExpr') throw new Error('unexpected CEL template');
  cost.exprKind.value.function = COST;
  return expr;
})();

/** The nodes an evaluation of `expr` visits once, without the bodies of its comprehensions. */
function nodes(expr: Expr | undefined): number {
  if (!expr) return 0;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'constExpr':
      return 0;
    case 'selectExpr':
      return 1 + nodes(kind.value.operand);
    case 'callExpr':
      return 1 + nodes(kind.value.target) + kind.value.args.reduce((n, a) => n + nodes(a), 0);
    case 'listExpr':
      return 1 + kind.value.elements.reduce((n, e) => n + nodes(e), 0);
    case 'structExpr':
      return (
        1 +
        kind.value.entries.reduce(
          (n, e) => n + nodes(e.value) + (e.keyKind.case === 'mapKey' ? nodes(e.keyKind.value) : 0),
          0,
        )
      );
    case 'comprehensionExpr': {
      const c = kind.value;
      return 1 + nodes(c.iterRange) + nodes(c.accuInit) + nodes(c.result);
    }
    default:
      return 1;
  }
}

/** `expr` with every comprehension step behind a `@cost` of what one iteration evaluates. */
function rewrite(expr: Expr | undefined, ids: { next: bigint }): void {
  if (!expr) return;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      return rewrite(kind.value.operand, ids);
    case 'callExpr':
      rewrite(kind.value.target, ids);
      for (const a of kind.value.args) rewrite(a, ids);
      return;
    case 'listExpr':
      for (const e of kind.value.elements) rewrite(e, ids);
      return;
    case 'structExpr':
      for (const e of kind.value.entries) {
        rewrite(e.value, ids);
        if (e.keyKind.case === 'mapKey') rewrite(e.keyKind.value, ids);
      }
      return;
    case 'comprehensionExpr': {
      const c = kind.value;
      for (const e of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result])
        rewrite(e, ids);
      if (!c.loopStep) return;
      const perIteration = 1 + nodes(c.loopStep) + nodes(c.loopCondition);
      c.loopStep = metered(c.loopStep, perIteration, ids);
      return;
    }
    default:
      return;
  }
}

/** `@cost(n) ? step : step`: the step runs only once its cost is charged. */
function metered(step: Expr, n: number, ids: { next: bigint }): Expr {
  const node = structuredClone(TEMPLATE);
  if (node.exprKind.case !== 'callExpr') return step;
  const [cost] = node.exprKind.value.args;
  if (cost?.exprKind.case !== 'callExpr') return step;
  const [count] = cost.exprKind.value.args;
  if (count?.exprKind.case !== 'constExpr') return step;
  count.exprKind.value.constantKind = { case: 'int64Value', value: BigInt(n) };
  node.id = ids.next++;
  cost.id = ids.next++;
  count.id = ids.next++;
  node.exprKind.value.args = [cost, step, step];
  return node;
}

function maxId(expr: Expr | undefined): bigint {
  let max = 0n;
  const visit = (e: Expr | undefined): void => {
    if (!e) return;
    if (e.id > max) max = e.id;
    const kind = e.exprKind;
    if (kind.case === 'selectExpr') visit(kind.value.operand);
    else if (kind.case === 'callExpr') {
      visit(kind.value.target);
      kind.value.args.forEach(visit);
    } else if (kind.case === 'listExpr') kind.value.elements.forEach(visit);
    else if (kind.case === 'structExpr')
      kind.value.entries.forEach((en) => {
        visit(en.value);
        if (en.keyKind.case === 'mapKey') visit(en.keyKind.value);
      });
    else if (kind.case === 'comprehensionExpr') {
      const c = kind.value;
      [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].forEach(visit);
    }
  };
  visit(expr);
  return max;
}

/** A parsed rule made metered, and what evaluating it costs outside its loops. */
export function meteredExpression(parsed: Parsed): { parsed: Parsed; base: number } {
  const copy = structuredClone(parsed);
  rewrite(copy.expr, { next: maxId(copy.expr) + 1n });
  return { parsed: copy, base: Math.max(nodes(parsed.expr), 1) };
}

/** What one call cost, and whether it passed `limit` (its result is then an error). */
export interface Metered<T> {
  result: T | Error;
  cost: number;
  exceeded: boolean;
}

/** Runs `call` with its cost metered from `base`, limited to `limit`. */
export function runMetered<T>(call: () => T, base: number, limit: number): Metered<T> {
  const meter = new Meter(limit);
  meter.used = base;
  const previous = active;
  active = meter;
  let result: T | Error;
  try {
    result = call();
  } catch (err) {
    result = err instanceof Error ? err : new Error(String(err));
  } finally {
    active = previous;
  }
  return {
    result,
    cost: meter.used,
    exceeded: meter.exceeded || meter.used > limit,
  };
}
