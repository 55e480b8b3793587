/**
 * One stage of a multi-step round (a native title's bet, reveal, guess, roll or cash-out): as
 * `round_stages` stores it and every reader shows it (the native runtime, the replay page, the
 * operator's session history). `When` is the type of `created_at`: a `Date` as read from the
 * database, its ISO string once presented.
 */
export interface RoundStage<When = Date> {
  seq: number;
  action: string;
  inputs: Record<string, unknown>;
  outcome: Record<string, unknown>;
  /** The running multiplier, exact (`numeric` as text); null where the stage has none. */
  multiplier: string | null;
  created_at: When;
}
