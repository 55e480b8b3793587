import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { filesUnder } from '@opi/devstack/files';
import { currencies } from '@opi/money';
import ts from 'typescript';

// Issue 39 point 4: no floating point on a money path. Fails on `Number(x)`, `parseFloat(x)`,
// `Number.parseFloat(x)`, `parseInt(x)`, `Number.parseInt(x)` and unary `+x` where x names a money
// field (`bet_minor`, `amount`, `balance`, `stakeMinor`, `win` ...) in the services, the shared
// play, wallet and HTTP code, the workflows, the page scripts and the portal. A use that is not
// money despite its name, or that the contract forces (the callback's decimal `amount`), is
// allowed only with a `money-float-ok: <reason>` comment on its line or up to three lines above, so every
// exception is written down. Parsed with the TypeScript compiler, no database needed.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SCAN = [
  'services/api/src',
  'services/game-server/src',
  'services/worker/src',
  'services/wallet-sandbox/src',
  'packages/play/src',
  'packages/service-kit/src',
  'packages/wallet/src',
  'workflows/src',
  'portal/src',
];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.next', 'generated', 'test-support']);

/**
 * Exceptions in files this test does not annotate, each with its reason (file, the call's text).
 * The callback's `amount_minor` is an int64 JSON integer by contract: sent as a number once
 * minorToDecimalNumber has checked the amount is within Number.MAX_SAFE_INTEGER (it throws past it),
 * so the number is exact.
 */
const ALLOWED: { file: string; text: string; reason: string }[] = [
  {
    file: 'packages/wallet/src/journal.ts',
    text: 'Number(minor)',
    reason: 'amount_minor of a callback body, after minorToDecimalNumber checked it is a safe integer',
  },
];

/** Words of an identifier that make it a money field. */
const MONEY_WORDS = new Set([
  'minor',
  'amount',
  'amounts',
  'balance',
  'balances',
  'stake',
  'stakes',
  'bet',
  'bets',
  'win',
  'wins',
  'payout',
  'payouts',
  'jackpot',
  'prize',
  'coin',
  'micros',
  'price',
  'fee',
  'ggr',
  'ggy',
  'debit',
  'credit',
  'cost',
  'money',
]);
/** Words that make it something else (a count, a level, a time, a ratio). */
const NOT_MONEY_WORDS = new Set([
  'level',
  'levels',
  'count',
  'ms',
  'seconds',
  'rank',
  'ppm',
  'index',
  'lines',
  'n',
]);

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}
export function isMoneyName(name: string): boolean {
  const w = words(name);
  return w.some((x) => MONEY_WORDS.has(x)) && !w.some((x) => NOT_MONEY_WORDS.has(x));
}

const PASS_THROUGH_METHODS = new Set(['trim', 'toString', 'valueOf', 'replace', 'slice']);

/** The name an argument expression reads: an identifier, a property, a call's function; else null. */
function nameOf(e: ts.Expression): string | null {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e))
    return nameOf(e.expression);
  if (ts.isBinaryExpression(e)) {
    const k = e.operatorToken.kind;
    if (k === ts.SyntaxKind.QuestionQuestionToken || k === ts.SyntaxKind.BarBarToken) return nameOf(e.left);
    return null;
  }
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e) && ts.isStringLiteral(e.argumentExpression))
    return e.argumentExpression.text;
  if (ts.isCallExpression(e)) {
    const c = e.expression;
    if (ts.isPropertyAccessExpression(c) && PASS_THROUGH_METHODS.has(c.name.text))
      return nameOf(c.expression);
    if (ts.isIdentifier(c)) return c.text;
    if (ts.isPropertyAccessExpression(c)) return c.name.text;
  }
  return null;
}

const FLOAT_CALLS = new Set(['Number', 'parseFloat', 'parseInt', 'Number.parseFloat', 'Number.parseInt']);

