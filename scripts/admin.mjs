// npm run admin -- <command> [options]: install what is missing, then run the provider-admin CLI
// (services/api/src/cli/admin.ts). `npm run admin -- help` lists the commands.
import { ensureInstall, runTs } from './ensure-install.mjs';

ensureInstall();
runTs('services/api/src/cli/admin.ts', process.argv.slice(2));
