export * from './activities.js';
export * from './bundle.js';
export * from './floor/activities.js';
export * from './floor/start.js';
export type { FloorRoundInput, FloorRoundResult } from './floor/workflow.js';
export type { ProbeActivities } from './probe/activities.js';
export * from './promotions/activities.js';
export * from './promotions/messages.js';
export * from './promotions/start.js';
export type {
  PayPromoInput,
  PromoTuning,
  RunTournamentInput,
  TournamentResult,
} from './promotions/workflow.js';
export * from './settle-round/activities.js';
export * from './settle-round/messages.js';
export * from './settle-round/resume.js';
export * from './settle-round/start.js';
export type { SettlementTuning, SettleRoundInput } from './settle-round/workflow.js';
export * from './versioning.js';
