#!/bin/sh
set -eu
: "${TEMPORAL_SERVER_CONFIG_FILE_PATH:?}"
if [ -z "${TEMPORAL_BROADCAST_ADDRESS:-}" ]; then
  TEMPORAL_BROADCAST_ADDRESS=$(hostname -I | awk '{print $1}')
  export TEMPORAL_BROADCAST_ADDRESS
fi
set -- --config-file "$TEMPORAL_SERVER_CONFIG_FILE_PATH"
[ "${TEMPORAL_ALLOW_NO_AUTH:-}" = "true" ] && set -- "$@" --allow-no-auth
exec temporal-server "$@" start
