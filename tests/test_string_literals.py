"""String literals as pointers (read-only bytes of the module, NUL-terminated) and
printf's ``%s``."""
import numpy as np
import pytest

import simt
from kern import compile_error, run


def test_string_literal_indexed_and_printed():
    src = r"""#include <cstdio>
__constant__ char names[2][4] = {{'a', 'b', 'c', 0}, {'x', 'y', 0, 0}};
__device__ const char *pick(int i) { return i ? "odd" : "even"; }
__global__ void k(int *y, const char *arg) {
  const char *s = "h\x41llo\n" "!";
  int t = threadIdx.x;
  y[t] = s[t];
  printf("%d %s %-5s| %s %s %5.2f%%\n", t, pick(t & 1), "a%b", names[t & 1], arg, 1.5f);
  const char *n = nullptr;
  if (t == 0) printf("[%s] %s\n", n, "xyz");
}"""
    (y, _), res = run(src, "k", 1, 8, [np.zeros(8, np.int32), np.array([65, 66, 0, 67], np.int8)])
    assert y.tolist() == list(b"hAllo\n!\0")
    assert res.stdout == [f"{t} {'odd' if t & 1 else 'even'} a%b  | {'xy' if t & 1 else 'abc'} AB  1.50%\n"
                          for t in range(8)] + ["[(null)] xyz\n"]


def test_a_string_literal_is_read_only():
    assert compile_error('__global__ void k(int *y) {\n  char *s = "abc";\n}') == (
        'bad.cu:2:13: error: a value of type "const char *" cannot be used to initialize an '
        'entity of type "char *" (it drops const)')


def test_printf_percent_s_needs_a_char_pointer():
    assert compile_error('#include <cstdio>\n__global__ void k(int *y) {\n  printf("%s\\n", y[0]);\n}') == (
        "bad.cu:3:18: error: printf's %s needs a char *, got a value of type \"int\"")


def test_printf_percent_s_of_shared_memory_is_a_clean_launch_error():
    src = ('#include <cstdio>\n__global__ void k(int *y) {\n  __shared__ char s[4];\n'
           "  s[threadIdx.x] = 'a';\n  __syncthreads();\n  printf(\"%s\\n\", s);\n}")
    with pytest.raises(simt.LaunchError) as e:
        run(src, "k", 1, 4, [np.zeros(1, np.int32)])
    assert str(e.value) == ("t.cu:6:3: error: printf's %s at line 6 reads a string in shared or "
                            "local memory, which simt's printf does not follow (it reads global and "
                            "constant memory)")
