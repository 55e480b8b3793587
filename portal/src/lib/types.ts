/*
 * The staff API's answers as the portal reads them: the response schemas of @opi/contract
 * (staff-*.ts, which the staff routes check their answers against; issue 36 point 3), under the
 * portal's names. Types only: nothing of the contract package is bundled. Int64 amounts arrive as
 * JSON numbers (MinorAmount's `number`; exact up to 2^53 minor units).
 */
export type {
  OperatorRound,
  OperatorSession,
  OperatorTransaction,
  Reconciliation,
  StaffAuditEntry as AuditEntry,
  StaffAuditList as AuditList,
  StaffBoardPlayer as BoardPlayer,
  StaffCampaign as FreeRoundCampaign,
  StaffCampaignDetail as FreeRoundCampaignDetail,
  StaffCampaignRound as FreeRoundCampaignRound,
  StaffCatalog as Catalog,
  StaffCatalogItem as CatalogItem,
  StaffCharts as Charts,
  StaffDayDifference as DayDifference,
  StaffDiagnosticsRun as DiagnosticsRun,
  StaffJackpot,
  StaffJackpotHit as JackpotHit,
  StaffJackpotPool as JackpotPool,
  StaffJackpotsView as JackpotsView,
  StaffMe as Me,
  StaffOperatorInfo as OperatorInfo,
  StaffPage as Page,
  StaffPrizeDrop,
  StaffPrizeDropAward as PrizeDropAward,
  StaffPrizeDropDetail,
  StaffProtectionView as ProtectionView,
  StaffReconciliationView as ReconciliationView,
  StaffRoundDetail as RoundDetail,
  StaffSessionDetail as SessionDetail,
  StaffSessionItem as SessionItem,
  StaffStageEntry as StageEntry,
  StaffTimelineEntry as TimelineEntry,
  StaffTournament,
  StaffTournamentDetail,
  WalletCheckResult,
  WalletCheckStatus,
} from '@opi/contract';
