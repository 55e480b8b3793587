/**
 * The module edges (docs/architecture.md, "Module edges"), over the two services, the Temporal
 * application and the packages they share (services/api, services/game-server, workflows,
 * packages/play, packages/service-kit, packages/wallet; tests and test support excluded from the
 * graph; `import type` counts):
 * - no import cycle, across packages too (`@opi/play/x` is the module packages/play/src/x.ts);
 * - each game family's folder depends on shared modules only, never on another family's; shared
 *   modules import no family folder; only the composition roots mount or document routes;
 * - neither service imports the other, in any file, tests included (their tests compose both
 *   through @opi/testkit), and the shared packages import neither service;
 * - arrows run down only: services -> workflows -> @opi/wallet. The shared packages (play,
 *   service-kit, wallet) import neither workflows nor a service, workflows imports no service and no
 *   shared package but @opi/wallet, and workflow code reaches @opi/wallet only through its
 *   Node-free intent (`@opi/wallet/intent`, which imports nothing);
 * - @opi/wallet is the only writer of the journal: no other product module inserts or updates a
 *   `wallet_transactions` row;
 * - the tools that compose the services (tools/devstack, tools/testkit) are no library: packages/
 *   holds none of them, and no product module (a library, a service, the worker, workflows) imports
 *   them; tests, test support, bench and e2e do.
 * Plain parsing with the TypeScript compiler's pre-processor: no database, no network.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Module names are relative to the repository root. */
const SRC = REPO;
const API = 'services/api/src';
const GAME = 'services/game-server/src';
const WORKFLOWS = 'workflows/src';
const WALLET = 'packages/wallet/src';
/** The source roots of the graph, by the package name their subpaths are imported as. */
const ROOTS: Record<string, string> = {
  '@opi/api': API,
  '@opi/game-server': GAME,
  '@opi/workflows': WORKFLOWS,
  '@opi/play': 'packages/play/src',
  '@opi/service-kit': 'packages/service-kit/src',
  '@opi/wallet': WALLET,
};
/** Package subpaths exported from another file than `<root>/<subpath>.ts` (package.json exports). */
const EXPORTS: Record<string, string> = {
  '@opi/workflows/histories': `${WORKFLOWS}/histories/corpus.ts`,
};
/** The shared packages: they import neither workflows nor a service. */
const SHARED = ['packages/play/src', 'packages/service-kit/src', WALLET];
/** The workflow code that the Temporal bundle runs (deterministic; Node-free imports only). */
const WORKFLOW_CODE = [
  `${WORKFLOWS}/workflows.ts`,
  `${WORKFLOWS}/settle-round/workflow.ts`,
  `${WORKFLOWS}/settle-round/messages.ts`,
  `${WORKFLOWS}/settle-round/versioning.ts`,
  `${WORKFLOWS}/promotions/workflow.ts`,
  `${WORKFLOWS}/promotions/messages.ts`,
  `${WORKFLOWS}/floor/workflow.ts`,
  `${WORKFLOWS}/probe/workflow.ts`,
];

/**
 * The game families and their folders. The API's feature folders (free-rounds/, tournaments/,
 * prize-drops/, ...) are no family: each serves the operator API's routes and the staff API's
 * pages alike (staff/ imports free-rounds/campaigns.ts as it imports tournaments/service.ts).
 */
const FAMILIES: Record<string, string[]> = {
  launch: [`${API}/launch`],
  slots: [`${GAME}/slots`, `${GAME}/runtime`],
  native: [`${GAME}/native`],
  crash: [`${GAME}/crash`],
};
/** Modules outside the families that may import them: the apps mount their routes, openapi documents them. */
const COMPOSITION_ROOTS = [`${API}/app.ts`, `${API}/openapi/`, `${GAME}/app.ts`];

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

/** The module a specifier names (`./x.js` is `./x.ts`, a folder its index.ts, `@opi/play/x` packages/play/src/x.ts). */
function resolve(from: string, specifier: string): string {
  if (EXPORTS[specifier]) return path.join(REPO, EXPORTS[specifier]);
  const pkg = Object.keys(ROOTS).find((name) => specifier === name || specifier.startsWith(`${name}/`));
  const base = pkg
    ? path.join(REPO, ROOTS[pkg]!, specifier === pkg ? 'index' : specifier.slice(pkg.length + 1))
    : path.resolve(path.dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base;
}

/** Every specifier a file imports: import and export-from (type-only too), require, import(). */
function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** Every module of the graph's roots a file imports (relative, or a subpath of a root's package). */
export function localImports(file: string, text = readFileSync(file, 'utf8')): string[] {
  return specifiers(text)
    .filter(
      (s) => s.startsWith('.') || Object.keys(ROOTS).some((name) => s === name || s.startsWith(`${name}/`)),
    )
    .map((s) => resolve(file, s));
}

