// The promotion workflows' messages, shared by the workflows and their callers (the admin API).
// Definitions only: safe to import outside the workflow bundle.
import { defineSignal } from '@temporalio/workflow';

/** A tournament cancelled by the admin: it wakes the workflow, which asks the database. */
export const tournamentCancelSignal = defineSignal<[]>('tournamentCancel');
