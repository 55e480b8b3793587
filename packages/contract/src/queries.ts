import { z } from 'zod';
import { ThumbnailFormat } from './constants.js';

/*
 * Query parameters of the GET endpoints (plain objects: unknown parameters are ignored). Validate
 * with these and report failures with `zodIssuesToDetail(issues, 'query')`.
 */

/** `GET /api/provider/v1/games`. */
export const GamesListQuery = z.object({
  /** Only for provider master keys (or header `x-operator-id`). */
  operator_id: z.string().min(1).optional(),
  /** Canonical provider id; unknown or unavailable ids give an empty list, so any string is valid. */
  provider_id: z.string().min(1).optional(),
});
export type GamesListQuery = z.infer<typeof GamesListQuery>;

/** `GET /api/provider/v1/game-art/{symbol}` (public). */
export const GameArtQuery = z.object({
  title: z.string().optional(),
  slug: z.string().optional(),
  provider_id: z.string().optional(),
  /** Selects the operator's artwork format preference; not authorization. */
  operator_id: z.string().optional(),
  thumbnail_format: ThumbnailFormat.optional(),
});
export type GameArtQuery = z.infer<typeof GameArtQuery>;

/** `GET /api/provider/v1/native/history` and `/native/history/{round_id}`. */
export const NativeHistoryQuery = z.object({
  /** The session id returned by launch. */
  session_id: z.string().min(1),
  /** Provider keys must supply it. */
  operator_id: z.string().min(1).optional(),
});
export type NativeHistoryQuery = z.infer<typeof NativeHistoryQuery>;
