export * from './activities.js';
export * from './bundle.js';
export type { ProbeActivities } from './probe/activities.js';
export * from './settle-round/activities.js';
export * from './settle-round/intent.js';
export * from './settle-round/start.js';
export type { SettlementTuning, SettleRoundInput } from './settle-round/workflow.js';
export * from './wallet/classify.js';
export * from './wallet/send.js';
