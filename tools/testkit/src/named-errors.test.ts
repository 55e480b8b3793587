import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { filesUnder } from '@opi/devstack/files';
import { NOT_FOUND_THINGS, notFoundMessage } from '@opi/service-kit/http/named-errors';
import ts from 'typescript';

// Issue 36 point 4: an error answer is built with a named constructor of
// @opi/service-kit/http/named-errors (`notFound('round')`, `conflict('…')`, `invalidField(…)`),
// not `new HttpError(<status literal>, '…')`. Fails on, outside the errors modules and tests:
// - `new HttpError(<a number>, …)`: the status is the constructor's name;
// - `new HttpError(…)` whose message says "not found" (whatever its status): `notFound(thing)`;
// - `notFoundDetail('<Thing> not found…')` spelling a thing's message by hand: `notFound(thing)`.
// A status given by a named constant (`BETS_BLOCKED_STATUS` of @opi/contract) is allowed:
// it is named, and shared with what else reads it. Parsed with the TypeScript compiler.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SCAN = ['services', 'packages', 'workflows', 'tools', 'bench'];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.next', 'generated', 'test-support', 'fixtures']);
/** The errors modules: the only places that build an HttpError from a status number. */
const ERRORS_MODULES = new Set([
  'packages/service-kit/src/http/errors.ts',
  'packages/service-kit/src/http/named-errors.ts',
]);

const sourceFiles = (dir: string) =>
  filesUnder(
    dir,
    (name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts'),
    SKIP_DIRS,
  );

/** Every "<Thing> not found[ …]" a thing's 404 spells (lower-cased). */
const THING_MESSAGES = NOT_FOUND_THINGS.map((t) => notFoundMessage(t).toLowerCase());

function literalText(n: ts.Node | undefined): string | undefined {
  if (!n) return undefined;
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isTemplateExpression(n))
    return n.head.text + n.templateSpans.map((s) => `\${…}${s.literal.text}`).join('');
  return undefined;
}

/** The rule's findings in one module's text: `line: what is wrong`. */
export function namedErrorFindings(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const at = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const visit = (n: ts.Node) => {
    if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'HttpError') {
      const [status, detail] = n.arguments ?? [];
      const message = literalText(detail);
      if (message !== undefined && /not found/i.test(message))
        found.push(`${at(n)}: new HttpError(…, '${message}'): a "not found" answer is notFound(thing)`);
      else if (status && ts.isNumericLiteral(status))
        found.push(
          `${at(n)}: new HttpError(${status.text}, …): use the named constructor of @opi/service-kit/http/named-errors`,
        );
    }
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'notFoundDetail') {
      const message = literalText(n.arguments[0])?.toLowerCase();
      if (message !== undefined && THING_MESSAGES.some((m) => message === m || message.startsWith(`${m} `)))
        found.push(
          `${at(n)}: notFoundDetail('${literalText(n.arguments[0])}'): use notFound(thing[, qualifier])`,
        );
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

test('the rule finds what it is meant to (and lets the named forms and named statuses through)', () => {
  const bad = [
    `throw new HttpError(404, 'Round not found');`,
    `throw new HttpError(409, 'The round is open');`,
    `throw new HttpError(\n  422,\n  [{ loc: ['body', 'x'], msg: 'bad', type: 'value_error' }],\n);`,
    `throw new HttpError(NOT_FOUND, \`Operator \${id} not found\`);`,
    `throw notFoundDetail('Prize drop not found');`,
    `throw notFoundDetail('Round not found in this session');`,
  ];
  for (const src of bad) assert.equal(namedErrorFindings('x.ts', src).length, 1, src);
  const good = [
    `throw notFound('round');`,
    `throw notFound('round', 'in this session');`,
    `throw notFoundDetail('No such symbol art');`,
    `throw notFoundDetail(\`Game \${symbol} not in the operator catalog\`);`,
    `return new HttpError(BETS_BLOCKED_STATUS, blocked.message, { error: blocked.code });`,
    `return new HttpError(status, detail);`,
    `if (err instanceof HttpError) throw err;`,
  ];
  for (const src of good) assert.deepEqual(namedErrorFindings('x.ts', src), [], src);
});

test('no literal HttpError status or hand-written "not found" outside the errors modules', () => {
  const files = SCAN.flatMap((d) => sourceFiles(path.join(ROOT, d)));
  assert.ok(files.length > 100, `scanned ${files.length} files`);
  const problems: string[] = [];
  for (const file of files) {
    const rel = path.relative(ROOT, file).split(path.sep).join('/');
    if (ERRORS_MODULES.has(rel)) continue;
    const text = readFileSync(file, 'utf8');
    if (!text.includes('HttpError') && !text.includes('notFoundDetail')) continue;
    for (const f of namedErrorFindings(rel, text)) problems.push(`${rel}:${f}`);
  }
  assert.deepEqual(
    problems,
    [],
    `build error answers with @opi/service-kit/http/named-errors:\n${problems.join('\n')}`,
  );
});
