// npm start: install what is missing, then run the default stack (tools/devstack/src/stack.ts).
import { ensureInstall, runTs } from './ensure-install.mjs';

ensureInstall();
runTs('tools/devstack/src/stack.ts', process.argv.slice(2));
