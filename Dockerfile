# syntax=docker/dockerfile:1
# Every image of the platform, from this repository, in stages:
#   manifests every workspace's package.json (the dependency layer's only input with the lockfile)
#   deps      the locked dependencies (npm ci: exactly package-lock.json)
#   build     turbo build: every package's dist/, the Temporal workflow bundle, the portal's .next/
#   runtime   production dependencies only, the built files, a non-root user
#   bootstrap | api | game-server | worker | wallet-sandbox | portal   one target per service (docker-compose.yml)
#
#   docker build --target api -t opi-api .

ARG NODE_IMAGE=node:20-bookworm-slim

# Every workspace's package.json (whatever the workspaces are), so the dependency layer below is
# rebuilt only when a manifest or the lockfile changes, not on every source change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests && cp package.json package-lock.json .npmrc /manifests/ \
 && find . -mindepth 2 -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \;

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1
COPY --from=manifests /manifests/ ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npx turbo run build --output-logs=errors-only \
 && test -f workflows/dist/workflow-bundle.js \
 && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 NEXT_TELEMETRY_DISABLED=1
# The built tree (dist/, the workflow bundle, migrations, the game pages' static files under src/).
COPY --from=build --chown=node:node /app /app
USER node

# One-shot: migrations, the catalog, the bootstrap provider-admin key (idempotent, every deploy).
FROM runtime AS bootstrap
CMD ["node", "services/api/dist/bootstrap.js"]

# The API: API_PROCESSES processes share PORT (cluster); metrics on API_METRICS_PORT.
FROM runtime AS api
EXPOSE 8080 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "services/api/dist/cluster.js"]

# The game server: GAME_PROCESSES processes share GAME_SERVER_PORT; metrics on GAME_METRICS_PORT.
FROM runtime AS game-server
EXPOSE 8081 9465
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.GAME_SERVER_PORT||8081)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "services/game-server/dist/cluster.js"]

# A settlement worker: metrics (and its liveness) on WORKER_METRICS_PORT.
FROM runtime AS worker
EXPOSE 9470
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WORKER_METRICS_PORT||9470)+'/metrics').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "services/worker/dist/main.js"]

# The reference operator wallet (sandbox): migrates its own schema on start.
FROM runtime AS wallet-sandbox
EXPOSE 8090
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WALLET_PORT||8090)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "services/wallet-sandbox/dist/main.js"]

# The staff portal (Next.js, built in the build stage): portal/server.mjs (`next start` behind a
# server that takes the client address from the socket, or from TRUSTED_PROXIES' X-Forwarded-For).
FROM runtime AS portal
WORKDIR /app/portal
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORTAL_PORT||3000)+'/login').then(r=>process.exit(r.status<500?0:1),()=>process.exit(1))"]
CMD ["sh", "-c", "exec node server.mjs -H 0.0.0.0 -p \"${PORTAL_PORT:-3000}\""]
