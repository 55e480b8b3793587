#!/bin/sh
# Registers the namespace the platform uses (TEMPORAL_NAMESPACE) once the server answers.
set -eu
NAMESPACE="${DEFAULT_NAMESPACE:-default}"
ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
i=0
until temporal operator cluster health --address "$ADDRESS" >/dev/null 2>&1; do
  i=$((i + 1)); [ "$i" -lt 60 ] || { echo 'Temporal did not become healthy'; exit 1; }
  sleep 2
done
temporal operator namespace describe -n "$NAMESPACE" --address "$ADDRESS" >/dev/null 2>&1 \
  || temporal operator namespace create -n "$NAMESPACE" --retention 72h --address "$ADDRESS"
echo "namespace $NAMESPACE ready"
