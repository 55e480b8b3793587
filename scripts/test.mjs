// npm test: install what is missing, then run every test (tools/devstack/src/run-tests.ts).
import { ensureInstall, runTs } from './ensure-install.mjs';

ensureInstall();
runTs('tools/devstack/src/run-tests.ts', process.argv.slice(2));
