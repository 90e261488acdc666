"""The `simt` command: list / run (catalog and FILE.cu), --json, and every user mistake
exiting 2 with one line that names the file:line:col or the argument (no traceback)."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tui import cli
from tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
CONTRACT_KEYS = {"id", "backend", "device", "correct", "metrics", "sanitizer",
                 "predicted_ms", "measured_ms"}
FINDING_KEYS = {"tool", "kind", "line", "message", "count"}

ADD_CU = """\
extern "C" __global__ void add(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}
"""

TWO_CU = """\
extern "C" __global__ void fill(int *out, int v) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

extern "C" __global__ void iota(int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i;
}
"""

BAD_CU = """\
extern "C" __global__ void broken(int *out) {
    int i = threadIdx.x;
    out[i] = i +;
}
"""


@pytest.fixture
def simt(capsys):
    """Call main(argv) in-process; return (exit status, stdout, stderr)."""
    def run(*argv):
        rc = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return rc, out, err
    return run


@pytest.fixture
def add_cu(tmp_path):
    p = tmp_path / "add.cu"
    p.write_text(ADD_CU)
    return p


def _user_error(rc, out, err, *needles):
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert err.startswith("simt"), err
    for n in needles:
        assert n in err, (n, err)


# ----------------------------------------------------------------------------- list

def test_list_json(simt):
    rc, out, err = simt("list", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["backend"] == "emulator" and doc["device"] == "simt emulator"
    ids = [e["id"] for e in doc["entries"]]
    assert ids and len(ids) == len(set(ids))
    assert cli.DEFAULT_ID in ids
    for e in doc["entries"]:
        assert {"id", "family", "seed", "title"} <= set(e)
        assert e["id"].startswith(e["family"] + "/")
    assert set(doc["families"]) == {e["family"] for e in doc["entries"]}


def test_list_text_groups_by_family(simt):
    rc, out, _ = simt("list")
    assert rc == 0
    assert re.search(r"^histogram$", out, re.M)
    assert "histogram/atomic" in out and "kernels." in out


# ----------------------------------------------------------------------------- run ID

def test_run_catalog_json(simt):
    rc, out, err = simt("run", "histogram/atomic", "--n", 4096, "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert CONTRACT_KEYS <= set(doc)
    assert doc["id"] == "histogram/atomic"
    assert doc["backend"] == "emulator" and doc["device"] == "simt emulator"
    assert doc["correct"] is True
    assert doc["measured_ms"] is None
    assert doc["predicted_ms"] is None or isinstance(doc["predicted_ms"], (int, float))
    assert isinstance(doc["metrics"], dict) and doc["metrics"]
    assert all(isinstance(v, (int, float)) for v in doc["metrics"].values())
    # one atomicAdd per element, its result unused: global reductions, one per warp
    red = doc["metrics"].get("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 0) + \
        doc["metrics"].get("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 0)
    assert red >= 4096 // 32
    assert isinstance(doc["sanitizer"], list)
    for f in doc["sanitizer"]:
        assert FINDING_KEYS <= set(f)
    assert doc["n"] == 4096 and doc["seed"] == 0
    assert doc["launches"] and doc["launches"][0]["kernel"] == "histograma_atomico"
    assert isinstance(doc["elapsed_s"], float)


def test_run_racy_entry_reports_lost_updates_and_the_race(simt):
    rc, out, err = simt("run", "histogram/shared-local", "--n", 4096, "--json")
    assert rc == 0, err                       # a wrong answer is a result, not an error
    doc = json.loads(out)
    assert doc["correct"] is False
    assert isinstance(doc["lost_updates"], int) and doc["lost_updates"] > 0
    assert any(f["tool"] == "racecheck" for f in doc["sanitizer"]), doc["sanitizer"]


def test_run_catalog_text(simt):
    rc, out, err = simt("run", "histogram/atomic", "--n", 2048, "--seed", 3)
    assert rc == 0, err
    assert "histogram/atomic" in out
    assert "launch 1: histograma_atomico<<<" in out
    assert "correct" in out
    assert "l1tex__t_requests_pipe_lsu_mem_global_op" in out
    assert "ERROR SUMMARY" in out and "elapsed" in out


def test_run_no_sanitize_and_policy(simt):
    rc, out, err = simt("run", "histogram/atomic", "--n", 1024, "--no-sanitize",
                        "--policy", "round-robin", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["policy"] == "round-robin" and doc["sanitize"] is False
    assert doc["correct"] is True


# ----------------------------------------------------------------------------- run FILE.cu

def test_run_user_kernel(simt, add_cu, tmp_path):
    dest = tmp_path / "y.npy"
    rc, out, err = simt("run", add_cu, "--kernel", "add", "--grid", 4, "--block", 256,
                        "--arg", "float32[1000]=uniform", "--arg", "float32[1000]=ones",
                        "--arg", "int32=1000", "--seed", 7, "--out", f"y={dest}")
    assert rc == 0, err
    x = np.random.default_rng(7).uniform(0, 1, 1000).astype(np.float32)
    np.testing.assert_array_equal(np.load(dest), x + np.float32(1))
    assert "add" in out and "y" in out and "sum=" in out and "written" in out


def test_run_user_kernel_json(simt, add_cu):
    rc, out, err = simt("run", add_cu, "--grid", 1, "--block", 64,      # one kernel: no --kernel
                        "--arg", "float32[64]=arange", "--arg", "[64]=ones", "--arg", 64, "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert CONTRACT_KEYS <= set(doc)
    assert doc["correct"] is None and doc["backend"] == "emulator"
    assert doc["id"].endswith("add.cu:add")
    x, y = doc["arrays"]
    assert (x["name"], x["changed"], x["sum"]) == ("x", False, sum(range(64)))
    assert (y["name"], y["changed"], y["sum"]) == ("y", True, sum(range(64)) + 64)
    assert y["first"][:3] == [1.0, 2.0, 3.0] and y["dtype"] == "float32" and y["shape"] == [64]
    assert doc["metrics"]["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 2


def test_run_user_kernel_scalar_converts_when_exact(simt, add_cu):
    rc, out, err = simt("run", add_cu, "--grid", 1, "--block", 32, "--arg", "float32[32]=ones",
                        "--arg", "float32[32]=zeros", "--arg", "int64=32", "--json")
    assert rc == 0, err
    assert json.loads(out)["arrays"][1]["sum"] == 32


# ----------------------------------------------------------------------------- user mistakes

def _add(add_cu, *extra, args=("float32[64]=ones", "float32[64]=zeros", "int32=64"),
         grid="1", block="64"):
    argv = ["run", add_cu, "--grid", grid, "--block", block]
    for a in args:
        argv += ["--arg", a]
    return argv + list(extra)


@pytest.mark.parametrize("spec", ["float32[64x]=ones", "float32[64]=unifrom", "int32=1.5",
                                  "float32", "float32[64]=randint(5,1)"])
def test_malformed_arg_spec(simt, add_cu, spec):
    rc, out, err = simt(*_add(add_cu, args=(spec, "float32[64]=zeros", "int32=64")))
    _user_error(rc, out, err, repr(spec), "expected")


def test_wrong_argument_count(simt, add_cu):
    rc, out, err = simt(*_add(add_cu, args=("float32[64]=ones", "float32[64]=zeros")))
    _user_error(rc, out, err, "add(const float *x, float *y, int n)", "3 arguments", "got 2")


def test_dtype_mismatch_names_the_argument(simt, add_cu):
    rc, out, err = simt(*_add(add_cu, args=("int32[64]=ones", "float32[64]=zeros", "int32=64")))
    _user_error(rc, out, err, "argument 1", "x", "float32", "int32")


def test_scalar_for_pointer_and_array_for_scalar(simt, add_cu):
    rc, out, err = simt(*_add(add_cu, args=("float32=1", "float32[64]=zeros", "int32=64")))
    _user_error(rc, out, err, "argument 1", "pointer")
    rc, out, err = simt(*_add(add_cu, args=("float32[64]=ones", "float32[64]=zeros", "int32[1]=ones")))
    _user_error(rc, out, err, "argument 3", "scalar")
    rc, out, err = simt(*_add(add_cu, args=("float32[64]=ones", "float32[64]=zeros", "int32=-1.5")))
    _user_error(rc, out, err, "'int32=-1.5'")
    rc, out, err = simt(*_add(add_cu, args=("float32[64]=ones", "float32[64]=zeros", "float32=0.5")))
    _user_error(rc, out, err, "argument 3", "int32")


def test_unknown_kernel_name(simt, add_cu):
    rc, out, err = simt(*_add(add_cu, "--kernel", "nosuchkernel"))
    _user_error(rc, out, err, "nosuchkernel")


def test_kernel_required_when_the_file_has_several(simt, tmp_path):
    p = tmp_path / "two.cu"
    p.write_text(TWO_CU)
    rc, out, err = simt("run", p, "--grid", 1, "--block", 32, "--arg", "int32[32]=zeros")
    _user_error(rc, out, err, "--kernel")


def test_a_files_own_launch_is_shown_when_grid_block_or_args_are_missing(simt, tmp_path):
    """A whole student program: what its main() writes says what --grid, --block and
    --arg stand for."""
    p = tmp_path / "prog.cu"
    p.write_text(ADD_CU + "\nint main() {\n  float *x; int n = 1 << 20;\n"
                 "  add<<<(n + 255) / 256, 256>>>(x, x, n);\n  return 0;\n}\n")
    rc, out, err = simt("run", p, "--kernel", "add")
    _user_error(rc, out, err, "--grid and --block",
                f"(as prog.cu:{ADD_CU.count(chr(10)) + 4} launches it: add<<<(n + 255) / 256, 256>>>(x, x, n))")
    rc, out, err = simt("run", p, "--kernel", "add", "--grid", 4, "--block", 256)
    _user_error(rc, out, err, "got 0 --arg", "launches it: add<<<")
    rc, out, err = simt("run", p, "--kernel", "add", "--grid", 4, "--block", 256, "--arg", "float32[8]=ones")
    _user_error(rc, out, err, "takes 3 arguments, got 1 --arg", "launches it: add<<<")


def test_unknown_catalog_id(simt):
    rc, out, err = simt("run", "histogram/nosuchthing")
    _user_error(rc, out, err, "histogram/nosuchthing")


def test_missing_file(simt, tmp_path):
    p = tmp_path / "nowhere" / "missing.cu"
    rc, out, err = simt("run", p, "--grid", 1, "--block", 32)
    _user_error(rc, out, err, str(p), "no such file")


def test_unreadable_files(simt, tmp_path):
    d = tmp_path / "dir.cu"
    d.mkdir()
    rc, out, err = simt("run", d, "--grid", 1, "--block", 32)
    _user_error(rc, out, err, str(d), "directory")
    b = tmp_path / "blob.cu"
    b.write_bytes(b"\x7fELF\x00\x00\xff\xfe")
    rc, out, err = simt("run", b, "--grid", 1, "--block", 32)
    _user_error(rc, out, err, str(b))
    latin = tmp_path / "latin.cu"
    latin.write_bytes(b"// caf\xe9\n" + ADD_CU.encode())
    rc, out, err = simt("run", latin, "--grid", 1, "--block", 32)
    _user_error(rc, out, err, f"{latin}:1", "UTF-8")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads anything")
def test_permission_denied(simt, add_cu):
    add_cu.chmod(0)
    try:
        rc, out, err = simt(*_add(add_cu))
    finally:
        add_cu.chmod(0o644)
    _user_error(rc, out, err, str(add_cu), "permission denied")


def test_block_too_large(simt, add_cu):
    rc, out, err = simt(*_add(add_cu, block="2048"))
    _user_error(rc, out, err, "2048", "1024")


@pytest.mark.parametrize("opt, value", [("--grid", "4,a"), ("--block", "0"), ("--grid", "1,2,3,4")])
def test_bad_dimensions(simt, add_cu, opt, value):
    argv = _add(add_cu)
    argv[argv.index(opt) + 1] = value
    rc, out, err = simt(*argv)
    _user_error(rc, out, err, opt, value)


def test_missing_grid(simt, add_cu):
    rc, out, err = simt("run", add_cu, "--block", 32)
    _user_error(rc, out, err, "--grid")


def test_syntax_error_names_file_line_col(simt, tmp_path):
    p = tmp_path / "broken.cu"
    p.write_text(BAD_CU)
    rc, out, err = simt("run", p, "--grid", 1, "--block", 32, "--arg", "int32[32]=zeros")
    _user_error(rc, out, err)
    assert re.search(rf"{re.escape(str(p))}:3:\d+", err), err


def test_bad_out(simt, add_cu, tmp_path):
    rc, out, err = simt(*_add(add_cu, "--out", f"nope={tmp_path / 'a.npy'}"))
    _user_error(rc, out, err, "nope", "x, y, n")
    rc, out, err = simt(*_add(add_cu, "--out", f"n={tmp_path / 'a.npy'}"))
    _user_error(rc, out, err, "scalar")
    rc, out, err = simt(*_add(add_cu, "--out", f"y={tmp_path / 'no' / 'a.npy'}"))
    _user_error(rc, out, err, "no such directory")
    rc, out, err = simt(*_add(add_cu, "--out", "y"))
    _user_error(rc, out, err, "NAME=path.npy")


def test_file_options_with_a_catalog_id(simt):
    rc, out, err = simt("run", "histogram/atomic", "--kernel", "x")
    _user_error(rc, out, err, "--kernel")
    rc, out, err = simt("run", "histogram/atomic", "--n", 0)
    assert rc == 2 and "positive integer" in err


def test_usage_errors_exit_2(simt):
    rc, out, err = simt("run", "histogram/atomic", "--policy", "chaos")
    assert rc == 2 and "invalid choice" in err
    rc, out, err = simt("frobnicate")
    assert rc == 2
    rc, out, err = simt("--help")
    assert rc == 0 and "simt run" in out


def test_tui_without_a_terminal(simt):
    # under pytest stdin is not a terminal (and tui/app.py may not exist yet)
    rc, out, err = simt("tui", "histogram/atomic")
    _user_error(rc, out, err, "simt run histogram/atomic")
    rc, out, err = simt("tui", "histogram/nosuchthing")
    _user_error(rc, out, err, "histogram/nosuchthing")


def test_real_without_gpu(simt):
    try:
        import kernels_cuda.cupy_backend as cb
        if cb.available()[0]:
            pytest.skip("a GPU is usable here")
    except ImportError:
        pass
    rc, out, err = simt("run", "histogram/atomic", "--real")
    _user_error(rc, out, err, "no usable GPU")


def test_keyboard_interrupt_exits_130(simt, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "cmd_list", interrupted)
    rc, out, err = simt("list")
    assert rc == 130 and "interrupted" in err


def test_console_errors_have_no_traceback(tmp_path):
    """The real process: one line on stderr, exit 2."""
    p = tmp_path / "broken.cu"
    p.write_text(BAD_CU)
    for argv in (["run", str(p), "--grid", "1", "--block", "32", "--arg", "int32[32]=zeros"],
                 ["run", str(tmp_path / "missing.cu")],
                 ["run", "no/such-id"]):
        r = subprocess.run([sys.executable, "-m", "tui.cli", *argv], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 2, r
        assert "Traceback" not in r.stderr and r.stderr.startswith("simt: "), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_progress_bar_draws_only_when_slow():
    import io
    s = io.StringIO()
    p = cli._Progress(enabled=True, delay=0.0, stream=s)
    p.label("k<<<1, 32>>>")
    p(5, 10)
    assert "50.0%" in s.getvalue() and "k<<<1, 32>>>" in s.getvalue()
    p.close()
    s2 = io.StringIO()
    q = cli._Progress(enabled=True, delay=60.0, stream=s2)
    q(5, 10)
    assert s2.getvalue() == ""
    r = cli._Progress(enabled=False, delay=0.0, stream=s2)
    r(5, 10)
    assert s2.getvalue() == ""


def test_sum_metrics_weights_ratios():
    class R:
        def __init__(self, m, w):
            self.metrics, self.warp_instructions = m, w
    ratio = "smsp__thread_inst_executed_per_inst_executed.ratio"
    total = cli.sum_metrics([R({"a.sum": 3, ratio: 32.0}, 10), R({"a.sum": np.int64(4), ratio: 16.0}, 30)])
    assert total == {ratio: 20.0, "a.sum": 7}


def test_sum_metrics_keeps_maxima_and_weights_means():
    """Two launches (scan_init, then scan_lookback): a kernel's registers or a block's
    longest path is the larger launch's, not the two added."""
    class R:
        def __init__(self, m, w):
            self.metrics, self.warp_instructions = m, w
    total = cli.sum_metrics([R({"simt__registers_per_thread.max": 8, "simt__block_cycles.mean": 300.0}, 10),
                             R({"simt__registers_per_thread.max": 43, "simt__block_cycles.mean": 5000.0}, 90)])
    assert total == {"simt__registers_per_thread.max": 43, "simt__block_cycles.mean": 4530.0}


