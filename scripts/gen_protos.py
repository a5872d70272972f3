"""Generate Python code and .pyi stubs for every .proto under protos/ into shared/gen/.

grpc_tools emits absolute imports (`from interview.common.v1 import common_pb2`); they are rewritten
to the package they live in (`shared.gen.interview...`) so the generated code needs no sys.path
tricks. The output directory is wiped first: nothing in it is ever edited by hand.
"""

from __future__ import annotations

import re
import shutil
import sys
from importlib.resources import files
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[1]
PROTO_ROOT = ROOT / "protos"
OUT = ROOT / "shared" / "gen"
_IMPORT = re.compile(r"^(from|import) interview\.", re.MULTILINE)


def main() -> int:
    """Run protoc for every proto file, then fix imports and add package markers."""
    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))
    if not protos:
        print("no .proto files under protos/", file=sys.stderr)
        return 1
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    well_known = str(files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{well_known}",
        f"--python_out={OUT}",
        f"--pyi_out={OUT}",
        f"--grpc_python_out={OUT}",
        *protos,
    ]
    code = protoc.main(args)
    if code != 0:
        return int(code)
    for path in OUT.rglob("*.py*"):
        text = path.read_text()
        fixed = _IMPORT.sub(lambda m: f"{m.group(1)} shared.gen.interview.", text)
        if fixed != text:
            path.write_text(fixed)
    for directory in [OUT, *(d for d in OUT.rglob("*") if d.is_dir())]:
        (directory / "__init__.py").touch()
    print(f"generated {len(protos)} proto files into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
