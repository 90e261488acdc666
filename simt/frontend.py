"""Front end: CUDA C text -> pycparser AST with exact ``file:line:col`` coordinates.

Route (DESIGN.md): pcpp expands ``#define``/``#include`` (unknown headers such as
``<cuda_runtime.h>`` are dropped), then a length-preserving rewrite turns CUDA words
into C23 attributes (``__global__`` -> ``[[global]]``, ``__shared__`` -> ``[[shared]]``,
``extern "C"``, ``__grid_constant__``, ``__launch_bounds__(...)``, ``__align__(...)`` and
``__attribute__((...))`` blanked: a struct keeps C's natural alignment, and a kernel's
launch bounds are read from the source text by ``simt.occupancy.launch_bounds``; ``__restrict`` and
``__restrict__`` are ``restrict``; inline PTX ``asm(...)`` is read by ``simt.inlineasm``), and pycparser
parses with ``dialect="c23"``.  A one-line typedef prelude followed by ``#line 1`` keeps
coordinates true.

``#include <cuda_fp16.h>`` is dropped like every header pcpp cannot find (``__half`` and
``half`` are built-in types here, its intrinsics built-in functions, its ``CUDART_*_FP16``
constants predefined); the text that reaches NVRTC under ``--real`` keeps it.

Host code is skipped as nvcc's device pass skips it: after preprocessing, ``simt.hostcode``
blanks every file-scope function that is neither ``__global__`` nor ``__device__`` (``int
main()``, a ``solve()`` wrapper with its launches), host prototypes and host variables of
host-only types, and hands their names to the lowering for its errors.

Limitations: columns on a line that contains a macro expansion are those of the
expanded text; namespaces are flattened (``simt.namespaces``), function and class templates
are instantiated as text first (``simt.templates``), classes' member functions become
file-scope functions (``simt.classes``), C++ casts become C casts, a function's reference
parameters and local reference variables are read as references (``reference_params``,
``local_references``), ``auto`` reaches the lowering as C23's inferred type, and the parser
reads ``T(args)`` and ``T{args}`` as expressions and ``T v(args);`` as a declaration
(``simt.classes.BraceCall``, ``CtorInit``), and a braced list as a ``return`` value or a
call's argument (an InitList the lowering list-initializes: ``KernelBuilder.braced``);
lambdas become a class and its ``operator()`` (``simt.lambdas``), and other C++ is rejected
with an error naming the line.  The limits and constants of ``<cfloat>``, ``<climits>``,
``<cmath>`` and ``<math_constants.h>`` (``FLT_MAX``, ``INT_MAX``, ``INFINITY``, ``M_PI``,
``CUDART_INF_F``, ...) are predefined, as nvcc's implicit ``cuda_runtime.h`` makes most of
them visible, and so are ``__CUDA_ARCH__`` (900), ``__CUDACC__`` and ``__NVCC__``
(``DEVICE_MACROS``): the text is read once, as nvcc's sm_90 device pass reads it, never as
its host pass does.
"""
from __future__ import annotations

import functools
import io
import re
from pathlib import Path

from . import (classes, coop, cstring, enums, hostcode, inlineasm, lambdas, limits, namespaces, rangefor,
               smem_struct)
from .ctypes_ import FUNCTIONAL_CASTS, TYPEDEFS
from .errors import CompileError, Coord, UsageError
from .templates import close_paren, skip_string, split_spans

_PRELUDE = "".join(f"typedef int {n};" for n in sorted(TYPEDEFS)) + "\n"

