// The workflow entry point bundled for the worker. Deterministic code only: no I/O, no Node
// built-ins, no module-level state.
export { floorRound } from './floor/workflow.js';
export { probeWorkflow } from './probe/workflow.js';
export { payPromo, runTournament } from './promotions/workflow.js';
export { settleRound } from './settle-round/workflow.js';
