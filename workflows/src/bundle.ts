import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

/** Where the ahead-of-time workflow bundle lives. */
export const WORKFLOW_BUNDLE_PATH = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));

function workflowsEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return path.join(path.dirname(here), here.endsWith('.ts') ? 'workflows.ts' : 'workflows.js');
}

/** Builds the workflow bundle once, ahead of worker start, and writes it to WORKFLOW_BUNDLE_PATH. */
export async function buildWorkflowBundle(outFile: string = WORKFLOW_BUNDLE_PATH): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: workflowsEntry(),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
    webpackConfigHook: (config) => {
      // Resolve workspace packages to their TypeScript sources (the `source` export condition).
      config.resolve = { ...config.resolve, conditionNames: ['source', 'import', 'require', 'default'] };
      return config;
    },
  });
  await mkdir(path.dirname(outFile), { recursive: true });
  await writeFile(outFile, code);
  return outFile;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) {
  const out = await buildWorkflowBundle();
  process.stdout.write(`workflow bundle written to ${out}\n`);
}