# what <cfloat>, <climits>, <cmath> and <math_constants.h> define (the values of nvcc's
# headers on Linux x86-64: long is 64-bit); a file's own #define of one of them wins
BUILTIN_MACROS = {
    "FLT_MAX": "3.402823466e+38F", "FLT_MIN": "1.175494351e-38F",
    "FLT_EPSILON": "1.192092896e-07F", "FLT_TRUE_MIN": "1.401298464e-45F",
    "DBL_MAX": "1.7976931348623158e+308", "DBL_MIN": "2.2250738585072014e-308",
    "DBL_EPSILON": "2.2204460492503131e-16", "FLT_DIG": "6", "DBL_DIG": "15",
    "FLT_MANT_DIG": "24", "DBL_MANT_DIG": "53",
    "CHAR_BIT": "8", "SCHAR_MIN": "(-128)", "SCHAR_MAX": "127", "UCHAR_MAX": "255",
    "CHAR_MIN": "(-128)", "CHAR_MAX": "127", "SHRT_MIN": "(-32768)", "SHRT_MAX": "32767",
    "USHRT_MAX": "65535", "INT_MIN": "(-2147483647 - 1)", "INT_MAX": "2147483647",
    "UINT_MAX": "4294967295U", "LONG_MIN": "(-9223372036854775807L - 1)",
    "LONG_MAX": "9223372036854775807L", "ULONG_MAX": "18446744073709551615UL",
    "LLONG_MIN": "(-9223372036854775807LL - 1)", "LLONG_MAX": "9223372036854775807LL",
    "ULLONG_MAX": "18446744073709551615ULL",
    "INFINITY": "__int_as_float(0x7f800000)", "NAN": "__int_as_float(0x7fffffff)",
    "HUGE_VALF": "__int_as_float(0x7f800000)", "HUGE_VAL": "__longlong_as_double(0x7ff0000000000000LL)",
    "M_E": "2.7182818284590452354", "M_LOG2E": "1.4426950408889634074",
    "M_LOG10E": "0.43429448190325182765", "M_LN2": "0.69314718055994530942",
    "M_LN10": "2.30258509299404568402", "M_PI": "3.14159265358979323846",
    "M_PI_2": "1.57079632679489661923", "M_PI_4": "0.78539816339744830962",
    "M_1_PI": "0.31830988618379067154", "M_2_PI": "0.63661977236758134308",
    "M_2_SQRTPI": "1.12837916709551257390", "M_SQRT2": "1.41421356237309504880",
    "M_SQRT1_2": "0.70710678118654752440",
    "CUDART_INF_F": "__int_as_float(0x7f800000)", "CUDART_NAN_F": "__int_as_float(0x7fffffff)",
    "CUDART_INF": "__longlong_as_double(0x7ff0000000000000LL)",
    "CUDART_NAN": "__longlong_as_double(0xfff8000000000000LL)",
    "CUDART_PI_F": "3.141592654f", "CUDART_PI": "3.1415926535897931e+0",
    "CUDART_PIO2_F": "1.570796327f", "CUDART_SQRT_2_F": "1.414213562f",
    "CUDART_MAX_NORMAL_F": "3.402823466e+38F", "CUDART_MIN_DENORM_F": "1.401298464e-45F",
    "CUDART_ZERO_F": "0.0f", "CUDART_ONE_F": "1.0f", "CUDART_L2E_F": "1.442695041f",
    "CUDART_LN2_F": "0.693147181f",
    # <cuda_fp16.h>'s (its own definitions, through __ushort_as_half)
    "CUDART_INF_FP16": "__ushort_as_half((unsigned short)0x7C00U)",
    "CUDART_NAN_FP16": "__ushort_as_half((unsigned short)0x7FFFU)",
    "CUDART_MIN_DENORM_FP16": "__ushort_as_half((unsigned short)0x0001U)",
    "CUDART_MAX_NORMAL_FP16": "__ushort_as_half((unsigned short)0x7BFFU)",
    "CUDART_NEG_ZERO_FP16": "__ushort_as_half((unsigned short)0x8000U)",
    "CUDART_ZERO_FP16": "__ushort_as_half((unsigned short)0x0000U)",
    "CUDART_ONE_FP16": "__ushort_as_half((unsigned short)0x3C00U)",
}

# what nvcc defines while it compiles device code: simt stands for sm_90's device pass, so
# ``#ifdef __CUDA_ARCH__`` takes the device branch.  Only the emulator's preprocessing
# defines them; under --real NVRTC defines its own (and not __NVCC__, as NVRTC does not).
DEVICE_MACROS = {"__CUDA_ARCH__": "900", "__CUDACC__": "1", "__NVCC__": "1"}


def read_source(path: str | Path) -> str:
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a .cu file") from None
    except PermissionError:
        raise UsageError(f"cannot read {path}: permission denied") from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None


def preprocess(text: str, filename: str) -> str:
    from pcpp.preprocessor import Action, OutputDirective, Preprocessor

    errors: list[CompileError] = []

    class _P(Preprocessor):
        def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
            raise OutputDirective(Action.IgnoreAndRemove)

        def on_error(self, file, line, msg):
            errors.append(CompileError(f"preprocessor: {msg}", Coord(filename, line)))

        def on_unknown_macro_in_defined_expr(self, tok):
            return False

        def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):
            if directive.value == "pragma":
                return None
            return super().on_directive_unknown(directive, toks, ifpassthru, precedingtoks)

    p = _P()
    p.line_directive = "#line"
    own = set(re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M))
    for name, value in (BUILTIN_MACROS | DEVICE_MACROS).items():
        if name not in own:
            p.define(f"{name} {value}")
    base = str(Path(filename).parent) if filename else "."
    p.add_path(base)
    from .curand import INCLUDE_DIR
    p.add_path(str(INCLUDE_DIR))        # simt's own curand_kernel.h and cuComplex.h
    p.parse(text, source=filename)
    out = io.StringIO()
    p.write(out)
    if errors:
        raise errors[0]
    text = out.getvalue()
    # pcpp may spell the main file's name relative to the working directory: keep ours
    import os
    target = os.path.abspath(filename) if filename else None

    def fix(m):
        name = m.group(2)
        if target and os.path.abspath(name) == target:
            name = filename
        return f'{m.group(1)}"{name}"'
    return re.sub(r'^(\s*#\s*line\s+\d+\s+)"([^"]*)"', fix, text, flags=re.M)


