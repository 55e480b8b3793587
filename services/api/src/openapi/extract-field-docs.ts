/**
 * Field descriptions for the OpenAPI document, taken from the JSDoc comments the contract's zod
 * schemas already carry (`/** Bearer secret ... *\/ launch_url: z.url()`), so the reference says
 * what the contract says without a second copy. Writes field-docs.generated.json; a test fails
 * when it is stale.
 *
 *   node --conditions=source --import tsx services/api/src/openapi/extract-field-docs.ts
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const FIELD_DOCS_FILE = path.join(HERE, 'field-docs.generated.json');
const SOURCES = [
  ...readdirSync(path.resolve(HERE, '../../../../packages/contract/src'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => path.resolve(HERE, '../../../../packages/contract/src', f)),
  path.resolve(HERE, '../../../../packages/play/src/ops/schemas.ts'),
];

/** `{ ExportName: { '': doc of the schema, 'field': doc, 'field.sub': doc } }` */
export type FieldDocs = Record<string, Record<string, string>>;

function docOf(node: ts.Node, sf: ts.SourceFile): string | undefined {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? [];
  const last = ranges.filter((r) => sf.text.slice(r.pos, r.pos + 3) === '/**').at(-1);
  if (!last) return undefined;
  const text = sf.text
    .slice(last.pos + 3, last.end - 2)
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text || undefined;
}

export function extractFieldDocs(): FieldDocs {
  const files = SOURCES.map((f) =>
    ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.ES2022, true),
  );
  // Every top-level const initializer by name (a spread `...SearchBase` names one).
  const consts = new Map<string, { init: ts.Expression; sf: ts.SourceFile; stmt: ts.Node }>();
  for (const sf of files) {
    for (const stmt of sf.statements) {
      if (!ts.isVariableStatement(stmt)) continue;
      for (const d of stmt.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer)
          consts.set(d.name.text, { init: d.initializer, sf, stmt });
      }
    }
  }

  const collect = (
    node: ts.Node,
    sf: ts.SourceFile,
    prefix: string,
    out: Record<string, string>,
    seen: Set<string>,
  ) => {
    const visitObject = (obj: ts.ObjectLiteralExpression) => {
      for (const p of obj.properties) {
        if (ts.isSpreadAssignment(p) && ts.isIdentifier(p.expression)) {
          const target = consts.get(p.expression.text);
          if (target && !seen.has(p.expression.text)) {
            collect(target.init, target.sf, prefix, out, new Set([...seen, p.expression.text]));
          }
          continue;
        }
        if (!ts.isPropertyAssignment(p) || !(ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) continue;
        const key = prefix + p.name.text;
        const doc = docOf(p, sf);
        if (doc && out[key] === undefined) out[key] = doc;
        collect(p.initializer, sf, `${key}.`, out, seen);
      }
    };
    const walk = (n: ts.Node) => {
      if (ts.isObjectLiteralExpression(n)) return visitObject(n);
      // successEnvelope(x): x's fields live under `data`.
      if (
        ts.isCallExpression(n) &&
        ts.isIdentifier(n.expression) &&
        n.expression.text === 'successEnvelope'
      ) {
        for (const a of n.arguments) collect(a, sf, `${prefix}data.`, out, seen);
        return;
      }
      // Do not descend into functions (refinements) or nested object literals reached otherwise.
      if (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) return;
      ts.forEachChild(n, walk);
    };
    walk(node);
  };

  const docs: FieldDocs = {};
  for (const sf of files) {
    for (const stmt of sf.statements) {
      if (!ts.isVariableStatement(stmt)) continue;
      if (!stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      for (const d of stmt.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || !d.initializer) continue;
        const entry: Record<string, string> = {};
        const top = docOf(stmt, sf);
        if (top) entry[''] = top;
        collect(d.initializer, sf, '', entry, new Set([d.name.text]));
        if (Object.keys(entry).length > 0) docs[d.name.text] = entry;
      }
    }
  }
  return Object.fromEntries(Object.entries(docs).sort(([a], [b]) => a.localeCompare(b)));
}

export function fieldDocsJson(): string {
  return `${JSON.stringify(extractFieldDocs(), null, 2)}\n`;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) {
  writeFileSync(FIELD_DOCS_FILE, fieldDocsJson());
  process.stdout.write(`written ${FIELD_DOCS_FILE}\n`);
}
