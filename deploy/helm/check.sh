#!/usr/bin/env bash
# Checks the chart with helm from the PATH: lint, render the main variants,
# and make sure the set-ups that would lose data are refused. Prints the
# rendered manifests' kinds; with KCHECK=path/to/a/strict-decoder, pipes
# each rendering through it too.
set -euo pipefail
cd "$(dirname "$0")"
chart=switchboard
command -v helm >/dev/null || { echo "check: helm is not on the PATH" >&2; exit 1; }

pg=(--set 'database.url=postgres://u:p@db:5432/sb?sslmode=require' --set secretKeys.value=k1:AAAA)
variants=(
  "sqlite|"
  "sqlite+keyring+claim|--set secretKeys.value=k1:AAAA --set persistence.existingClaim=mine"
  "postgres+ingress+hpa|${pg[*]} --set ingress.enabled=true --set ingress.host=sb.example.com --set ingress.mcpHost=mcp.example.com --set ingress.tls[0].secretName=t --set ingress.tls[0].hosts={sb.example.com,mcp.example.com} --set autoscaling.enabled=true"
  "postgres+existing-secrets|--set database.existingSecret=db --set secretKeys.existingSecret=keys --set replicaCount=3 --set migrations.enabled=false"
)
helm lint --strict "$chart" >/dev/null
helm lint --strict "$chart" "${pg[@]}" --set ingress.enabled=true --set autoscaling.enabled=true >/dev/null
echo "check: helm lint --strict (SQLite, PostgreSQL+ingress+HPA): ok"
for v in "${variants[@]}"; do
  name=${v%%|*}; args=${v#*|}
  # shellcheck disable=SC2086
  out=$(helm template sb "$chart" $args)
  kinds=$(printf '%s\n' "$out" | sed -n 's/^kind: //p' | sort | tr '\n' ' ')
  if [ -n "${KCHECK:-}" ]; then printf '%s\n' "$out" | "$KCHECK" >/dev/null; fi
  echo "check: template $name: $kinds"
done

refuse() { # refuse NAME EXPECTED-TEXT ARGS…
  local name=$1 want=$2; shift 2
  local out
  if out=$(helm template sb "$chart" "$@" 2>&1); then echo "check: FAIL: $name rendered" >&2; exit 1; fi
  printf '%s' "$out" | grep -q "$want" || { echo "check: FAIL: $name: $out" >&2; exit 1; }
  echo "check: refused $name"
}
refuse "PostgreSQL without a key ring" "secretKeys.value or secretKeys.existingSecret is required" --set database.url=postgres://h/db
refuse "SQLite with 2 replicas" "SQLite .* runs one pod" --set replicaCount=2
refuse "SQLite with an HPA" "SQLite .* runs one pod" --set autoscaling.enabled=true
refuse "a database URL that is not PostgreSQL" "must be a postgres:// URL" --set database.url=mysql://h/db --set secretKeys.value=k1:x
echo "check: PASS"
