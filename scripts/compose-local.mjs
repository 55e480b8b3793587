// npm run compose:local -- [--keep] [--no-golive] [--down]: docker-compose.yml brought up on this
// machine with podman (tools/devstack/src/compose-local.ts; docs/deployment-and-scaling.md).
import { ensureInstall, runTs } from './ensure-install.mjs';

ensureInstall();
runTs('tools/devstack/src/compose-local.ts', process.argv.slice(2));