def test_sanitizer_format_like_compute_sanitizer():
    text = cli.format_sanitizer([{"tool": "racecheck", "kind": "error", "file": "/x/h.cu", "line": 42,
                                  "message": "Race reported between Write access and Read access",
                                  "count": 96}])
    assert "========= Error: Race reported" in text
    assert "h.cu:42" in text and "[96 hazards]" in text
    assert "ERROR SUMMARY: 1 error" in text
    assert "ERROR SUMMARY: 0 errors" in cli.format_sanitizer([])


def test_endless_loop_stops_at_the_step_budget(simt, tmp_path):
    p = tmp_path / "spin.cu"
    p.write_text('extern "C" __global__ void spin(int *flag) {\n    while (flag[0] == 0) { }\n}\n')
    rc, out, err = simt("run", p, "--grid", 1, "--block", 32, "--arg", "int32[1]=zeros",
                        "--max-steps", 500, "--json")
    _user_error(rc, out, err, f"{p}:2")
    doc = json.loads(out)                         # the report still comes, as one JSON object
    assert doc["correct"] is None and doc["error"]
    assert doc["sanitizer"] and doc["sanitizer"][-1]["line"] == 2


def test_out_of_bounds_is_reported_like_memcheck(simt, add_cu):
    rc, out, err = simt(*_add(add_cu, args=("float32[16]=ones", "float32[16]=zeros", "int32=64")))
    _user_error(rc, out, err, f"{add_cu}:3")
    assert "========= Error:" in out and "memcheck" in out