# a string, a character literal, or a number whose digits may be separated (C++14, C23)
_NUMBERS = re.compile(r'"(?:\\.|[^"\\\n])*"|\b\d(?:[\w.]|\'(?=[0-9A-Za-z])|(?<=[eEpP])[+-])*'
                      r"|'(?:\\.|[^'\\\n])*'")


def digit_separators(text: str) -> str:
    """``1'000'000`` -> ``1000000  ``: the separators out of each number, which keeps its
    place (its first column) and the columns after it, so that no later rewrite mistakes a
    separator for a character literal's quote."""
    def sub(m):
        t = m.group(0)
        if t[0] in "\"'" or "'" not in t:
            return t
        return t.replace("'", "") + " " * t.count("'")
    return _NUMBERS.sub(sub, text)


# std:: functions that name CUDA's own device overloads (std::min(a, b) is min(a, b)):
# <algorithm>'s min and max, and <cmath>'s functions, whose std:: forms CUDA's headers
# declare for device code (nvcc compiles std::sin(x) on a float as sinf)
STD_FUNCTIONS = ("min", "max", "abs", "sqrt", "exp", "floor", "ceil", "fabs")
STD_CMATH = tuple("""sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp2 expm1
    log log2 log10 log1p pow cbrt hypot round trunc rint nearbyint fmod remainder remquo
    copysign fmin fmax fdim fma erf erfc lgamma tgamma frexp ldexp modf scalbn scalbln ilogb
    logb nextafter isnan isinf isfinite signbit""".split())
_STD_CALL = re.compile(r"\bstd\s*::\s*(?=(?:" + "|".join(STD_FUNCTIONS + STD_CMATH) + r")\s*\()")


def std_functions(text: str) -> str:
    """``std::min(a, b)`` -> ``     min(a, b)``: the qualification blanked for the functions
    of ``STD_FUNCTIONS``, whose device overloads in CUDA's headers are the same functions
    as the unqualified ones (a float argument stays float).  Other ``std::`` names stay,
    and ``rewrite_cuda`` rejects them."""
    return _STD_CALL.sub(lambda m: _blank(m.group(0)), text)


_CPP_WORDS = [
    (re.compile(r"\bdynamic_cast\s*<"), "dynamic_cast is outside the subset; use a C cast such as (int*)p"),
    (re.compile(r"\b(?:namespace|using)\b\s+\w"), "this namespace or using declaration is outside "
     "the subset (simt reads namespace blocks at file scope, using namespace, using X = T at file "
     "scope and namespace aliases)"),
    (re.compile(r"\bclass\b\s+\w"), "a class declared here is outside the subset: define it "
     "(class X { ... };) at file scope"),
    (re.compile(r"\b(?:std|nvstd)\s*::\s*function\b"), "std::function (and nvstd::function) is "
     "outside simt's subset: keep the lambda in an auto variable, or take it as a template "
     "parameter (template <typename F> __device__ float apply(F f, float x))"),
    (re.compile(r"\b(?:cudaTextureObject_t|cudaSurfaceObject_t)\b|\b(?:texture|surface)\s*<"),
     "texture and surface objects and references (cudaTextureObject_t, texture<...>, tex2D, "
     "surf2Dwrite, ...) are outside simt's subset: pass the array as a const pointer and read it "
     "with __ldg (the read-only path), interpolating by hand where the texture filtered"),
    (re.compile(r"\b(?:nvcuda\s*::\s*)?wmma\s*::"), "wmma (warp matrix fragments on the tensor "
     "cores: mma.h) is outside simt's subset"),
    (re.compile(r"<<<"), "a kernel launched from device code (dynamic parallelism) is outside "
     "simt's subset: launch it from the host, or call a __device__ function"),
    (re.compile(r"\bstd\s*::"), "std:: is outside simt's subset (but for std::" + ", std::".join(STD_FUNCTIONS)
     + " and <cmath>'s other functions, std::sin, std::pow, ..., which name CUDA's own device functions)"),
    (re.compile(r"\w::\w"), "C++ scope (::) is outside the subset"),
    (re.compile(r"\b(?:new|delete)\b\s*[\w\[]"), "C++ new/delete are outside the subset"),
    (re.compile(r"\b(?:malloc|calloc|realloc|free)\s*\("), "malloc and free in device code (the "
     "device heap) are outside simt's subset: allocate on the host (cudaMalloc) and pass the "
     "pointer, or use a local array or shared memory"),
    (re.compile(r"\b(?:__nv_bfloat162|nv_bfloat162|__nv_bfloat16_raw)\b"), "__nv_bfloat162 and "
     "__nv_bfloat16_raw (cuda_bf16.h) are not supported yet; use __nv_bfloat16 one value at a "
     "time (__ushort_as_bfloat16(bits) makes one from its bits)"),
    (re.compile(r"\b__half2?_raw\b"), "__half_raw is not supported yet; make a half from its bits "
     "with __ushort_as_half(bits)"),
]
_TYPE_WORDS = ("void|bool|char|short|int|long|unsigned|signed|float|double|"
               + "|".join(sorted(TYPEDEFS)))
