/**
 * The browser every test and QA run uses: Debian's chromium, started headless with the flags
 * this project's machines need (no sandbox as root, no GPU, and nothing that reaches the network
 * on its own: background networking, component updates, sync, first-run pages).
 */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