function buildGraph(): Graph {
  const graph: Graph = new Map();
  for (const root of Object.values(ROOTS)) {
    for (const file of sourceFiles(path.join(REPO, root))) {
      graph.set(
        path.relative(SRC, file),
        localImports(file).map((target) => path.relative(SRC, target)),
      );
    }
  }
  return graph;
}

/** Every .ts file under a folder, tests and test support included. */
function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'node_modules' && name !== 'static') out.push(...allFiles(full));
    } else if (name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/** The libraries: every folder of packages/ with a src/ (the tools that compose the stack are in tools/). */
function libraries(): string[] {
  return readdirSync(path.join(REPO, 'packages')).filter((name) =>
    existsSync(path.join(REPO, 'packages', name, 'src')),
  );
}

/** The imports of `files` that reach into a forbidden service, as `file -> specifier`. */
export function boundaryViolations(files: string[], forbidden: { pkg: string; dir: string }[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    for (const s of specifiers(readFileSync(file, 'utf8'))) {
      const target = s.startsWith('.') ? path.resolve(path.dirname(file), s) : undefined;
      for (const f of forbidden) {
        if (s === f.pkg || s.startsWith(`${f.pkg}/`) || target?.startsWith(path.join(REPO, f.dir) + path.sep))
          out.push(`${path.relative(REPO, file)} -> ${s}`);
      }
    }
  }
  return out.sort();
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
  return Object.keys(FAMILIES).find((family) =>
    FAMILIES[family]!.some((dir) => module === dir || module.startsWith(`${dir}/`)),
  );
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

describe('the import graph of the two services, workflows and their shared packages', () => {
  const graph = buildGraph();

  test('is read from the source (sanity: the families and the shared session module are there)', () => {
    assert.ok(graph.size > 100, `only ${graph.size} modules found`);
    for (const module of [
      'packages/play/src/sessions/authenticate.ts',
      `${API}/launch/create-launch.ts`,
      `${GAME}/crash/routes.ts`,
      `${API}/deps.ts`,
      `${GAME}/deps.ts`,
    ])
      assert.ok(graph.has(module), `${module} not found`);
    assert.ok(graph.get(`${GAME}/crash/routes.ts`)!.includes('packages/play/src/sessions/tokens.ts'));
  });

  test('neither service imports the other (tests too); the shared packages import neither', () => {
    const api = { pkg: '@opi/api', dir: API };
    const game = { pkg: '@opi/game-server', dir: GAME };
    assert.deepEqual(
      boundaryViolations(allFiles(path.join(REPO, API)), [game]),
      [],
      'services/api imports the game server',
    );
    assert.deepEqual(
      boundaryViolations(allFiles(path.join(REPO, GAME)), [api]),
      [],
      'services/game-server imports the API',
    );
    for (const pkg of ['packages/play/src', 'packages/service-kit/src'])
      assert.deepEqual(
        boundaryViolations(allFiles(path.join(REPO, pkg)), [api, game]),
        [],
        `${pkg} imports a service`,
      );
    // The check sees both kinds of reach: a package subpath and a relative path.
    const probe = path.join(REPO, API, 'probe.ts');
    assert.deepEqual(
      specifiers(
        "import { x } from '@opi/game-server/app';\nimport y from '../../game-server/src/app.js';\n",
      ).map((s) =>
        s.startsWith('.')
          ? path.resolve(path.dirname(probe), s).startsWith(path.join(REPO, GAME))
          : s.startsWith('@opi/game-server'),
      ),
      [true, true],
    );
  });

  test('arrows run down: services -> workflows -> @opi/wallet; the shared packages import neither workflows nor a service', () => {
    const services = [
      { pkg: '@opi/api', dir: API },
      { pkg: '@opi/game-server', dir: GAME },
    ];
    const workflows = { pkg: '@opi/workflows', dir: WORKFLOWS };
    for (const pkg of SHARED)
      assert.deepEqual(
        boundaryViolations(allFiles(path.join(REPO, pkg)), [...services, workflows]),
        [],
        `${pkg} imports workflows or a service: what both need belongs in the shared package (the wallet protocol, the journal and the intent in @opi/wallet)`,
      );
    // workflows is a leaf: no package's code imports it. The tools that compose the stack and its
    // tests (tools/devstack, tools/testkit) are not packages; tests elsewhere may run a real worker.
    const packages = libraries();
    assert.ok(packages.includes('wallet') && packages.includes('play'));
    assert.deepEqual(
      boundaryViolations(
        packages.flatMap((name) => sourceFiles(path.join(REPO, 'packages', name, 'src'))),
        [workflows],
      ),
      [],
      'a package imports @opi/workflows (the Temporal application is a leaf: docs/architecture.md)',
    );
    assert.deepEqual(
      boundaryViolations(allFiles(path.join(REPO, WORKFLOWS)), [
        ...services,
        { pkg: '@opi/play', dir: 'packages/play/src' },
        { pkg: '@opi/service-kit', dir: 'packages/service-kit/src' },
      ]),
      [],
      'workflows imports a service or a shared package of the services (only @opi/wallet)',
    );
  });

  test('the tools (tools/devstack, tools/testkit) compose the services: no product code imports them', () => {
    const tools = readdirSync(path.join(REPO, 'tools')).filter((name) =>
      existsSync(path.join(REPO, 'tools', name, 'src')),
    );
    assert.deepEqual(tools.sort(), ['devstack', 'testkit'], 'the tools are tools/devstack and tools/testkit');
    assert.ok(
      !libraries().some((name) => tools.includes(name)),
      'packages/ holds the libraries only; the tools are in tools/',
    );
    const forbidden = tools.map((name) => ({ pkg: `@opi/${name}`, dir: `tools/${name}/src` }));
    // Product code: the libraries, both services, services/worker and workflows, tests and test
    // support aside (their tests compose the services through @opi/testkit).
    const product = [
      ...libraries().map((name) => `packages/${name}/src`),
      API,
      GAME,
      'services/worker/src',
      WORKFLOWS,
    ];
    assert.deepEqual(
      boundaryViolations(
        product.flatMap((dir) => sourceFiles(path.join(REPO, dir))),
        forbidden,
      ),
      [],
      'product code imports a tool (@opi/devstack or @opi/testkit): only tests, test support, bench and e2e may',
    );
  });

  test('workflow code reaches @opi/wallet only through its Node-free intent, which imports nothing', () => {
    for (const module of WORKFLOW_CODE) {
      assert.ok(graph.has(module), `${module} not found`);
      const wallet = graph.get(module)!.filter((to) => to.startsWith(`${WALLET}/`));
      assert.deepEqual(
        wallet.filter((to) => to !== `${WALLET}/intent.ts`),
        [],
        `${module} imports @opi/wallet beyond @opi/wallet/intent`,
      );
    }
    assert.ok(graph.get(`${WORKFLOWS}/settle-round/workflow.ts`)!.includes(`${WALLET}/intent.ts`));
    assert.deepEqual(specifiers(readFileSync(path.join(REPO, WALLET, 'intent.ts'), 'utf8')), []);
  });

  test('@opi/wallet is the only writer of wallet_transactions (product code; tests, test support and tools aside)', () => {
    const writers: string[] = [];
    for (const dir of [...Object.values(ROOTS), 'services/worker/src', 'packages/db/src']) {
      for (const file of sourceFiles(path.join(REPO, dir))) {
        const module = path.relative(REPO, file);
        if (module.startsWith(`${WALLET}/`)) continue;
        if (
          /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+wallet_transactions\b/i.test(readFileSync(file, 'utf8'))
        )
          writers.push(module);
      }
    }
    assert.deepEqual(
      writers,
      [],
      'write the journal through @opi/wallet (its journal part of a statement: journalInsertSql, journalOutcomeSql, ...)',
    );
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
    const file = path.join(REPO, GAME, 'crash', 'x.ts');
    assert.deepEqual(
      localImports(
        file,
        "import type { A } from '../slots/spin.js';\nexport { b } from './chain.js';\nimport { c } from '@opi/play/sessions/tokens';\n",
      ).map((m) => path.relative(SRC, m)),
      [`${GAME}/slots/spin.ts`, `${GAME}/crash/chain.ts`, 'packages/play/src/sessions/tokens.ts'],
    );
    const play = path.join(REPO, 'packages/play/src/x.ts');
    assert.deepEqual(
      specifiers(
        "import { a } from '@opi/workflows';\nimport b from '../../../workflows/src/start.js';\n",
      ).map((s) =>
        s.startsWith('.')
          ? path.resolve(path.dirname(play), s).startsWith(path.join(REPO, WORKFLOWS))
          : s.startsWith('@opi/workflows'),
      ),
      [true, true],
    );
    assert.equal(
      path.relative(SRC, resolve(play, '@opi/wallet/intent')),
      `${WALLET}/intent.ts`,
      '@opi/wallet/intent is packages/wallet/src/intent.ts',
    );
    const crossing: Graph = new Map([
      [`${GAME}/crash/x.ts`, [`${GAME}/slots/spin.ts`]],
      ['packages/play/src/deps.ts', [`${GAME}/native/rounds.ts`]],
      [`${GAME}/app.ts`, [`${GAME}/crash/routes.ts`]],
    ]);
    assert.deepEqual(familyViolations(crossing), [
      `packages/play/src/deps.ts -> ${GAME}/native/rounds.ts (a shared module imports family native)`,
      `${GAME}/crash/x.ts -> ${GAME}/slots/spin.ts (family crash imports family slots)`,
    ]);
  });
});
