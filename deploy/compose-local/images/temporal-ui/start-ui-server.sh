#!/bin/sh
# The keys of ui-server's docker/config-template.yaml (v2.34.0) that docker-compose.yml can set,
# with the template's defaults.
set -eu
cat > ./config/docker.yaml <<YAML
temporalGrpcAddress: ${TEMPORAL_ADDRESS:-127.0.0.1:7233}
port: ${TEMPORAL_UI_PORT:-8080}
publicPath: ${TEMPORAL_UI_PUBLIC_PATH:-}
enableUi: ${TEMPORAL_UI_ENABLED:-true}
defaultNamespace: ${TEMPORAL_DEFAULT_NAMESPACE:-default}
notifyOnNewVersion: false
showTemporalSystemNamespace: false
disableWriteActions: ${TEMPORAL_DISABLE_WRITE_ACTIONS:-false}
cors:
  cookieInsecure: ${TEMPORAL_CSRF_COOKIE_INSECURE:-false}
  allowOrigins:
    - "http://localhost:8080"
auth:
  enabled: ${TEMPORAL_AUTH_ENABLED:-false}
  providers:
  - label: ${TEMPORAL_AUTH_LABEL:-sso}
    type: oidc
    providerUrl: ${TEMPORAL_AUTH_PROVIDER_URL:-}
    clientId: ${TEMPORAL_AUTH_CLIENT_ID:-}
    clientSecret: ${TEMPORAL_AUTH_CLIENT_SECRET:-}
    callbackUrl: ${TEMPORAL_AUTH_CALLBACK_URL:-}
hideLogs: false
YAML
exec ./ui-server --env docker start
