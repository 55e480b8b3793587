// @opi/wallet: the wallet protocol and the journal (docs/architecture.md, "Module edges").
// Workflow code imports only the Node-free intent (@opi/wallet/intent).
export * from './address-policy.js';
export * from './classify.js';
export * from './intent.js';
export * from './journal.js';
export * from './send.js';
export * from './step.js';
