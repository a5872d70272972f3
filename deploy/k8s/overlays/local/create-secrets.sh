#!/usr/bin/env bash
# Creates the Secrets the local overlay references, in namespace $NAMESPACE (default `interview`).
# Idempotent: an existing Secret is left alone (delete it to rotate). Nothing secret is passed on a
# command line (where `ps` would show it): values go through stdin as env-file lines.
#
#   interview-database   POSTGRES_PASSWORD (random, hex so it needs no URL escaping) and
#                        DATABASE_URL=postgresql+asyncpg://interview:<password>@postgres:5432/interview
#   interview-llm-keys   whichever of ANTHROPIC_API_KEY, OPENAI_API_KEY, KIMI_API_KEY, DEEPSEEK_API_KEY
#                        are set in this shell (none set: the Secret is not created → offline engine)
#   interview-auth       ORCHESTRATOR_AUTH_TOKEN when set in this shell (else: no authentication)
set -euo pipefail

NAMESPACE="${NAMESPACE:-interview}"
KUBECTL="${KUBECTL:-kubectl}"

kc() { "$KUBECTL" --namespace "$NAMESPACE" "$@"; }

if ! "$KUBECTL" get namespace "$NAMESPACE" >/dev/null 2>&1; then
  "$KUBECTL" create namespace "$NAMESPACE"
fi

if kc get secret interview-database >/dev/null 2>&1; then
  echo "secret interview-database exists; kept"
else
  password="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  printf 'POSTGRES_PASSWORD=%s\nDATABASE_URL=postgresql+asyncpg://interview:%s@postgres:5432/interview\n' \
    "$password" "$password" | kc create secret generic interview-database --from-env-file=/dev/stdin
fi

if kc get secret interview-llm-keys >/dev/null 2>&1; then
  echo "secret interview-llm-keys exists; kept"
else
  lines=""
  for key in ANTHROPIC_API_KEY OPENAI_API_KEY KIMI_API_KEY DEEPSEEK_API_KEY; do
    if [ -n "${!key:-}" ]; then
      lines+="${key}=${!key}"$'\n'
    fi
  done
  if [ -n "$lines" ]; then
    printf '%s' "$lines" | kc create secret generic interview-llm-keys --from-env-file=/dev/stdin
  else
    echo "no LLM key in the environment: interview-llm-keys not created (the services run offline)"
  fi
fi

if kc get secret interview-auth >/dev/null 2>&1; then
  echo "secret interview-auth exists; kept"
elif [ -n "${ORCHESTRATOR_AUTH_TOKEN:-}" ]; then
  printf 'ORCHESTRATOR_AUTH_TOKEN=%s\n' "$ORCHESTRATOR_AUTH_TOKEN" \
    | kc create secret generic interview-auth --from-env-file=/dev/stdin
fi