_REFERENCE = re.compile(rf"\b(?:{_TYPE_WORDS})\s*\*?\s*&\s*[A-Za-z_]\w*\s*[,)=;]")


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _coord_of(text: str, pos: int, filename: str) -> Coord:
    """Coordinate of a position in preprocessed text, honouring #line directives."""
    line_no = 1
    fname = filename
    start = 0
    for m in re.finditer(r"^[ \t]*#\s*line\s+(\d+)(?:\s+\"([^\"]*)\")?[^\n]*\n", text[:pos], re.M):
        line_no = int(m.group(1))
        fname = m.group(2) or fname
        start = m.end()
    seg = text[start:pos]
    line = line_no + seg.count("\n")
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return Coord(fname, line, col)


def _match_brace(text: str, open_pos: int) -> int:
    depth = 0
    i = open_pos
    n = len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            i = skip_string(text, i)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


# a reference parameter: T &x, or T &&x (a forwarding reference in a template: what it binds
# to, a variable or a temporary, is the same binding as T &'s)
_REF_PARAM = re.compile(r"\s*(?:[A-Za-z_]\w*\s+)*[A-Za-z_]\w*\s*\**\s*(&&?)\s*[A-Za-z_]\w*\s*$")
_NOT_FUNCTIONS = frozenset(("if", "while", "for", "switch", "return", "sizeof"))


def reference_params(text: str, filename: str) -> tuple[str, dict[str, frozenset], dict[str, dict]]:
    """C++ reference parameters of functions (``void f(float &a, const P &p)``): the ``&``
    blanked (length-preserving) and, per function, the indices of its reference
    parameters, which the lowering binds to the caller's variable or memory instead of
    a copy.  A kernel cannot take one (its arguments come from the host): an error there.
    Default arguments (``float s = 2.0f``) are blanked too and returned per function as
    ``{index: (Coord of the expression, its text)}`` (``default_exprs`` parses them).
    A function returning a reference (``float &at(float *p, int i)``) has its ``&`` blanked
    too and the index -1 among its reference parameters (the caller gets the variable its
    ``return`` names, ``simt.methods``).  Only file-scope declarators are read (``extern
    "C" { ... }`` counts as file scope); a reference variable inside a function stays
    outside the subset."""
    extern_braces = set()
    for m in re.finditer(r'extern\s*"C"\s*\{', text):
        extern_braces.update((m.end() - 1, _match_brace(text, m.end() - 1)))
    out = list(text)
    refs: dict[str, set] = {}
    defaults: dict[str, dict[int, tuple[Coord, str]]] = {}
    depth, last_end = 0, 0
    for m in re.finditer(r"[{};]|\b([A-Za-z_]\w*)\s*\(", text):
        tok = m.group(0)
        if tok in "{}":
            if m.start() not in extern_braces:
                depth += 1 if tok == "{" else -1
            last_end = m.end()
            continue
        if tok == ";":
            last_end = m.end() if depth == 0 else last_end
            continue
        if depth != 0 or m.group(1) in _NOT_FUNCTIONS:
            continue
        close = close_paren(text, m.end())
        is_function = re.match(r"\s*(?:const\s*)?[{;]", text[close:close + 80]) is not None
        rm = re.search(r"[\w>]\s*(?<!&)(&)\s*$", text[last_end:m.start()]) if is_function else None
        if rm:                                          # T &f(...): returns a reference
            out[last_end + rm.start(1)] = " "
            refs.setdefault(m.group(1), set()).add(-1)
        for k, (a, b) in enumerate(split_spans(text, m.end(), close - 1)):
            eq = re.search(r"(?<![=!<>])=(?!=)", text[a:b]) if is_function else None
            if eq:
                pos = a + eq.end()
                defaults.setdefault(m.group(1), {})[k] = (_coord_of(text, pos, filename), text[pos:b])
                out[a + eq.start():b] = _blank(text[a + eq.start():b])
                b = a + eq.start()
                while b > a and text[b - 1].isspace():
                    b -= 1
            pm = _REF_PARAM.match(text, a, b)
            if not pm or pm.end() != b:
                continue
            amp = pm.start(1)
            if re.search(r"\b__global__\b", text[last_end:m.start()]):
                raise CompileError("a kernel's parameters cannot be C++ references (T &x): "
                                   "its arguments come from the host; pass a pointer",
                                   _coord_of(text, amp, filename))
            out[amp:pm.end(1)] = " " * (pm.end(1) - amp)
            refs.setdefault(m.group(1), set()).add(k)
    return "".join(out), {k: frozenset(v) for k, v in refs.items()}, defaults


