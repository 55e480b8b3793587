// npm run compose:local -- [--keep] [--no-golive] [--down]: docker-compose.yml brought up on this
// machine with podman (packages/devstack/src/compose-local.ts; docs/deployment-and-scaling.md).
import { ensureInstall, runTs } from './ensure-install.mjs';

ensureInstall();
runTs('packages/devstack/src/compose-local.ts', process.argv.slice(2));
