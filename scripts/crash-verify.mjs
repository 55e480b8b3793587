// npm run crash-verify -- <round_id | server_seed> [options]: install what is missing, then run the
// crash round verifier (packages/games/src/crash/verify-cli.ts; its header lists the options).
import { ensureInstall, runTs } from './ensure-install.mjs';

ensureInstall();
runTs('packages/games/src/crash/verify-cli.ts', process.argv.slice(2));
