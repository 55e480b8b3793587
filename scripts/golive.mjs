// npm run golive -- [options]: install what is missing, then run the go-live QA suite
// (e2e/src/cli.ts). Without --base-url it starts the default stack itself and checks it.
import { ensureInstall, runTs } from './ensure-install.mjs';

ensureInstall();
runTs('e2e/src/cli.ts', process.argv.slice(2));
