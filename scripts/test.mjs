// npm test: install what is missing, then run every test (packages/devstack/src/run-tests.ts).
import { ensureInstall, runTs } from './ensure-install.mjs';

ensureInstall();
runTs('packages/devstack/src/run-tests.ts', process.argv.slice(2));