def test_npy_argument_and_out_by_position(simt, add_cu, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "x.npy", np.arange(64, dtype=np.int64))      # converted exactly
    rc, out, err = simt(*_add(add_cu, "--out", "2=y_out",
                              args=("@x.npy", "float32[64]=full(0.5)", "int32=64")))
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "y_out.npy"),
                                  np.arange(64, dtype=np.float32) + np.float32(0.5))


def test_printf_output(simt, tmp_path):
    p = tmp_path / "hi.cu"
    p.write_text('extern "C" __global__ void hi(int n) {\n'
                 '    if (threadIdx.x < n) printf("hello %d\\n", threadIdx.x);\n}\n')
    rc, out, err = simt("run", p, "--grid", 1, "--block", 32, "--arg", 3, "--json")
    assert rc == 0, err
    assert json.loads(out)["stdout"] == ["hello 0\n", "hello 1\n", "hello 2\n"]
    rc, out, err = simt("run", p, "--grid", 1, "--block", 32, "--arg", 30)
    assert rc == 0 and "hello 19" in out and "hello 20" not in out and "10 more" in out


def test_type_error_in_users_kernel_names_file_line_col(simt, tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text('extern "C" __global__ void k(int *a) {\n  a[0] = missing;\n}\n')
    rc, out, err = simt("run", str(bad), "--grid", "1", "--block", "32", "--arg", "int32[4]=zeros")
    _user_error(rc, out, err, f"{bad}:2:10: error: identifier \"missing\" is undefined")


def test_calibrate_derive_bad_input(simt, monkeypatch):
    """(That ``simt calibrate --derive`` rebuilds a committed profile is checked beside the
    other profile's rebuild, in test_timing's
    test_profiles_are_derived_from_their_recorded_times: one emulation of the
    microbenchmarks, calibrate.count_emulator.)"""
    monkeypatch.chdir(ROOT)
    _user_error(*simt("calibrate", "--derive", "nope.json"), "nope.json")
    _user_error(*simt("calibrate"), "--real")


VEC4_CU = """
extern "C" __global__ void vec4(const float4 *a, float4 *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float4 v = a[i]; v.x *= 2.f; v.w += v.y; b[i] = v; }
}
"""


def test_run_file_with_float4_arrays(simt, tmp_path):
    """--arg 'float4[N]=...' fills a float4 * parameter; --out writes its (N, 4) rows."""
    src = tmp_path / "vec4.cu"
    src.write_text(VEC4_CU)
    dest = tmp_path / "b.npy"
    rc, out, err = simt("run", src, "--grid", 4, "--block", 256, "--arg", "float4[1000]=uniform",
                        "--arg", "float4[1000]=zeros", "--arg", "int32=1000", "--seed", 3,
                        "--out", f"b={dest}")
    assert rc == 0, err
    from simt.argspec import make_arg
    a = make_arg("float4[1000]=uniform", np.random.default_rng(3))
    b = np.load(dest)
    want = a.copy()
    want[:, 0] *= 2
    want[:, 3] += want[:, 1]
    assert b.shape == (1000, 4)
    assert np.array_equal(b, want)
