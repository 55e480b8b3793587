import type { components, operations } from './generated/api.js';

/*
 * The request and response types of the API, by name. They come from the OpenAPI document (itself
 * generated from the service's contract); see generated/api.ts.
 */

type Schemas = components['schemas'];
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type Game = Schemas['Game'];
export type GamesListResponse = Schemas['GamesListResponse'];
export type GameResponse = Schemas['GameResponse'];
export type LaunchUrlRequest = Schemas['LaunchUrlRequest'];
export type LaunchUrlData = Schemas['LaunchUrlData'];
export type LaunchUrlResponse = Schemas['LaunchUrlResponse'];
export type BalanceRefreshRequest = Schemas['BalanceRefreshRequest'];
export type BalanceRefreshResponse = Schemas['BalanceRefreshResponse'];
export type NativeSessionHistory = Schemas['NativeSessionHistory'];
export type NativeRoundHistoryResponse = Schemas['NativeRoundHistoryResponse'];
export type OperatorContractResponse = Schemas['OperatorContractResponse'];
export type OperatorSessionResponse = Schemas['OperatorSessionResponse'];
export type OperatorTransaction = Schemas['OperatorTransaction'];
export type OperatorTransactionResponse = Schemas['OperatorTransactionResponse'];
/** A transaction as the audit reads answer it: with its round's `round_details_url` (null for a promo payout). */
export type AuditTransaction = Schemas['AuditTransaction'];
export type TransactionSearchResponse = Schemas['TransactionSearchResponse'];
export type OperatorRound = Schemas['OperatorRound'];
export type RoundSearchResponse = Schemas['RoundSearchResponse'];
export type RoundDetailResponse = Schemas['RoundDetailResponse'];
/** A short-lived replay link for a player (POST /api/operator/v1/rounds/{round_id}/replay-url). */
export type ReplayUrlResponse = Schemas['ReplayUrlResponse'];
export type ReconciliationResponse = Schemas['ReconciliationResponse'];
export type ServiceErrorResponse = Schemas['ServiceErrorResponse'];
export type WalletCallbackRequest = Schemas['WalletCallbackRequest'];
export type WalletSuccessResponse = Schemas['WalletSuccessResponse'];
export type WalletErrorResponse = Schemas['WalletErrorResponse'];
export type CreateCampaignRequest = Schemas['CreateCampaignRequest'];
export type AddPlayersRequest = Schemas['AddPlayersRequest'];
export type Campaign = Schemas['Campaign'];
export type CampaignDetail = Schemas['CampaignDetail'];
export type CampaignResponse = Schemas['CampaignResponse'];
/** The operator's jackpots for its lobby ticker (GET /api/provider/v1/jackpots). */
export type JackpotListResponse = Schemas['JackpotListResponse'];
export type Jackpot = Schemas['JackpotView'];
/** Tournaments and prize drops the operator takes part in (docs/jackpots-and-promotions.md). */
export type TournamentListResponse = Schemas['TournamentListResponse'];
export type Tournament = Schemas['TournamentView'];
export type TournamentLeaderboardResponse = Schemas['TournamentLeaderboardResponse'];
export type PrizeDropListResponse = Schemas['PrizeDropListResponse'];
export type PrizeDrop = Schemas['PrizeDropView'];
export type CampaignListResponse = Schemas['CampaignListResponse'];
/** Jackpot and promotional money in the operator audit API (docs/audit-and-reconciliation.md). */
export type OperatorJackpotContribution = Schemas['OperatorJackpotContribution'];
export type JackpotContributionSearchResponse = Schemas['JackpotContributionSearchResponse'];
export type OperatorJackpotWin = Schemas['OperatorJackpotWin'];
export type JackpotWinSearchResponse = Schemas['JackpotWinSearchResponse'];
export type OperatorPromoPayout = Schemas['OperatorPromoPayout'];
export type PromoPayoutSearchResponse = Schemas['PromoPayoutSearchResponse'];
export type PromoPayoutResponse = Schemas['PromoPayoutResponse'];
export type SessionFreeRounds = Schemas['SessionFreeRounds'];

export type GamesListQuery = Query<'listGames'>;
export type TransactionSearchQuery = Query<'searchOperatorTransactions'>;
export type RoundSearchQuery = Query<'searchOperatorRounds'>;
export type ReconciliationQuery = Query<'getReconciliation'>;
/** Issue 38: the daily figures, GGR and GGY (GET /api/operator/v1/reports/revenue). */
export type RevenueReportQuery = Query<'getRevenueReport'>;
export type RevenueReportResponse = Schemas['RevenueReportResponse'];
/** Issue 38: the reconciliation diff (POST /api/operator/v1/reconciliation/diff). */
export type ReconciliationDiffRequest = Schemas['ReconciliationDiffRequest'];
export type ReconciliationDiffResponse = Schemas['ReconciliationDiffResponse'];
/** Issue 38: invoices and credit notes (GET /api/operator/v1/invoices). */
export type Invoice = Schemas['Invoice'];
export type InvoiceResponse = Schemas['InvoiceResponse'];
export type InvoiceListResponse = Schemas['InvoiceListResponse'];
export type JackpotContributionQuery = Query<'searchJackpotContributions'>;
export type JackpotWinQuery = Query<'searchJackpotWins'>;
export type PromoPayoutQuery = Query<'searchPromoPayouts'>;
export type LeaderboardQuery = Query<'getTournamentLeaderboard'>;
export type GameArtQuery = Query<'getGameArt'>;
export type CampaignListQuery = Query<'listFreeRoundCampaigns'>;

export type { components, operations, paths } from './generated/api.js';
