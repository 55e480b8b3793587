import path from 'node:path';

const repoRoot = path.join(import.meta.dirname, '..');

/**
 * The staff portal. Every page is rendered on the server from the API's staff routes (no client
 * data fetching); the browser gets HTML, one stylesheet and Next's small runtime.
 * @type {import('next').NextConfig}
 */
const config = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm run typecheck` (turbo) type-checks the portal with its tsconfig; the build skips a second pass.
  typescript: { ignoreBuildErrors: true },
  images: { unoptimized: true },
  // The monorepo root (one lockfile for every workspace).
  turbopack: { root: repoRoot },
  outputFileTracingRoot: repoRoot,
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=()' },
        ],
      },
    ];
  },
};

export default config;