_DEFAULT_FN = "__simt_default_"


def default_snippets(defaults: dict[str, dict]) -> tuple[str, list]:
    """Each default argument's expression as a function of its own, ``__simt_default_<i>``,
    to append to the file (so that its typedefs and constants are in scope) with a
    ``#line`` that puts it where it was written; and the (function, parameter index,
    column of the expression, length of the text before it on its line) of each."""
    parts, keys = [], []
    for fn, ks in defaults.items():
        for k, (co, expr) in ks.items():
            head = f"void {_DEFAULT_FN}{len(keys)}(void) {{ return "
            parts.append(f'\n#line {co.line} "{co.file}"\n{head}{expr}; }}\n')
            keys.append((fn, k, co.col, len(head)))
    return "".join(parts), keys


def default_exprs(tree, keys: list) -> dict[str, dict]:
    """Take the ``default_snippets`` functions out of the parsed file: per function, its
    default arguments' expressions by parameter index, their columns those of the source."""
    out: dict[str, dict] = {}
    if not keys:
        return out
    from pycparser import c_ast
    kept = []
    for ext in tree.ext:
        name = ext.decl.name if isinstance(ext, c_ast.FuncDef) else ""
        if not name.startswith(_DEFAULT_FN):
            kept.append(ext)
            continue
        fn, k, col, head = keys[int(name[len(_DEFAULT_FN):])]
        expr = ext.body.block_items[0].expr
        first = expr.coord.line if expr.coord is not None else None
        stack = [expr]
        while stack:
            node = stack.pop()
            c = node.coord
            if c is not None and c.line == first and c.column:
                node.coord = type(c)(c.file, c.line, c.column - head + col - 1)
            stack.extend(ch for _, ch in node.children())
        out.setdefault(fn, {})[k] = expr
    tree.ext[:] = kept
    return out


# a declarator ``T &x = ...`` (or ``T *&p = ...``) inside a function: the word before the
# '&' is the type's last word (a keyword such as return or case cannot end a type)
_LOCAL_REF = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\*\s*)*(?:\bconst\s*)?(?<!&)&(?!&)\s*([A-Za-z_]\w*)\s*=(?!=)")
_NOT_TYPES = frozenset(("return", "case", "sizeof", "goto", "else", "do", "throw"))


def local_references(text: str, filename: str) -> tuple[str, frozenset]:
    """Reference variables declared in function bodies (``float &x = a[i];``,
    ``const P &p = ps[k];``, ``auto &v = ...``): the ``&`` blanked (length-preserving) and
    the set of ``(file, line, name)`` of each such declarator, which the lowering binds to
    its initializer's register or memory instead of copying it.  Only a declaration with
    an initializer is one (C++ requires it), which also keeps ``a & b`` expressions out."""
    out = list(text)
    found = set()
    depth = 0
    marks = [(m.start(), m.group(0)) for m in re.finditer(r"[{}]", text)]
    k = 0
    for m in _LOCAL_REF.finditer(text):
        while k < len(marks) and marks[k][0] < m.start():
            depth += 1 if marks[k][1] == "{" else -1
            k += 1
        if depth <= 0 or m.group(1) in _NOT_TYPES:
            continue
        amp = text.index("&", m.end(1))
        out[amp] = " "
        co = _coord_of(text, m.start(2), filename)
        found.add((co.file, co.line, m.group(2)))
    return "".join(out), frozenset(found)


_CAST = re.compile(r"\b(?:static|reinterpret|const)_cast\s*<")


def _c_casts(text: str, filename: str) -> str:
    """``static_cast<T>(e)`` (and reinterpret_cast, const_cast) -> ``((T)(e))``, padded so
    that the text after the closing parenthesis keeps its column."""
    from .templates import angle_call
    while True:
        m = _CAST.search(text)
        if not m:
            return text
        got = angle_call(text, m.end() - 1)
        if got is None:
            raise CompileError("cannot read this C++ cast; write a C cast such as (int*)p",
                               _coord_of(text, m.start(), filename))
        close, po = got
        depth, i = 0, po
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        if i >= len(text):
            raise CompileError("unbalanced parentheses after this cast", _coord_of(text, m.start(), filename))
        head = f"(({' '.join(text[m.end():close].split())})("
        head = head + " " * max(0, po + 1 - m.start() - 1 - len(head))
        text = text[:m.start()] + head + text[po + 1:i] + "))" + text[i + 1:]


