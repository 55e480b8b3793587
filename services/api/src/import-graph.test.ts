/**
 * The API's module edges (docs/architecture.md, "Module edges"): no import cycle among the modules
 * of services/api/src (tests and test support excluded; `import type` counts), and each game
 * family's folder depends on shared modules only, never on another family's. Shared modules
 * (sessions/, settlement/, engines/, deps.ts, http/ ...) import no family folder; only the
 * composition roots listed below mount or document the families' routes. Plain parsing with the
 * TypeScript compiler's pre-processor: no database, no network.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = path.dirname(fileURLToPath(import.meta.url));

/** The game families and their folders (relative to services/api/src). */
const FAMILIES: Record<string, string[]> = {
  launch: ['launch'],
  slots: ['runtime', 'pages', 'free-rounds'],
  native: ['native'],
  crash: ['crash'],
};
/** Modules outside the families that may import them: the app mounts their routes, openapi documents them. */
const COMPOSITION_ROOTS = ['app.ts', 'openapi/'];

type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'test-support' && name !== 'static' && name !== 'node_modules')
        out.push(...sourceFiles(full));
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

/** The module a relative specifier names (`./x.js` is `./x.ts`, a folder its index.ts). */
function resolve(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base;
}

/** Every local module a file imports: import and export-from (type-only too), require, import(). */
export function localImports(file: string, text = readFileSync(file, 'utf8')): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(file, s));
}

function buildGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(SRC)) {
    graph.set(
      path.relative(SRC, file),
      localImports(file).map((target) => path.relative(SRC, target)),
    );
  }
  return graph;
}

/**
 * The cycles of a graph: per strongly connected component that loops, its modules and one
 * concrete path through them back to the start.
 */
export function findCycles(graph: Graph): { modules: string[]; path: string[] }[] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) visit(v);
  return components.map((component) => ({ modules: [...component].sort(), path: loopOf(graph, component) }));
}

/** A path from the component's first module back to itself, inside the component. */
function loopOf(graph: Graph, component: string[]): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const loop = [start];
        for (let u = v; u !== start; u = previous.get(u)!) loop.splice(1, 0, u);
        return [...loop, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...component, start];
}

function familyOf(module: string): string | undefined {
  const top = module.split(path.sep)[0];
  return Object.keys(FAMILIES).find((family) => FAMILIES[family]!.includes(top!));
}

/** Imports that break the family rule, as `from -> to (why)`. */
export function familyViolations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const fromFamily = familyOf(from);
    for (const to of targets) {
      const toFamily = familyOf(to);
      if (!toFamily || toFamily === fromFamily) continue;
      if (fromFamily) out.push(`${from} -> ${to} (family ${fromFamily} imports family ${toFamily})`);
      else if (!COMPOSITION_ROOTS.some((root) => from === root || from.startsWith(root)))
        out.push(`${from} -> ${to} (a shared module imports family ${toFamily})`);
    }
  }
  return out.sort();
}

describe('the API import graph', () => {
  const graph = buildGraph();

  test('is read from the source (sanity: the families and the shared session module are there)', () => {
    assert.ok(graph.size > 50, `only ${graph.size} modules found`);
    for (const module of [
      'sessions/authenticate.ts',
      'launch/create-launch.ts',
      'crash/routes.ts',
      'deps.ts',
    ])
      assert.ok(graph.has(module), `${module} not found`);
    assert.ok(graph.get('crash/routes.ts')!.includes('sessions/tokens.ts'));
  });

  test('has no import cycle', () => {
    const cycles = findCycles(graph);
    assert.deepEqual(
      cycles.map((c) => `${c.path.join(' > ')} (the loop's modules: ${c.modules.join(', ')})`),
      [],
      'import cycles (type imports count): move what both sides need into a shared module (docs/architecture.md)',
    );
  });

  test('keeps each game family to itself: no family imports another, shared modules import none', () => {
    assert.deepEqual(
      familyViolations(graph),
      [],
      'move what several families use into a shared folder (sessions/ for a session and its tokens, ' +
        'settlement/ for starting and settling rounds): see docs/architecture.md, "Module edges"',
    );
  });

  test('the checks find what they look for (a cycle, a type-only import, a cross-family import)', () => {
    const fake: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ]);
    assert.deepEqual(findCycles(fake), [
      { modules: ['a.ts', 'b.ts', 'c.ts'], path: ['a.ts', 'b.ts', 'c.ts', 'a.ts'] },
      { modules: ['d.ts'], path: ['d.ts', 'd.ts'] },
    ]);
    const file = path.join(SRC, 'crash', 'x.ts');
    assert.deepEqual(
      localImports(
        file,
        "import type { A } from '../runtime/spin.js';\nexport { b } from './chain.js';\n",
      ).map((m) => path.relative(SRC, m)),
      [path.join('runtime', 'spin.ts'), path.join('crash', 'chain.ts')],
    );
    const crossing: Graph = new Map([
      [path.join('crash', 'x.ts'), [path.join('runtime', 'spin.ts')]],
      ['deps.ts', [path.join('native', 'rounds.ts')]],
      ['app.ts', [path.join('crash', 'routes.ts')]],
    ]);
    assert.deepEqual(familyViolations(crossing), [
      `${path.join('crash', 'x.ts')} -> ${path.join('runtime', 'spin.ts')} (family crash imports family slots)`,
      `deps.ts -> ${path.join('native', 'rounds.ts')} (a shared module imports family native)`,
    ]);
  });
});
