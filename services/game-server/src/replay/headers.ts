/*
 * The replay page's headers: the game pages' own (@opi/play/pages/page-headers), shared by every
 * family's page and the replay alike.
 */
export {
  escapeHtml,
  GAME_PAGE_CSP as REPLAY_PAGE_CSP,
  gamePageHeaders as replayPageHeaders,
} from '@opi/play/pages/page-headers';