_FUNCTIONAL = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\b('
                         + "|".join(n for n, _ in FUNCTIONAL_CASTS.values()) + r")(?=\s*\((?!\s*\*))")
_PLACEHOLDER = {n: p for p, (n, _) in FUNCTIONAL_CASTS.items()}


def _functional_casts(text: str) -> str:
    """``T(e)`` for T in ``ctypes_.FUNCTIONAL_CASTS`` (``__half(0.5f)``, ``float(h)``): the
    type name becomes its placeholder, a function the lowering reads as the cast (strings
    and declarators such as ``float (*p)[4]`` are left alone)."""
    return _FUNCTIONAL.sub(lambda m: _PLACEHOLDER[m.group(1)] if m.group(1) else m.group(0), text)


def rewrite_cuda(text: str, filename: str) -> str:
    """Length-preserving rewrite of CUDA words into the C23 the parser reads."""
    text = _functional_casts(_c_casts(inlineasm.translate(text, filename, _coord_of), filename))
    for rx, msg in _CPP_WORDS:
        m = rx.search(text)
        if m:
            raise CompileError(msg, _coord_of(text, m.start(), filename))
    m = _REFERENCE.search(text)
    if m:
        raise CompileError("a C++ reference must be initialized where it is declared (T &x = v;), "
                           "and a struct cannot hold one",
                           _coord_of(text, text.index("&", m.start()), filename))
    # extern "C" { ... }  -> blank the words and the braces
    out = list(text)
    for m in re.finditer(r'extern\s*"C"\s*\{', text):
        close = _match_brace(text, m.end() - 1)
        if close < 0:
            raise CompileError('unbalanced braces after extern "C" {', _coord_of(text, m.start(), filename))
        out[m.start():m.end()] = _blank(m.group(0))
        out[close] = " "
    text = "".join(out)
    text = re.sub(r'extern\s*"C"', lambda m: _blank(m.group(0)), text)

    def attr_first(word: str, attr: str):
        rx = re.compile(r"((?:\b(?:extern|static|volatile|const|inline|constexpr)\b\s+)+)" + word + r"\b")

        def sub(m):
            g = m.group(1)
            new = attr + " " + g.rstrip()
            return new + " " * (len(m.group(0)) - len(new))
        return rx, sub

    # a __managed__ variable is a __device__ one the host also reaches (no copies): the
    # device sees the same variable, so simt reads it as __device__ (``--symbol`` sets it)
    text = re.sub(r"\b__device__(\s+)__managed__\b", lambda m: "__device__" + m.group(1) + " " * 11, text)
    text = re.sub(r"\b__managed__(\s+)__device__\b", lambda m: " " * 11 + m.group(1) + "__device__", text)
    text = re.sub(r"\b__managed__\b", "__device__ ", text)
    # (blanked first, so that inline __host__ __device__ float f() puts the attribute first)
    for w in ("__host__", "__forceinline__", "__inline__", "__noinline__", "__grid_constant__"):
        text = re.sub(r"\b" + w + r"\b", " " * len(w), text)
    for word, attr in (("__shared__", "[[shared]]"), ("__constant__", "[[constant]]"),
                       ("__device__", "[[device]]"), ("__global__", "[[global]]")):
        rx, sub = attr_first(word, attr)
        text = rx.sub(sub, text)
        text = re.sub(r"\b" + word + r"\b", attr, text)
    text = re.sub(r"\b__restrict__\b", "restrict    ", text)
    text = re.sub(r"\b__restrict\b", "restrict  ", text)
    text = re.sub(r"\bnullptr\b", "0      ", text)
    # C++17's if constexpr: both branches are read (they must both be valid for the types
    # at hand, which C++ asks only of the one taken in a template); the test is the same
    text = re.sub(r"\bif(\s+)constexpr\b", lambda m: "if" + m.group(1) + " " * 9, text)

    def blank_call(word: str, s: str) -> str:
        while True:
            m = re.search(r"\b" + word + r"\s*\(", s)
            if not m:
                return s
            depth, i = 0, m.end() - 1
            while i < len(s):
                if s[i] == "(":
                    depth += 1
                elif s[i] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            s = s[:m.start()] + _blank(s[m.start():i + 1]) + s[i + 1:]

    text = blank_call("__launch_bounds__", text)
    text = blank_call("__align__", text)
    text = blank_call("__attribute__", text)
    return _struct_tags_as_types(text)


