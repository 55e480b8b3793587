export * from './activities.js';
export * from './bundle.js';
export type { ProbeActivities } from './probe/activities.js';
