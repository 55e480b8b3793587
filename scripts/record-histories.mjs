// npm run histories:record: runs the tests that record the replay corpus (workflows/histories/,
// docs/settlement.md "Changing workflow code") with RECORD_HISTORIES=1. A path already recorded by
// the current workflow code is kept as it is; nothing is ever overwritten.
import { ensureInstall, runTs } from './ensure-install.mjs';

// Each records the paths named beside it in workflows/src/histories/corpus.ts (REQUIRED_PATHS).
const RECORDING_TESTS = [
  'workflows/src/settle-round/workflow.test.ts',
  'workflows/src/settle-round/one-step.test.ts',
  'workflows/src/settle-round/credit-ahead.test.ts',
  'workflows/src/promotions/pay-promo.test.ts',
  'workflows/src/promotions/tournament-paths.test.ts',
  'services/api/src/free-rounds/free-rounds.test.ts',
  'services/game-server/src/slots/jackpot-spin.test.ts',
  'services/game-server/src/promotions/prize-drop.test.ts',
  'services/game-server/src/crash/crash.test.ts',
];

ensureInstall();
process.env.RECORD_HISTORIES = '1';
runTs('tools/devstack/src/run-tests.ts', [
  ...RECORDING_TESTS.flatMap((f) => ['--only', f]),
  ...process.argv.slice(2),
]);
