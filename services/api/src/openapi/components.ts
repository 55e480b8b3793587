import * as c from '@opi/contract';
import { HealthResponse, ReadinessResponse } from '@opi/play/ops/schemas';
import { z } from 'zod';
import { RevokeRequest } from '../admin/revoke-session.js';

/*
 * The named schemas of the OpenAPI document: every one is a zod schema of packages/contract (or
 * the route's own, for the few internal routes whose body lives beside them). Nothing here is a
 * JSON Schema written by hand; the document generates them with z.toJSONSchema.
 */

/**
 * The native history as it is answered: the spec leaves the entries of `stages`, `ledger` and
 * `wallet` unstated (the contract keeps them opaque); the service documents them in the contract
 * as NativeStageEntry, NativeLedgerEntry and NativeWalletEntry.
 */
const NativeSessionHistory = c.NativeSessionHistory.extend({ stages: z.array(c.NativeStageEntry) });
const NativeRoundHistory = c.NativeRoundHistory.extend({
  stages: z.array(c.NativeStageEntry),
  ledger: z.array(c.NativeLedgerEntry),
  wallet: z.array(c.NativeWalletEntry),
});

/** Bodies the service answers (and the wallet callback it sends): output types. */
export const OUTPUT_SCHEMAS: Record<string, z.ZodType> = {
  // primitives and enums
  MinorAmount: c.MinorAmount,
  CurrencyCode: c.CurrencyCode,
  ProviderId: c.ProviderId,
  TransactionType: c.TransactionType,
  TransactionStatus: c.TransactionStatus,
  IntegrationMode: c.IntegrationMode,
  Blocker: c.Blocker,
  // errors
  ValidationErrorItem: c.ValidationErrorItem,
  ServiceErrorResponse: c.ServiceErrorResponse,
  // catalog
  FeatureFlags: c.FeatureFlags,
  SpecialBetProfile: c.SpecialBetProfile,
  Thumbnail: c.Thumbnail,
  OperatorIntegration: c.OperatorIntegration,
  OperatorAvailability: c.OperatorAvailability,
  ReleaseReadiness: c.ReleaseReadiness,
  Game: c.Game,
  GamesListResponse: c.GamesListResponse,
  GameResponse: c.GameResponse,
  // launch, balance refresh
  LaunchUrlData: c.LaunchUrlData,
  LaunchUrlResponse: c.LaunchUrlResponse,
  BalanceRefreshSession: c.BalanceRefreshSession,
  BalanceRefreshData: c.BalanceRefreshData,
  BalanceRefreshResponse: c.BalanceRefreshResponse,
  CampaignPlayer: c.CampaignPlayer,
  Campaign: c.Campaign,
  CampaignDetail: c.CampaignDetail,
  CampaignResponse: c.CampaignResponse,
  CampaignListResponse: c.CampaignListResponse,
  SessionFreeRounds: c.SessionFreeRounds,
  // native history
  NativeStageEntry: c.NativeStageEntry,
  NativeLedgerEntry: c.NativeLedgerEntry,
  NativeWalletEntry: c.NativeWalletEntry,
  NativeSessionHistory,
  NativeRoundHistory,
  NativeRoundHistoryResponse: c.successEnvelope(NativeRoundHistory),
  // operator audit
  OperatorContract: c.OperatorContract,
  OperatorContractResponse: c.OperatorContractResponse,
  OperatorTransaction: c.OperatorTransaction,
  AuditTransaction: c.AuditTransaction,
  OperatorTransactionResponse: c.OperatorTransactionResponse,
  TransactionSearchResponse: c.TransactionSearchResponse,
  OperatorRound: c.OperatorRound,
  RoundSearchResponse: c.RoundSearchResponse,
  RoundDetailResponse: c.RoundDetailResponse,
  ReplayUrl: c.ReplayUrl,
  ReplayUrlResponse: c.ReplayUrlResponse,
  ReplayLinkRevocation: c.ReplayLinkRevocation,
  ReplayLinkRevocationResponse: c.ReplayLinkRevocationResponse,
  ExchangeRate: c.ExchangeRate,
  LoadExchangeRatesResponse: c.LoadExchangeRatesResponse,
  ExchangeRatesResponse: c.ExchangeRatesResponse,
  ExchangeRateLookupResponse: c.ExchangeRateLookupResponse,
  RevenueReportRow: c.RevenueReportRow,
  RevenueReport: c.RevenueReport,
  RevenueReportResponse: c.RevenueReportResponse,
  ReportingTimeZoneResponse: c.ReportingTimeZoneResponse,
  DiffBucket: c.DiffBucket,
  DiffDifference: c.DiffDifference,
  DiffTransaction: c.DiffTransaction,
  ReconciliationDiff: c.ReconciliationDiff,
  ReconciliationDiffResponse: c.ReconciliationDiffResponse,
  OperatorSession: c.OperatorSession,
  OperatorSessionResponse: c.OperatorSessionResponse,
  ReconciliationCurrency: c.ReconciliationCurrency,
  ReconciliationItem: c.ReconciliationItem,
  Reconciliation: c.Reconciliation,
  ReconciliationResponse: c.ReconciliationResponse,
  ReconciliationJackpots: c.ReconciliationJackpots,
  ReconciliationPromoPayouts: c.ReconciliationPromoPayouts,
  OperatorJackpotContribution: c.OperatorJackpotContribution,
  JackpotContributionSearchResponse: c.JackpotContributionSearchResponse,
  OperatorJackpotWin: c.OperatorJackpotWin,
  JackpotWinSearchResponse: c.JackpotWinSearchResponse,
  OperatorPromoPayout: c.OperatorPromoPayout,
  PromoPayoutSearchResponse: c.PromoPayoutSearchResponse,
  PromoPayoutResponse: c.PromoPayoutResponse,
  // wallet callbacks (sent by the service, answered by the operator)
  WalletCallbackRequest: c.WalletCallbackRequest,
  WalletSuccessResponse: c.WalletSuccessResponse,
  WalletErrorResponse: c.WalletErrorResponse,
  // admin
  AdminOperator: c.AdminOperator,
  AdminOperatorResponse: c.AdminOperatorResponse,
  AdminApiKeyCreatedResponse: c.AdminApiKeyCreatedResponse,
  AdminApiKeyRevokedResponse: c.AdminApiKeyRevokedResponse,
  AdminGame: c.AdminGame,
  AdminGamesResponse: c.AdminGamesResponse,
  AdminOperatorGame: c.AdminOperatorGame,
  AdminOperatorGamesResponse: c.AdminOperatorGamesResponse,
  AdminAssignmentResponse: c.AdminAssignmentResponse,
  AdminUnassignedResponse: c.AdminUnassignedResponse,
  AdminReleaseRegistryResponse: c.AdminReleaseRegistryResponse,
  AdminProviderSwitchResponse: c.AdminProviderSwitchResponse,
  AdminOperatorWalletFlagResponse: c.AdminOperatorWalletFlagResponse,
  AdminArtworkResponse: c.AdminArtworkResponse,
  AdminSessionRevokedResponse: c.AdminSessionRevokedResponse,
  // jackpots (issue 25)
  JackpotPoolView: c.JackpotPoolView,
  JackpotLevelView: c.JackpotLevelView,
  JackpotView: c.JackpotView,
  JackpotListResponse: c.JackpotListResponse,
  AdminJackpotView: c.AdminJackpotView,
  AdminJackpotResponse: c.AdminJackpotResponse,
  AdminJackpotListResponse: c.AdminJackpotListResponse,
  AdminJackpotOperatorResponse: c.AdminJackpotOperatorResponse,
  // tournaments (issue 25)
  TournamentCurrencyView: c.TournamentCurrencyView,
  TournamentView: c.TournamentView,
  TournamentListResponse: c.TournamentListResponse,
  LeaderboardEntry: c.LeaderboardEntry,
  TournamentLeaderboard: c.TournamentLeaderboard,
  TournamentLeaderboardResponse: c.TournamentLeaderboardResponse,
  AdminTournamentView: c.AdminTournamentView,
  AdminTournamentResponse: c.AdminTournamentResponse,
  AdminTournamentListResponse: c.AdminTournamentListResponse,
  AdminTournamentOperatorResponse: c.AdminTournamentOperatorResponse,
  // prize drops (issue 25)
  PrizeDropPoolView: c.PrizeDropPoolView,
  PrizeDropView: c.PrizeDropView,
  PrizeDropListResponse: c.PrizeDropListResponse,
  AdminPrizeDropView: c.AdminPrizeDropView,
  AdminPrizeDropResponse: c.AdminPrizeDropResponse,
  AdminPrizeDropListResponse: c.AdminPrizeDropListResponse,
  AdminPrizeDropOperatorResponse: c.AdminPrizeDropOperatorResponse,
  // admin: staff accounts
  StaffRole: c.StaffRole,
  StaffRoleGrant: c.StaffRoleGrant,
  StaffAccount: c.StaffAccount,
  StaffAccountResponse: c.StaffAccountResponse,
  StaffAccountsResponse: c.StaffAccountsResponse,
  // operations
  HealthResponse,
  ReadinessResponse,
};