def _struct_tags_as_types(text: str) -> str:
    """C++ (and CUDA) lets ``struct P { ... };`` be used as ``P``; C needs a typedef.
    After each file-scope struct (or union) definition not already inside a typedef,
    append ``typedef struct P P;`` on the same line (the one place this rewrite adds text)."""
    out, pos, depth = [], 0, 0
    for m in re.finditer(r"\b(struct|union)\s+([A-Za-z_]\w*)\s*\{|[{}]", text):
        tok = m.group(0)
        if tok == "}":
            depth -= 1
            continue
        depth += 1                       # a "{", or the one that opens the struct's body
        if tok == "{" or depth != 1 or re.search(r"\btypedef\s*$", text[max(0, m.start() - 40):m.start()]):
            continue
        close = _match_brace(text, m.end() - 1)
        semi = text.find(";", close) if close >= 0 else -1
        if semi < 0:
            continue
        name = m.group(2)
        out.append(text[pos:semi + 1] + f" typedef {m.group(1)} {name} {name};")
        pos = semi + 1
    out.append(text[pos:])
    return "".join(out)


@functools.cache
def _unit_class():
    from pycparser import c_ast

    class Unit(c_ast.FileAST):
        """A FileAST with what the template expander made (``parse``)."""
        __slots__ = ("simt_names", "simt_templates", "simt_refs", "simt_defaults", "simt_local_refs",
                     "simt_classes", "simt_lambdas", "simt_host")
    return Unit


def _template_columns(tree, expander, names, class_table=None, lambda_table=None) -> None:
    """Give the nodes of each template instance the template's own columns (a member
    function of a class template's instance: the class template's; a lambda's operator():
    those of the function it is defined in)."""
    from pycparser import c_ast

    owners = {lam.ident: lam.owner for lam in (lambda_table or {}).values()}
    for ext in tree.ext:
        if not isinstance(ext, c_ast.FuncDef):
            continue
        key = owners.get(ext.decl.name, ext.decl.name)
        if key not in names:
            m = class_table.by_ident.get(key) if class_table is not None else None
            key = m.cls if m is not None and m.cls in names else None
        if key is None:
            continue
        stack = [ext]
        while stack:
            node = stack.pop()
            c = node.coord
            if c is not None and c.line:
                line, col = expander.colmap(key, c.line, c.column or 0)
                node.coord = type(c)(c.file, line, col)
            stack.extend(ch for _, ch in node.children())


_PARSE_ERR = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$", re.S)


