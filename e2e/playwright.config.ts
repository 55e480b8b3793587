/**
 * The go-live QA suite. Projects: `start` (health, base address; its teardown `finish` checks
 * reconciliation after everything else), `operator` (API checks), and one project per device —
 * desktop 1280x800, a phone in portrait and in landscape, a tablet — each playing every game.
 * Run it with `npm run golive` (see src/cli.ts and docs/go-live-suite.md).
 */

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CHROMIUM_ARGS } from '@opi/config';
import { defineConfig, devices } from '@playwright/test';
import { loadSettings } from './src/settings.js';
import { chromiumTrustArgs } from './src/tls.js';

// One id per run (the runner sets it; the workers inherit it): it keeps player ids apart.
process.env.GOLIVE_RUN_ID ??= randomBytes(3).toString('hex');
// Workspace packages (the operator SDK) resolve to their TypeScript source in the workers.
if (!(process.env.NODE_OPTIONS ?? '').includes('--conditions=source'))
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --conditions=source`.trim();

const settings = loadSettings();

// The browsers are launched in the workers, which load this file again after global setup: with
// the cluster stack, GOLIVE_CA_FILE is its certificate by then, and Chromium accepts exactly it
// (a chain holding one of the file's public keys; no blanket ignoreHTTPSErrors).
const launchOptions = {
  ...(settings.chromium ? { executablePath: settings.chromium } : {}),
  args: [...CHROMIUM_ARGS, ...chromiumTrustArgs(settings.caFile)],
};

const phone = devices['Pixel 7'];
const phoneLandscape = devices['Pixel 7 landscape'];
const tablet = devices['Galaxy Tab S9'];

export default defineConfig({
  testDir: './tests',
  testMatch: /.*\.spec\.ts$/,
  outputDir: path.join(settings.outputDir, 'artifacts'),
  globalSetup: './src/global-setup.ts',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: process.env.CI ? 2 : undefined,
  // A launch, a round, the audit read and close, with room for a slow settlement.
  timeout: 60_000 + 3 * settings.roundTimeoutMs,
  reporter: [
    [process.env.CI ? 'line' : 'list'],
    ['html', { outputFolder: path.join(settings.outputDir, 'html'), open: 'never' }],
    ['./src/summary-reporter.ts'],
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions,
    screenshot: 'off',
    trace: 'off',
    video: 'off',
    actionTimeout: 20_000,
    navigationTimeout: 30_000,
  },
  projects: [
    { name: 'start', testMatch: /start\.spec\.ts$/, teardown: 'finish' },
    { name: 'finish', testMatch: /finish\.spec\.ts$/ },
    {
      // The operator's API checks, free rounds and player protection (a desktop page each), and the
      // promotional credit (the wallet diagnostics through the staff API).
      name: 'operator',
      testMatch: /(operator|free-rounds-protection|wallet-diagnostics)\.spec\.ts$/,
      dependencies: ['start'],
      use: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
    },
    {
      name: 'desktop',
      testMatch: /launch\.spec\.ts$/,
      dependencies: ['start'],
      use: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
    },
    {
      name: 'phone-portrait',
      testMatch: /launch\.spec\.ts$/,
      dependencies: ['start'],
      use: { ...phone, browserName: 'chromium' },
    },
    {
      name: 'phone-landscape',
      testMatch: /launch\.spec\.ts$/,
      dependencies: ['start'],
      use: { ...phoneLandscape, browserName: 'chromium' },
    },
    {
      name: 'tablet',
      testMatch: /launch\.spec\.ts$/,
      dependencies: ['start'],
      use: { ...tablet, browserName: 'chromium' },
    },
  ],
});