/** Bodies the service accepts: input types (defaults make a field optional). */
export const INPUT_SCHEMAS: Record<string, z.ZodType> = {
  LaunchUrlRequest: c.LaunchUrlRequest,
  BalanceRefreshRequest: c.BalanceRefreshRequest,
  CreateCampaignRequest: c.CreateCampaignRequest,
  AddPlayersRequest: c.AddPlayersRequest,
  CreateOperatorRequest: c.CreateOperatorRequest,
  UpdateOperatorRequest: c.UpdateOperatorRequest,
  CreateApiKeyRequest: c.CreateApiKeyRequest,
  EnabledRequest: c.EnabledRequest,
  ReleaseRegistryRequest: c.ReleaseRegistryRequest,
  JackpotLevelCurrency: c.JackpotLevelCurrency,
  JackpotLevelDefinition: c.JackpotLevelDefinition,
  JackpotDefinitionRequest: c.JackpotDefinitionRequest,
  TournamentCurrency: c.TournamentCurrency,
  TournamentDefinitionRequest: c.TournamentDefinitionRequest,
  PrizeDropCurrency: c.PrizeDropCurrency,
  PrizeDropDefinitionRequest: c.PrizeDropDefinitionRequest,
  RevokeSessionRequest: RevokeRequest,
  CreateStaffRequest: c.CreateStaffRequest,
  UpdateStaffRequest: c.UpdateStaffRequest,
  StaffRoleRequest: c.StaffRoleRequest,
  ReplayUrlRequest: c.ReplayUrlRequest,
  ReplayLinkRevokeRequest: c.ReplayLinkRevokeRequest,
  ExchangeRateInput: c.ExchangeRateInput,
  LoadExchangeRatesRequest: c.LoadExchangeRatesRequest,
  ReportingTimeZoneRequest: c.ReportingTimeZoneRequest,
  DiffTotalsInput: c.DiffTotalsInput,
  DiffTransactionInput: c.DiffTransactionInput,
  ReconciliationDiffRequest: c.ReconciliationDiffRequest,
};