export interface Finding {
  file: string;
  line: number;
  text: string;
}

/** Every float conversion of a money field in `source` that no `money-float-ok:` comment allows. */
export function findMoneyFloats(file: string, source: string): Finding[] {
  const kind = file.endsWith('.tsx')
    ? ts.ScriptKind.TSX
    : file.endsWith('.js')
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const lines = source.split('\n');
  const out: Finding[] = [];
  // The comment on the call's line or on one of the three lines above it (a statement's head).
  const allowed = (line: number) =>
    [0, 1, 2, 3].some((back) => /money-float-ok:\s*\S/.test(lines[line - back] ?? ''));
  const report = (node: ts.Node) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
    if (!allowed(line)) out.push({ file, line: line + 1, text: node.getText(sf).slice(0, 120) });
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = node.expression.getText(sf);
      const name = nameOf(node.arguments[0]!);
      if (FLOAT_CALLS.has(callee) && name && isMoneyName(name)) report(node);
    }
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.PlusToken) {
      const name = nameOf(node.operand);
      if (name && isMoneyName(name)) report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const files = (dir: string) =>
  filesUnder(dir, (name) => /\.(ts|tsx|js|mjs)$/.test(name) && !/\.test\.ts$|\.d\.ts$/.test(name), SKIP_DIRS);

test('the rule finds what it should and nothing else', () => {
  const found = findMoneyFloats(
    'x.ts',
    [
      'const a = Number(row.bet_minor);',
      'const b = parseFloat(body.amount);',
      'const c = Number(balance.trim());',
      'const d = +req.stake_minor;',
      'const e = Number.parseInt(winMinor, 10);',
      'const f = Number(minorToDecimalString(x, c));',
      'const g = Number(row.count);',
      'const h = Number(req.bet_level);',
      'const i = Number(elapsed_ms);',
      "// money-float-ok: the contract's decimal `amount` is a JSON number",
      'const j = Number(amount);',
      'const k = BigInt(row.bet_minor);',
      'const l = Number(rows[0]?.unbalanced ?? 0);',
    ].join('\n'),
  );
  assert.deepEqual(
    found.map((f) => f.line),
    [1, 2, 3, 4, 5, 6],
  );
});

test('no float conversion of a money field in the services, play, wallet, workflows, page scripts or portal', () => {
  const findings: Finding[] = [];
  for (const dir of SCAN) {
    for (const file of files(path.join(ROOT, dir))) {
      const rel = path.relative(ROOT, file);
      findings.push(
        ...findMoneyFloats(rel, readFileSync(file, 'utf8')).filter(
          (f) => !ALLOWED.some((a) => a.file === f.file && a.text === f.text),
        ),
      );
    }
  }
  assert.deepEqual(
    findings.map((f) => `${f.file}:${f.line}: ${f.text}`),
    [],
    'convert money with BigInt and @opi/money (decimal strings), or write why it is not money: // money-float-ok: <reason>',
  );
});

test("the portal's and the operator SDK's copies of the exponents are the registry's", () => {
  const registry = Object.fromEntries(
    currencies()
      .filter((c) => c.playable && c.exponent !== 2)
      .map((c) => [c.code, c.exponent]),
  );
  // Read as text: neither is a dependency of this package.
  for (const [file, name] of [
    ['portal/src/lib/format.ts', 'EXPONENTS'],
    ['packages/operator-sdk/src/money.ts', 'CURRENCY_EXPONENTS'],
  ] as const) {
    const source = readFileSync(path.join(ROOT, file), 'utf8');
    const table = new RegExp(`export const ${name}[^{]*\\{([^}]*)\\}`).exec(source)?.[1] ?? '';
    const copy = Object.fromEntries(
      [...table.matchAll(/([A-Z]{3}):\s*(\d+)/g)].map((m) => [m[1], Number(m[2])]),
    );
    assert.deepEqual(copy, registry, file);
  }
});
