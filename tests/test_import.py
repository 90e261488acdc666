"""`import simt` stays light: no Textual, no CuPy (DESIGN.md: tui -> kernels_cuda -> simt)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules_after(stmt: str) -> set[str]:
    code = f"import sys, json\n{stmt}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _heavy(mods: set[str]) -> list[str]:
    return sorted(m for m in mods if m.split(".")[0] in ("textual", "cupy", "cupy_backends"))


def test_import_simt_is_light():
    assert _heavy(_modules_after("import simt")) == []


def test_catalog_and_emulator_backend_do_not_need_textual_or_cupy():
    mods = _modules_after("import simt\nfrom kernels_cuda import catalog, backend\ncatalog.entries()")
    assert _heavy(mods) == []


def test_cli_module_imports_lazily():
    # `simt --help`, `simt list` and `simt run` must work without Textual or CuPy loaded
    assert _heavy(_modules_after("import tui.cli")) == []