def parse(text: str, filename: str = "<kernel>", requests=()):
    """Parse CUDA C source text; returns a pycparser FileAST. Raises CompileError.

    ``requests``: template instances to write in (``simt.templates.Instance``); the AST
    carries ``simt_names`` (instance identifier -> C++ spelling) and ``simt_templates``
    (the file's ``simt.templates.Expander``)."""
    from pycparser import c_ast, c_parser
    from pycparser.c_parser import ParseError

    from .templates import Expander

    Unit = _unit_class()
    pre = limits.rewrite(std_functions(digit_separators(preprocess(text, filename))), filename, _coord_of)
    pre, host = hostcode.blank(pre)
    pre = rangefor.rewrite(pre, filename, _coord_of)
    host_names = {name: (kind, _coord_of(pre, pos, filename)) for kind, name, pos in host}
    pre = namespaces.rewrite(coop.rewrite(cstring.rewrite(pre, filename), filename), filename)
    pre = smem_struct.rewrite(pre, filename)
    pre, enum_names = enums.rewrite(pre, filename)
    expander = Expander(pre, filename, enum_names)
    pre, names = expander.expand(requests)
    pre, class_table = classes.rewrite(pre, filename)
    pre, lambda_table = lambdas.rewrite(pre, filename, class_table)
    pre, refs, defaults = reference_params(pre, filename)
    pre, local_refs = local_references(pre, filename)
    for ident, ks in class_table.defaults.items():   # members defined outside their class
        defaults.setdefault(ident, ks)
    tail, default_keys = default_snippets(defaults)
    pre += tail
    # C23's auto takes a plain identifier: ``auto *p = q`` deduces the same pointer type
    pre = re.sub(r"\bauto((?:\s*\*)+)", lambda m: "auto" + _blank(m.group(1).replace("*", " ")), pre)
    body = rewrite_cuda(pre, filename)
    if not re.match(r"\s*#\s*line", body):
        body = f'#line 1 "{filename}"\n' + body
    src = _PRELUDE + (lambdas.PRELUDE if lambda_table else "") + body
    class _Parser(c_parser.CParser):
        def _parse_error(self, msg, coord):
            if not hasattr(coord, "line"):  # only a file name: use the next token's place
                tok = self._peek()
                if tok is not None:
                    coord = self._tok_coord(tok)
                    msg = f"{msg} before '{tok.value}'"
            raise ParseError(f"{coord}: {msg}")

        # C++: T(args) and T{args} as expressions, T v(args); and T v{args}; as declarations
        def _starts_expression(self, tok=None):
            if super()._starts_expression(tok):
                return True
            t = tok or self._peek()
            return (tok is None and t is not None and t.type == "TYPEID"
                    and self._peek_type(2) in ("LPAREN", "LBRACE"))

        def _parse_primary_expression(self):
            tok = self._peek()
            if tok is not None and tok.type == "TYPEID" and self._peek_type(2) in ("LPAREN", "LBRACE"):
                self._advance()
                coord = self._tok_coord(tok)
                name = c_ast.ID(tok.value, coord)
                if self._peek_type() == "LBRACE":
                    init = self._parse_initializer()
                    return classes.BraceCall(name, c_ast.ExprList(list(init.exprs), coord), coord)
                self._advance()
                args = None
                if not self._accept("RPAREN"):
                    args = self._parse_argument_expression_list()
                    self._expect("RPAREN")
                return c_ast.FuncCall(name, args, coord)
            return super()._parse_primary_expression()

        # C++: return {a, b}; and f({a, b}): a braced list that initializes the function's
        # return value or the parameter (``Lowerer.braced``)
        def _parse_jump_statement(self):
            if self._peek_type() == "RETURN" and self._peek_type(2) == "LBRACE":
                tok = self._advance()
                brace = self._tok_coord(self._peek())
                init = self._parse_initializer()
                init.coord = brace                      # the list's place: its '{'
                self._expect("SEMI")
                return c_ast.Return(init, self._tok_coord(tok))
            return super()._parse_jump_statement()

        def _parse_argument_expression_list(self):
            exprs = []
            while True:
                if self._peek_type() == "LBRACE":
                    brace = self._tok_coord(self._peek())
                    exprs.append(self._parse_initializer())
                    exprs[-1].coord = brace
                else:
                    exprs.append(self._parse_assignment_expression())
                if not self._accept("COMMA"):
                    return c_ast.ExprList(exprs, exprs[0].coord)

        def _parse_init_declarator(self, id_only=False):
            if len(self._scope_stack) > 1 and self._peek_type() == "ID":
                nxt, third = self._peek_type(2), self._peek(3)
                # T v(U{...}) and T v(U(1, ...)) construct v (they cannot declare a function)
                typed_arg = third is not None and third.type == "TYPEID" and (
                    self._peek_type(4) == "LBRACE" or self._peek_type(4) == "LPAREN" and
                    self._peek_type(5) not in (None, "ID", "TYPEID", "RPAREN", "TIMES", "LPAREN")
                    and not self._starts_declaration(self._peek(5)))
                direct = nxt == "LPAREN" and third is not None and (typed_arg or (
                    third.type not in ("RPAREN", "ELLIPSIS") and not self._starts_declaration(third)))
                if direct or nxt == "LBRACE":
                    tok = self._advance()
                    decl = c_ast.TypeDecl(declname=tok.value, type=None, quals=None, align=None,
                                          coord=self._tok_coord(tok))
                    decl.attributes = []
                    if nxt == "LBRACE":
                        return {"decl": decl, "init": self._parse_initializer()}
                    lp = self._advance()
                    args = self._parse_argument_expression_list()
                    self._expect("RPAREN")
                    return {"decl": decl, "init": classes.CtorInit(list(args.exprs), self._tok_coord(lp))}
            return super()._parse_init_declarator(id_only)

    parser = _Parser(dialect="c23")
    try:
        tree = parser.parse(src, filename)
        defaults = default_exprs(tree, default_keys)
        _template_columns(tree, expander, names, class_table, lambda_table)
        unit = Unit(tree.ext, tree.coord)
        unit.simt_names = names
        unit.simt_templates = expander
        unit.simt_refs = refs
        unit.simt_defaults = defaults
        unit.simt_local_refs = local_refs
        unit.simt_classes = class_table
        unit.simt_lambdas = lambda_table
        unit.simt_host = host_names
        return unit
    except ParseError as e:
        msg = str(e)
        m = _PARSE_ERR.match(msg)
        if m:
            detail = m.group("msg")
            detail = detail.replace("before: ", "syntax error before '").rstrip()
            if detail.startswith("syntax error before '"):
                detail += "'"
            raise CompileError(detail, Coord(m.group("file") or filename, int(m.group("line")),
                                             int(m.group("col")))) from None
        raise CompileError(f"syntax error: {msg}", Coord(filename, 1)) from None
    except Exception as e:  # the lexer raises plain exceptions for bad characters
        raise CompileError(f"cannot parse: {e}", Coord(filename, 1)) from None
