"""Lowering: pycparser AST -> ``KernelIR`` with C (C++-as-NVRTC) typing.

Semantic errors (undeclared names, calls NVRTC would reject, constructs outside the
subset) raise ``CompileError`` naming ``file:line:col``.  ``__device__`` functions are
inlined at each call (recursion is rejected).  ``a * b + c`` on floats is contracted to
one fused multiply-add, as nvcc does by default (``-fmad=true``), so float results match
the GPU bit for bit.  A local reference variable (``float &x = a[i];``) names its
initializer's register or memory; ``auto`` takes its initializer's type; a struct or
vector kernel parameter passed by value is one launch uniform per member.

``__half`` is typed as ``cuda_fp16.hpp`` types it: a class whose operators ``+ - * /``
and comparisons take two halves (``__hadd``, ``__heq`` ...; the result rounded once to
half), whose compound assignments convert their right side to half (``h += 0.5f``), and
which converts implicitly to and from every arithmetic type where one target type is
asked for (initialization, assignment, arguments, ``return``, casts, conditions).  An
operator between a half and another arithmetic type is ambiguous there (the half may
become a float or an integer, or the other operand a half), and NVRTC rejects it: so
does the lowering, naming the place.  ``a * b + c`` on halves is one ``fma.rn.f16``, as
ptxas contracts ``__hmul`` and ``__hadd`` under ``--fmad=true``.  ``__half2`` values take
the same operators ``+ - * /`` (and unary ``-``, ``+=`` ...) half by half.
``__nv_bfloat16`` (``cuda_bf16.hpp``) is typed the same way, its values uint16 bit
patterns that only ``simt.ops.BF16_BINOPS`` / ``BF16_CALLS`` read (``b_add``,
``m_bcvt_rn``, ``m_b2f`` ...): every conversion from or to it goes through those, never
through a C cast of the bits; ``a * b + c`` on them is one ``fma.rn.bf16`` (``m_bfma``).

A struct member may be a fixed-size array (``float v[4]``, ``float m[2][3]``, arrays of
structs), with C's layout (``simt.ctypes_``).  A variable of such a struct type (a local,
a device function's by-value parameter, a kernel's by-value parameter the body modifies)
lives in the thread's local frame, as a local array does, so its array members are
indexed like local arrays, by constants or by values; in memory (global, shared) the
member is an address like any other.  A value of it in registers (a function's result,
a by-value kernel parameter read in place) holds every element as a leaf
(``_leaves``: ``v[0]``, ``v[1]`` ...); an index into it picks one, a run-time index
through a chain of selects.

A union's value is its bytes (``simt.ctypes_.Union.words``); a union variable (or a
struct holding one) always lives in the local frame, where its members share their
bytes, and a member of a union value in registers is read through a local slot.  C++
classes' member functions, constructors and operators are ``simt.methods``'.

Limitations: struct members are scalars, pointers, vector types, other structs, unions
and fixed-size arrays of them (no flexible array members, no bit-fields, no anonymous
members), no ``goto``, no recursion, no ``__shared__`` variables at file scope.  The address
of a variable held in registers (``&lo``) is a ``RegTarget``: followed only through ``*p``,
``p->m`` and ``p[0]`` (in the function it is passed to, or a pointer variable initialized
with it), each the variable itself, as nvcc's inlining makes it; any other use of it as an
address is an error, where the GPU would move the variable to local memory.  File-scope ``__constant__`` and ``__device__`` variables
(scalars, vectors, pointer-free structs and arrays of them, constant initializers) are module memory (``ModuleVar``);
a file-scope ``const`` scalar is a compile-time constant.  A variable of a struct type
with an array member is always in local memory, so ``p[i] = q`` after ``q = p[i]``
stores every member (``simt.cse`` drops the unchanged ones only for structs in
registers), where nvcc, keeping ``q`` in registers when every index is a constant,
stores only the changed ones.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
from pycparser import c_ast

from . import ctypes_ as T
from .ctypes_ import Array, CType, Pointer, Scalar, Struct, Union, Vector, usual_arith
from .classes import MEMINIT, MEMLIST, CtorInit
from .cse import eliminate_common_loads
from .licm import hoist_condition_loads
from .curand import OVERLOADS as CURAND_OVERLOADS
from .errors import CompileError, Coord
from .intrinsics import INTRINSICS, lower_intrinsic
from .ir import Const, Ins, KernelIR, Op, Reg, Uniform
from .lambdas import AUTO, DEDUCED, LambdaLowering
from .lambdas import PREFIX as LAMBDA_PREFIX
from .methods import ClassLowering
from .spaces import LOCAL_BASE, SHARED_ALIGN, SHARED_BASE


@dataclass
class Param:
    """A kernel parameter: a scalar or pointer is one launch uniform; a struct or vector
    passed by value is one uniform per leaf member (``fields``: ``(path, CType, byte
    offset, Uniform)`` in ``_leaves`` order, ``uniform`` None), bound from the argument's
    bytes (``simt.byvalue``)."""
    name: str
    ctype: CType
    uniform: Uniform | None
    fields: list | None = None
    restrict: bool = False           # a pointer declared ``__restrict__``

    @property
    def is_pointer(self) -> bool:
        return isinstance(self.ctype, Pointer)

    @property
    def dtype(self) -> np.dtype:
        t = self.ctype.base if isinstance(self.ctype, Pointer) else self.ctype
        if isinstance(t, Scalar):
            return t.dtype
        if isinstance(t, Vector):
            return t.elem.dtype
        if isinstance(t, Struct):
            return t.dtype
        return np.dtype(np.uint8)

    @property
    def ctype_str(self) -> str:
        return str(self.ctype)

    def __str__(self) -> str:
        return f"{self.ctype} {self.name}".replace("* ", "*")


@dataclass
class Val:
    """An rvalue: one operand (scalars, pointers) or one per field (vector types)."""
    ctype: CType
    op: object = None
    fields: list | None = None


@dataclass
class LVal:
    ctype: CType
    kind: str                     # "reg" | "mem" | "vreg" (vector in registers)
    reg: Reg | None = None
    addr: object = None           # operand holding the address (mem)
    fields: list | None = None    # vreg: the field registers
    name: str = ""
    const: bool = False           # reached through a pointer to const
    volatile: bool = False        # ... or to volatile (simt.cse never merges its loads)


@dataclass(eq=False)
class RegTarget:
    """The address of a variable nvcc keeps in registers (``&lo`` for ``float lo``): the
    value of a pointer that only ``*p``, ``p->m`` and ``p[0]`` may follow, each naming the
    variable itself, as a pointer parameter bound to ``&lo`` becomes after nvcc inlines
    the callee (``minmax(x, &lo, &hi)``).  It never reaches an instruction: using it as
    an address (arithmetic, a store, a cast to another type, an atomic) is an error
    (``KernelBuilder.emit``), where the GPU would move the variable to local memory."""
    lv: "LVal"
    coord: Coord

    def error(self) -> str:
        return (f'the address of local variable "{self.lv.name}" (taken at line '
                f"{self.coord.line}) is used here as an address: simt follows a pointer to a "
                "register variable only through *p, p->m and p[0], which nvcc's inlining turns "
                "into the variable itself; declare it as a one-element array to use its address "
                "otherwise")


@dataclass
class Sym:
    kind: str                     # "var" | "param" | "array" (address constant) | "vvar"
                                  # | "regptr" (a pointer holding a RegTarget)
    ctype: CType
    op: object = None             # Reg / Uniform / Const(address)
    fields: list | None = None
    volatile: bool = False        # a volatile array or shared variable (simt.cse)
    const: bool = False           # memory a reference to const names
    value: object = None          # a constexpr/const integer local's value (``const_int``)


def _ref_sym(lv: LVal) -> Sym:
    """What a reference parameter's name stands for in the inlined body: the caller's
    register(s), or the memory its lvalue names (the address computed once, at the call)."""
    if lv.kind == "reg":
        return Sym("var", lv.ctype, lv.reg)
    if lv.kind == "vreg":
        return Sym("vvar", lv.ctype, None, lv.fields)
    return Sym("array" if isinstance(lv.ctype, Array) else "mem", lv.ctype, lv.addr,
               volatile=lv.volatile, const=lv.const)


@dataclass
class ModuleVar:
    """A ``__constant__`` or ``__device__`` variable: module memory that every kernel of
    the file sees, allocated on a device at its first launch (``Device.module_var``) and
    kept there, as CUDA keeps a module's globals for the life of the context."""
    name: str
    ctype: CType
    dtype: np.dtype               # its scalar elements'
    space: str                    # "constant" | "global"
    init: np.ndarray              # its initial bytes (C zero-fills what is not initialized)
    const: bool                   # device code cannot write it (__constant__ or const)
    coord: Coord
    literal: bool = False         # a string literal's bytes (``name``: its text, quoted)

    @property
    def shape(self) -> tuple:
        return T.array_dims(self.ctype)[0]

    @property
    def initial(self) -> np.ndarray:
        """Its initial values, shaped like it (what a fresh module holds)."""
        return np.frombuffer(self.init.tobytes(), self.dtype).reshape(self.shape)

    @property
    def uniform_name(self) -> str:
        """The launch-time uniform holding its address (``Launch._bind``)."""
        return ("csym." if self.space == "constant" else "gsym.") + self.name


def _is_half(t) -> bool:
    return isinstance(t, Scalar) and t.is_half


def _is_bf16(t) -> bool:
    return isinstance(t, Scalar) and t.is_bf16


def _agg(t) -> bool:
    """A value of several fields: a built-in vector type or a user's struct."""
    return isinstance(t, (Vector, Struct))


def _members(t) -> list:
    """[(name, CType, byte offset)] of a vector type or struct."""
    if isinstance(t, Vector):
        return [(f, t.elem, k * t.elem.size) for k, f in enumerate(t.fields)]
    return list(t.members)


def _leaves(t, off: int = 0, path: str = "") -> list:
    """[(path, scalar or pointer CType, byte offset)] of an aggregate, nested vector and
    struct members and array members' elements flattened in order (``p.v[1]``): the
    registers a value of it lives in.  A union's are its bytes, as words (``Union.words``)."""
    if isinstance(t, Union):
        return [(path + n, wt, off + o) for n, wt, o in t.words]
    out = []
    for n, mt, o in _members(t):
        out += _value_leaves(mt, off + o, path + n)
    return out


def _value_leaves(t, off: int, path: str) -> list:
    """``_leaves`` of a value of any type named ``path``: itself when it is a scalar or a
    pointer, its elements' leaves when it is an array (``v[0]``, ``v[1]`` ...)."""
    if isinstance(t, Array):
        es = T.sizeof(t.elem)
        return [x for k in range(t.length) for x in _value_leaves(t.elem, off + k * es, f"{path}[{k}]")]
    if _agg(t):
        return _leaves(t, off, path + ".")
    return [(path, t, off)]


def _nleaves(t) -> int:
    """How many leaves (registers) a value of ``t`` has."""
    return len(_value_leaves(t, 0, ""))


def _has_array(t) -> bool:
    """A struct with an array member, or a union, at any depth (its variables live in local
    memory: a union because its members share their bytes)."""
    return isinstance(t, Union) or isinstance(t, Struct) and any(
        isinstance(mt, Array) or _has_array(mt) for _, mt, _ in t.members)


def _has_union(t) -> bool:
    """A union, or a struct holding one (or an array of them), at any depth."""
    while isinstance(t, Array):
        t = t.elem
    return isinstance(t, Union) or isinstance(t, Struct) and any(_has_union(mt) for _, mt, _ in t.members)


def _member_slots(t, k: int) -> slice:
    """The registers (of ``_leaves``) member k of an aggregate occupies."""
    mem = _members(t)
    start = sum(_nleaves(mt) for _, mt, _ in mem[:k])
    return slice(start, start + _nleaves(mem[k][1]))


def _modified_names(body, ref_callees=frozenset(), ref_vars=frozenset(),
                    indexed=False, methods=frozenset()) -> set[str]:
    """Variables a function body may modify, whole or a member of them: the name at the
    root of a ``.`` chain (``n``, ``p.a.x``) that is assigned to (=, op=), incremented,
    passed to a function (or template) in ``ref_callees``, which may write it through a
    reference parameter, or bound to a reference variable named in ``ref_vars``.
    ``indexed``: the chain may go through subscripts too (``p.v[j] = 1`` modifies a
    struct ``p`` with an array member ``v``, or writes through a pointer member).
    ``methods``: the names of non-const member functions (``simt.classes``): calling one
    on ``p`` (``p.scale(2)``) may modify ``p``; so may ``p[i] = v`` and ``p(x)`` where a
    class defines a non-const ``operator[]`` or ``operator()``."""
    out: set[str] = set()
    indexed = indexed or "operator[]" in methods

    def root(e):
        while isinstance(e, c_ast.StructRef) and e.type == "." or indexed and isinstance(e, c_ast.ArrayRef):
            e = e.name
        if isinstance(e, c_ast.ID):
            out.add(e.name)

    class V(c_ast.NodeVisitor):
        def visit_Decl(self, n):
            if n.name in ref_vars and n.init is not None:
                root(n.init)
            self.generic_visit(n)

        def visit_FuncCall(self, n):
            if isinstance(n.name, c_ast.ID) and n.name.name in ref_callees and n.args is not None:
                for a in n.args.exprs:
                    root(a)
            if isinstance(n.name, c_ast.StructRef) and n.name.type == "." and n.name.field.name in methods \
                    or isinstance(n.name, c_ast.ID) and "operator()" in methods:
                root(n.name.name if isinstance(n.name, c_ast.StructRef) else n.name)
            self.generic_visit(n)

        def visit_Assignment(self, n):
            root(n.lvalue)
            self.generic_visit(n)

        def visit_UnaryOp(self, n):
            if n.op in ("++", "--", "p++", "p--", "&"):     # (&x: written through the pointer)
                root(n.expr)
            self.generic_visit(n)
    V().visit(body)
    return out


def _array_escapes(body, name: str, t) -> bool:
    """Whether ``body`` uses an array member of the struct variable ``name`` (of type ``t``)
    as an array, not element by element: decaying to a pointer (``float *q = p.v``) or
    under ``&`` (``&p.v[1]``, ``&p``), which needs the struct in memory.  (Any variable of
    that name counts, shadowing or not.)"""
    parent, ids, stack = {}, [], [body]
    while stack:
        n = stack.pop()
        for _, c in n.children():
            parent[id(c)] = n
            stack.append(c)
        if isinstance(n, c_ast.ID) and n.name == name:
            ids.append(n)
    for n in ids:
        up = parent.get(id(n))
        if isinstance(up, c_ast.StructRef) and up.field is n:
            continue                                   # a member's name, not the variable
        cur, ct = n, t
        while True:
            if isinstance(up, c_ast.StructRef) and up.type == "." and up.name is cur and _agg(ct):
                ct = next((mt for m, mt, _ in _members(ct) if m == up.field.name), None)
            elif isinstance(up, c_ast.ArrayRef) and up.name is cur and isinstance(ct, Array):
                ct = ct.elem
            else:
                break
            cur, up = up, parent.get(id(up))
        op = up.op if isinstance(up, c_ast.UnaryOp) else None
        if op == "&" or isinstance(ct, Array) and op != "sizeof":
            return True
    return False


_BUILTIN_VECS = {"threadIdx": "tid", "blockIdx": "ctaid", "blockDim": "ntid", "gridDim": "nctaid"}
_ARITH = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod",
          "&": "and", "|": "or", "^": "xor", "<<": "shl", ">>": "shr"}
_CMP = {"==": "eq", "!=": "ne", "<": "lt", ">": "gt", "<=": "le", ">=": "ge"}
# the operators cuda_fp16.hpp defines on two halves: their BIN operation (simt.ops.BINOPS)
_HALF_ARITH = {"+": "h_add", "-": "h_sub", "*": "h_mul", "/": "h_div"}
# and those cuda_bf16.hpp defines on two __nv_bfloat16 (the comparisons too)
_BF16_ARITH = {"+": "b_add", "-": "b_sub", "*": "b_mul", "/": "b_div"}
_BF16_ONE = np.uint16(0x3F80)
_PURE_CALLS = {n for n, spec in INTRINSICS.items() if spec.pure} | set(T.FUNCTIONAL_CASTS)


def _inferred(tnode) -> bool:
    """Whether a declarator's type is C23/C++ ``auto`` (``auto x``, ``auto *p``)."""
    while isinstance(tnode, (c_ast.PtrDecl, c_ast.TypeDecl)):
        tnode = tnode.type
    return isinstance(tnode, c_ast.InferredType)


def _const_decl(tnode) -> bool:
    """Whether a declarator's outermost referred-to type is const (``const T &x``)."""
    return "const" in (getattr(tnode, "quals", None) or ())


def _object_const(decl) -> bool:
    """Whether a declaration's object itself is const: ``const int x``, ``const float a[3]``
    and ``float *const p`` are; ``const float *p`` is not (its pointee is: ``p += 1`` is
    fine, ``*p = v`` is not)."""
    if isinstance(decl.type, c_ast.PtrDecl):
        return "const" in (decl.type.quals or ())
    return "const" in (decl.quals or ())


def c_string_bytes(raw: str) -> bytes:
    """The bytes of a C string literal as written (quoted, escapes and all; without the
    NUL): C's escapes decoded, other characters as the file's UTF-8."""
    body = raw[1:-1]
    return body.encode("utf-8").decode("unicode_escape").encode("latin-1")


def _plain_constant(node) -> bool:
    """Whether an initializer is made only of constants, names, casts and operators without
    side effects (no calls, assignments, ++/--): one ``KernelBuilder.folded`` may evaluate
    a second time without changing the code it keeps."""
    if isinstance(node, (c_ast.Constant, c_ast.ID, c_ast.Typename)):
        return True
    if isinstance(node, c_ast.UnaryOp):
        return node.op in ("-", "+", "~", "!", "sizeof") and _plain_constant(node.expr)
    if isinstance(node, c_ast.BinaryOp):
        return _plain_constant(node.left) and _plain_constant(node.right)
    if isinstance(node, c_ast.TernaryOp):
        return all(_plain_constant(n) for n in (node.cond, node.iftrue, node.iffalse))
    if isinstance(node, c_ast.Cast):
        return _plain_constant(node.expr)
    return False


def _spelling(t) -> str:
    """A type as the text of a template argument: a struct by its tag (``Pair__t1a2b3c4d``,
    a class template's instance), others as C spells them."""
    if isinstance(t, Pointer):
        return f"{'const ' if t.const else ''}{_spelling(t.base)} *"
    if isinstance(t, Struct) and t.name.startswith(LAMBDA_PREFIX):
        return f"struct {t.name}"           # a lambda's class has no typedef name
    return t.name if isinstance(t, Struct) else str(t)


def _coord(node, file: str) -> Coord:
    c = getattr(node, "coord", None)
    if c is None:
        return Coord(file, 0)
    return Coord(c.file or file, c.line or 0, c.column or 0)


class NeedInstance(Exception):
    """A deduced template instance the parsed text lacks (``simt.module`` re-parses)."""

    def __init__(self, inst):
        super().__init__(inst.display)
        self.inst = inst


class Lowerer:
    """Lowers one translation unit; ``kernel(name)`` builds the IR of one kernel."""

    def __init__(self, ast: c_ast.FileAST, filename: str):
        self.file = filename
        self.names: dict[str, str] = getattr(ast, "simt_names", {})   # instance ident -> C++ name
        self.templates = getattr(ast, "simt_templates", None)         # simt.templates.Expander
        # per function (its C++ name): the indices of its reference parameters (T &x)
        self.refs: dict[str, frozenset] = {self.names.get(k, k): v
                                           for k, v in getattr(ast, "simt_refs", {}).items()}
        # per function: its default arguments' expressions by parameter index
        self.defaults: dict[str, dict] = {self.names.get(k, k): v
                                          for k, v in getattr(ast, "simt_defaults", {}).items()}
        # (file, line, name) of each local reference variable (frontend.local_references)
        self.local_refs: frozenset = getattr(ast, "simt_local_refs", frozenset())
        self.funcs: dict[str, c_ast.FuncDef] = {}
        self.kernels: list[str] = []
        self.module_vars: dict[str, ModuleVar] = {}   # __constant__ / __device__ variables
        self.consts: dict[str, Val] = {}              # file-scope const scalars
        self.host_vars: dict[str, Coord] = {}         # other file-scope variables
        self.literals: dict[str, ModuleVar] = {}      # string literals used as pointers
        # host-only functions the front end blanked (simt.hostcode), and host variables of
        # types only host code has
        host = getattr(ast, "simt_host", None) or {}
        self.host_funcs: dict[str, Coord] = {n: co for n, (k, co) in host.items() if k == "function"}
        self.host_vars.update((n, co) for n, (k, co) in host.items() if k == "variable")
        self.typedefs: dict[str, CType] = {}           # file-scope typedefs
        self.structs: dict[str, Struct] = {}           # struct tags
        # C++ classes (simt.classes): their member functions by identifier (not callable by name)
        from .classes import ClassTable
        self.classes: ClassTable = getattr(ast, "simt_classes", None) or ClassTable()
        self.lambdas: dict = getattr(ast, "simt_lambdas", None) or {}   # tag -> simt.lambdas.Lambda
        self.methods: dict[str, c_ast.FuncDef] = {}
        self.has_ops = self.classes.has_operators
        self.construct_memo: dict = {}                 # simt.methods.needs_construction
        for ext in ast.ext:
            if isinstance(ext, c_ast.FuncDef) and ext.decl.name in self.classes.by_ident:
                self.methods[ext.decl.name] = ext
            elif isinstance(ext, c_ast.FuncDef):
                name = self.names.get(ext.decl.name, ext.decl.name)
                tm = self.templates
                if name in self.funcs or tm is not None and name in tm.by_name:
                    at = _coord(self.funcs[name], filename) if name in self.funcs else \
                        Coord(tm.by_name[name].file, tm.by_name[name].line)
                    raise CompileError(f'function "{name}" is defined twice (first at {at.file}:{at.line}; '
                                       "simt reads namespaces as one scope and has no overloading of "
                                       "functions, so a name may be defined once)", _coord(ext, filename))
                self.funcs[name] = ext
                if "global" in self._attrs(ext.decl):
                    self.kernels.append(name)
            elif isinstance(ext, c_ast.Decl) and not isinstance(ext.type, c_ast.FuncDecl):
                self._file_scope_var(ext)
            elif isinstance(ext, c_ast.Typedef):
                self.typedefs[ext.name] = KernelBuilder(self, None).ctype(ext.type)
            elif isinstance(ext, c_ast.Pragma):
                continue
            elif isinstance(ext, c_ast.StaticAssert):
                KernelBuilder(self, None).s_StaticAssert(ext)

    def _file_scope_var(self, node) -> None:
        """A variable declared outside every function: ``__constant__`` and ``__device__``
        variables (module memory, ``ModuleVar``), and ``const`` scalars with a constant
        initializer, which device code may read as compile-time constants."""
        attrs = self._attrs(node)
        co = _coord(node, self.file)
        b = KernelBuilder(self, None)
        ct = b.ctype(node.type)
        name = node.name
        if name is None:                 # enum { A, B = 4 };  (its enumerators are constants)
            return
        if "shared" in attrs:
            raise CompileError(f'__shared__ variable "{name}" at file scope is outside simt\'s '
                               "subset; declare it inside the kernel", co)
        quals = set(node.quals or ())
        if "constexpr" in set(node.storage or ()):
            quals.add("const")
        if not attrs & {"device", "constant"}:
            if "const" in quals and isinstance(ct, Scalar) and node.init is not None:
                self.consts[name] = b.const_value(node.init, ct)
            else:           # a host variable: device code cannot use it
                self.host_vars[name] = co
            return
        if "extern" in set(node.storage or ()):
            raise CompileError(f'extern variable "{name}": simt compiles one file (whole-program '
                               "mode); define it here", co)
        space = "constant" if "constant" in attrs else "global"
        if isinstance(ct, Array) and ct.length is None:
            if not isinstance(node.init, c_ast.InitList):
                raise CompileError(f'array "{name}" needs a size', co)
            ct = Array(ct.elem, len(node.init.exprs))
        elem = T.array_dims(ct)[1]
        what = f'{"__constant__" if space == "constant" else "__device__"} variable "{name}" of type {ct}'
        if isinstance(elem, Struct) and any(isinstance(lt, Pointer) for _, lt, _ in _leaves(elem)):
            raise CompileError(f"{what}: a struct with pointer members is outside simt's subset here", co)
        if not isinstance(elem, (Scalar, Vector, Struct)):
            raise CompileError(f"{what}: only scalars, vectors, structs and arrays of them are supported", co)
        init = np.zeros(T.sizeof(ct), np.uint8) if node.init is None else b.const_init(node.init, ct)
        dtype = elem.dtype if isinstance(elem, Scalar) else T.record_dtype(elem)
        self.module_vars[name] = ModuleVar(name, ct, dtype, space, init,
                                           "const" in quals or space == "constant", co)

    @staticmethod
    def _attrs(node) -> set[str]:
        names = set()
        for spec in getattr(node, "attributes", None) or []:
            for a in getattr(spec, "attributes", None) or []:
                names.add(a.name)
        return names

    def kernel(self, name: str) -> KernelIR:
        return KernelBuilder(self, self.funcs[name]).build()


class KernelBuilder(ClassLowering, LambdaLowering):
    def __init__(self, lw: Lowerer, fdef: c_ast.FuncDef):
        self.lw = lw
        self.file = lw.file
        self.fdef = fdef
        self.code: list[Ins] = []
        self.regs: list[Reg] = []
        self.uniform_names: list[str] = []
        self.uniforms: dict[str, Uniform] = {}
        self.depth = 0
        self.max_depth = 0
        self.folding = 0                 # > 0: const_int is evaluating (Sym.value applies)
        self.scopes: list[dict[str, Sym]] = [{}]
        self.static_shared = 0
        self.shared_symbols: list = []
        self.dyn_shared: list[tuple[str, CType, Coord]] = []
        self.local_frame = 0
        self.local_slots: list[tuple[int, int]] = []   # [start, end) of each local slot
        self.loops: list[tuple[int, int, list[Ins]]] = []   # (break level, continue level, continue jumps)
        self.funcs: list[tuple] = []    # inlining stack: (name, level, ret, rtype, ref state, C++ name)
        self.this_stack: list = []      # per inlined function: (Method, its object) or None
        self._type_memo: dict = {}      # id(node) -> (node, type): simt.methods.type_of_memo
        self.closure_refs: dict = {}    # a lambda's class -> what its by-reference captures name
        self.builtin_regs: dict[str, Reg] = {}
        self.fences: list[int] = []    # pcs a __threadfence() stands before (simt.cse)

    # ----------------------------------------------------------------- helpers
    def err(self, msg: str, node) -> CompileError:
        return CompileError(msg, _coord(node, self.file))

    def co(self, node) -> Coord:
        return _coord(node, self.file)

    def emit(self, op: Op, node, **kw) -> Ins:
        for a in kw.get("args", ()):
            if isinstance(a, RegTarget):
                raise self.err(a.error(), node)
        ins = Ins(op, self.co(node) if not isinstance(node, Coord) else node, self.depth, **kw)
        self.code.append(ins)
        return ins

    def reg(self, dtype, is_var=False, name="") -> Reg:
        r = Reg(len(self.regs), np.dtype(dtype), is_var, name)
        self.regs.append(r)
        return r

    def init_fields(self, t, init) -> list:
        """The leaf values (``_value_leaves``) of a brace initializer of an aggregate or an
        array: nested braces for nested members and elements, a value of the member's
        type, or, with the braces left out (C's brace elision), the values of the
        member's own leaves in order (``{1, 2, 3, 4, 5}`` for ``{float v[4]; int n;}``);
        what the initializer leaves out is zero."""
        if isinstance(t, Union):
            return self.union_leaves(t, init.exprs, init)
        out = []
        subs = [t.elem] * t.length if isinstance(t, Array) else [mt for _, mt, _ in _members(t)]
        k = 0
        for mt in subs:
            k = self.init_one(mt, init.exprs, k, out)
        if k < len(init.exprs):
            raise self.err("too many initializer values", init.exprs[k])
        return out

    def init_one(self, mt, exprs, k: int, out: list) -> int:
        """Append the leaves of one member (or element) of type ``mt`` initialized from
        ``exprs[k:]`` (``init_fields``) to ``out``; the index of the next expression."""
        e = exprs[k] if k < len(exprs) else None
        if e is None:
            out += [Const(np.zeros((), T.storage_dtype(lt))[()]) for _, lt, _ in _value_leaves(mt, 0, "")]
            return k
        aggregate = _agg(mt) or isinstance(mt, Array)
        if isinstance(mt, Union) and not isinstance(e, c_ast.InitList) and self.type_of(e) != mt:
            out += self.union_leaves(mt, [e], e)        # braces elided: the first member
            return k + 1
        if isinstance(mt, Array) and isinstance(e, c_ast.Constant) and e.type == "string":
            raise self.err("initializing a char array from a string literal is outside simt's "
                           "subset; give its characters in braces", e)
        if isinstance(e, c_ast.InitList):
            if not aggregate:
                raise self.err("brace initializer for a scalar", e)
            out += self.init_fields(mt, e)
        elif isinstance(mt, Array) or _agg(mt) and not _agg(self.type_of(e)):
            subs = [mt.elem] * mt.length if isinstance(mt, Array) else [t for _, t, _ in _members(mt)]
            for st in subs:                  # braces elided: the member's leaves follow
                k = self.init_one(st, exprs, k, out)
            return k
        elif _agg(mt):
            out += list(self.convert(self.rvalue(e), mt, e, assign=True).fields)
        else:
            out.append(self.convert(self.rvalue(e), mt, e, assign=True).op)
        return k + 1

    def union_init(self, lv: LVal, exprs, node) -> None:
        """``{x}`` into a union in memory: its bytes zeroed, then its first member from ``x``
        (C's rule)."""
        t = lv.ctype
        for _, wt, off in t.words:
            self.emit(Op.STORE, node, args=(self.ptr_add_bytes(lv.addr, off, node),
                                            Const(np.zeros((), wt.dtype)[()])), ctype=wt)
        if not exprs:
            return
        mn, mt, _ = t.members[0]
        out: list = []
        k = self.init_one(mt, exprs, 0, out)
        if k < len(exprs):
            raise self.err("too many initializer values (a union takes one, for its first member)",
                           exprs[k])
        self.store_leaves(self.member(lv, mn, node), out, node)

    def union_leaves(self, t, exprs, node) -> list:
        """The words of a union initialized from ``{exprs}`` (through a local slot)."""
        if not exprs:
            return [Const(np.zeros((), wt.dtype)[()]) for _, wt, _ in t.words]
        lv = LVal(t, "mem", addr=self.local_slot(t))
        self.union_init(lv, exprs, node)
        return list(self.load(lv, node).fields)

    def local_slot(self, ct) -> Const:
        """The address of a fresh slot of the thread's local frame for a value of ``ct``."""
        align = max(T.alignof(ct), 4)
        off = -(-self.local_frame // align) * align
        self.local_frame = off + T.sizeof(ct)
        self.local_slots.append((LOCAL_BASE + off, LOCAL_BASE + self.local_frame))
        return Const(np.int64(LOCAL_BASE + off))

    def agg_var(self, ct, name: str) -> Sym:
        """A variable of a struct or vector type: one register per leaf, or, for a struct
        with an array member, a slot of the local frame (as a local array gets), where
        its arrays can be indexed by run-time values."""
        if _has_array(ct):
            return Sym("mem", ct, self.local_slot(ct))
        return Sym("vvar", ct, None, self.field_regs(ct, name))

    def set_var(self, sym: Sym, v: Val, node) -> None:
        """Store a struct or vector value into a variable ``agg_var`` made."""
        if sym.kind == "mem":
            self.store(LVal(sym.ctype, "mem", addr=sym.op), v, node)
        else:
            self.store(LVal(sym.ctype, "vreg", fields=sym.fields), v, node)

    def field_regs(self, t, prefix: str) -> list[Reg]:
        """One variable register per field of a vector type or struct value (nested
        members' fields flattened, ``_leaves``)."""
        return [self.reg(T.storage_dtype(mt), True, f"{prefix}.{mn}") for mn, mt, _ in _leaves(t)]

    def uniform(self, name: str, dtype) -> Uniform:
        if name not in self.uniforms:
            u = Uniform(len(self.uniform_names), np.dtype(dtype), name)
            self.uniforms[name] = u
            self.uniform_names.append(name)
        return self.uniforms[name]

    def builtin(self, vec: str, comp: str, node) -> Val:
        if comp not in ("x", "y", "z"):
            raise self.err(f'class "uint3" has no member "{comp}"', node)
        key = f"{_BUILTIN_VECS[vec]}.{comp}"
        if vec in ("blockDim", "gridDim"):
            return Val(T.UINT, self.uniform(key, np.uint32))
        if key not in self.builtin_regs:
            r = self.reg(np.uint32, name=f"{vec}.{comp}")
            r.builtin = key
            self.builtin_regs[key] = r
        return Val(T.UINT, self.builtin_regs[key])

    def push(self):
        self.depth += 1
        self.max_depth = max(self.max_depth, self.depth)

    def pop(self):
        self.depth -= 1

    def lookup(self, name: str) -> Sym | None:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None

    def declare(self, name: str, sym: Sym, node):
        if name in self.scopes[-1]:
            raise self.err(f'"{name}" has already been declared in the current scope', node)
        self.scopes[-1][name] = sym

    # ------------------------------------------------------------------ types
    def ctype(self, node, allow_void=False) -> CType:
        """C type from a pycparser type node."""
        if isinstance(node, c_ast.TypeDecl):
            return self.ctype(node.type, allow_void)
        if isinstance(node, c_ast.PtrDecl):
            base = self.ctype(node.type, allow_void=True)
            inner = node.type
            quals = getattr(inner, "quals", None) or ()
            return Pointer(base, "const" in quals, "volatile" in quals)
        if isinstance(node, c_ast.ArrayDecl):
            elem = self.ctype(node.type)
            length = None
            if node.dim is not None:
                v = self.const_int(node.dim)
                if v <= 0:
                    raise self.err("array size must be positive", node.dim)
                length = v
            return Array(elem, length)
        if isinstance(node, c_ast.IdentifierType):
            names = list(node.names)
            if names == ["void"]:
                return T.VOID
            if len(names) == 1 and names[0] in T.TYPEDEFS:
                return T.TYPEDEFS[names[0]]
            if names == [AUTO]:
                raise self.err("auto is in simt's subset as a variable's type (auto x = e;) and a "
                               "lambda's parameter's, not here", node)
            if len(names) == 1 and names[0] in self.lw.typedefs:
                return self.lw.typedefs[names[0]]
            t = T.scalar_from_names(names)
            if t is None:
                raise self.err(f'unknown type "{" ".join(names)}"', node)
            return t
        if isinstance(node, c_ast.Typename):
            return self.ctype(node.type, allow_void)
        if isinstance(node, c_ast.Enum):
            if node.values is not None:
                self.declare_enum(node)
            return T.INT
        if isinstance(node, c_ast.Struct):
            return self.struct_type(node)
        if isinstance(node, c_ast.Union):
            return self.struct_type(node, union=True)
        if isinstance(node, c_ast.FuncDecl):
            raise self.err("function pointers are outside simt's subset", node)
        raise self.err(f"unsupported type construct {type(node).__name__}", node)

    def struct_type(self, node, union: bool = False) -> Struct:
        """A struct (or union) definition (registered under its tag) or a reference to one."""
        kw = "union" if union else "struct"
        if node.decls is None:
            st = self.lw.structs.get(node.name)
            if st is None:
                raise self.err(f'incomplete type "{kw} {node.name}" (define it before use)', node)
            return st
        members, seen = [], set()
        for d in node.decls:
            if getattr(d, "bitsize", None) is not None:
                raise self.err("bit-fields are outside simt's subset", d)
            if d.name is None and isinstance(d.type, (c_ast.Union, c_ast.Struct)):
                raise self.err(f"anonymous {'unions' if isinstance(d.type, c_ast.Union) else 'structs'} "
                               "as members are outside simt's subset; give the member a name", d)
            mt = self.ctype(d.type)
            dims, elem = T.array_dims(mt)
            if None in dims:
                raise self.err(f'struct member "{d.name}" of type {mt}: flexible array members are '
                               "outside simt's subset; give the array a size", d)
            if not isinstance(elem, (Scalar, Pointer, Vector, Struct)):
                raise self.err(f'struct member "{d.name}" of type {mt}: only scalar, pointer, vector '
                               "and struct members and fixed-size arrays of them are supported", d)
            if d.name in seen:
                raise self.err(f'struct has two members named "{d.name}"', d)
            seen.add(d.name)
            members.append((d.name, mt))
        make = T.make_union if union else T.make_struct
        st = make(node.name or "(anonymous)", members, self.lw.names.get(node.name, ""))
        if node.name:
            old = self.lw.structs.get(node.name)
            if old is not None and old != st:
                raise self.err(f'{kw} "{node.name}" is defined twice', node)
            self.lw.structs[node.name] = st
        return st

    def declare_enum(self, node) -> None:
        """An enum's enumerators become int constants (C: the previous one plus 1, from 0)."""
        nxt = 0
        for e in node.values.enumerators:
            if e.value is not None:
                nxt = self.const_int(e.value)
            if e.name in self.lw.consts or e.name in self.lw.module_vars:
                raise self.err(f'"{e.name}" has already been declared', e)
            self.lw.consts[e.name] = Val(T.INT, Const(np.int32(nxt)))
            nxt += 1

    def const_value(self, node, ct: Scalar) -> Val:
        """A file-scope constant's value: a constant expression converted to ``ct``."""
        v = self.convert(self.rvalue(node), ct, node, assign=True)
        if not isinstance(v.op, Const) or self.code:
            raise self.err("a file-scope initializer must be a constant expression", node)
        return v

    def const_init(self, node, ct: CType) -> np.ndarray:
        """The bytes of a file-scope variable's initializer, laid out as ``ct`` (what it
        does not cover stays zero): a constant, or braces nested like the array, and for a
        vector or struct element its members' values in order (``{{1.f, 2.f}, {3.f, 4.f}}``
        for a ``float2[2]``)."""
        buf = np.zeros(T.sizeof(ct), np.uint8)
        elem = T.array_dims(ct)[1]

        def put(n, t, off):
            v = self.const_value(n, t).op.value
            buf[off:off + t.size] = np.array(v, t.dtype).reshape(1).view(np.uint8)

        def walk(n, t, off):
            if isinstance(t, Array):
                if not isinstance(n, c_ast.InitList):
                    raise self.err(f"initializer for an array of type {t} must be in braces", n)
                if isinstance(t.elem, Array) and isinstance(elem, Scalar) \
                        and not any(isinstance(e, c_ast.InitList) for e in n.exprs):
                    total = T.sizeof(t) // T.sizeof(elem)      # braces elided: C order
                    if len(n.exprs) > total:
                        raise self.err("too many initializer values", n)
                    for i, e in enumerate(n.exprs):
                        put(e, elem, off + i * elem.size)
                    return
                if len(n.exprs) > t.length:
                    raise self.err("too many initializer values", n)
                for i, e in enumerate(n.exprs):
                    walk(e, t.elem, off + i * T.sizeof(t.elem))
                return
            if _agg(t):
                if not isinstance(n, c_ast.InitList):
                    raise self.err(f"initializer for {t} must be in braces", n)
                members = _members(t)
                if len(n.exprs) > len(members):
                    raise self.err("too many initializer values", n)
                for e, (_, mt, mo) in zip(n.exprs, members):
                    walk(e, mt, off + mo)
                return
            if isinstance(n, c_ast.InitList):
                raise self.err("brace initializer for a scalar", n)
            put(n, t, off)

        walk(node, ct, 0)
        return buf

    def const_int(self, node) -> int:
        self.folding += 1                # constexpr/const integer locals read as their values
        try:
            v = self.rvalue(node)
        finally:
            self.folding -= 1
        if not isinstance(v.op, Const) or not isinstance(v.ctype, Scalar) or v.ctype.is_float:
            raise self.err("expression must have a constant integer value", node)
        return int(v.op.value)

    # -------------------------------------------------------------- building
    def build(self) -> KernelIR:
        fdef = self.fdef
        decl = fdef.decl
        ftype = decl.type
        if self.ctype(ftype.type, allow_void=True) != T.VOID:
            raise self.err("a __global__ function must return void", decl)
        params = []
        # (functions with reference parameters, by their identifier in the text and, for
        # a template's instances, the template's name that a deduced call spells)
        with_refs = {f for f, ks in self.lw.refs.items() if any(k >= 0 for k in ks)}
        ref_callees = {i for i, d in self.lw.names.items() if d in with_refs}
        ref_callees |= with_refs | {d.split("<")[0] for d in with_refs}
        mutating = frozenset(self.lw.classes.mutating)
        assigned = _modified_names(fdef.body, frozenset(ref_callees),
                                   frozenset(n for _, _, n in self.lw.local_refs), methods=mutating)
        indexed = _modified_names(fdef.body, frozenset(ref_callees),
                                  frozenset(n for _, _, n in self.lw.local_refs), indexed=True,
                                  methods=mutating)
        ref_vars = frozenset(n for _, _, n in self.lw.local_refs)
        for lam in self.lw.lambdas.values():     # what a lambda captures by reference it may modify
            body = self.lw.methods[lam.ident].body
            assigned |= _modified_names(body, frozenset(ref_callees), ref_vars, methods=mutating)
            indexed |= _modified_names(body, frozenset(ref_callees), ref_vars, indexed=True,
                                       methods=mutating)
        for p in (ftype.args.params if ftype.args else []):
            if isinstance(p, c_ast.EllipsisParam):
                raise self.err("variadic kernels are not allowed", p)
            pt = self.ctype(p.type, allow_void=True)
            if pt == T.VOID and p.name is None:
                continue
            if isinstance(pt, Array):
                pt = Pointer(pt.elem)
            if not isinstance(pt, (Scalar, Pointer, Vector, Struct)):
                raise self.err(f"unsupported parameter type {pt}", p)
            if _agg(pt):                # a struct or vector passed by value
                modified = (p.name in indexed or _array_escapes(fdef.body, p.name, pt)
                            if _has_array(pt) else p.name in assigned) or _has_union(pt)
                params.append(self.by_value_param(p, pt, modified))
                continue
            u = self.uniform(f"param:{p.name}", T.storage_dtype(pt))
            u.name = p.name
            params.append(Param(p.name, pt, u, restrict=isinstance(p.type, c_ast.PtrDecl)
                                and "restrict" in (p.type.quals or ())))
            if p.name in assigned:      # a parameter the body modifies is a local copy
                r = self.reg(T.storage_dtype(pt), True, p.name)
                self.emit(Op.MOV, p, dst=r, args=(u,))
                self.declare(p.name, Sym("var", pt, r), p)
            else:
                self.declare(p.name, Sym("param", pt, u), p)
        self.stmt(fdef.body)
        self.emit(Op.EXIT, Coord(self.file, self.code[-1].coord.line if self.code else decl.coord.line))
        hoist_condition_loads(self.code, self.fences)
        eliminate_common_loads(self.code, self.fences, new_reg=lambda dt: self.reg(dt))
        # dynamic shared memory starts after the static arrays
        dyn_off = -(-self.static_shared // SHARED_ALIGN) * SHARED_ALIGN
        for name, ct, coord in self.dyn_shared:
            self.shared_symbols.append((name, dyn_off, None, ct))
        self.local_frame = -(-self.local_frame // 16) * 16
        return KernelIR(name=self.lw.names.get(decl.name, decl.name), file=self.file, coord=self.co(decl), params=params,
                        code=self.code, regs=self.regs, n_uniforms=len(self.uniform_names),
                        uniform_names=self.uniform_names, max_depth=self.max_depth + 2,
                        static_shared=self.static_shared, dynamic_shared_offset=dyn_off,
                        uses_dynamic_shared=bool(self.dyn_shared), local_frame=self.local_frame,
                        shared_symbols=self.shared_symbols, local_slots=tuple(self.local_slots),
                        fences=tuple(self.fences))

    def by_value_param(self, p, pt, modified: bool) -> Param:
        """A struct or vector kernel parameter: one launch uniform per leaf member
        (``param:NAME.member``), as nvcc reads each member from the parameter space.  The
        body sees a struct value whose fields are those uniforms or, where it modifies the
        parameter (a member assigned, passed by reference), a local copy in registers."""
        fields = []
        for path, lt, off in _leaves(pt):
            u = self.uniform(f"param:{p.name}.{path}", T.storage_dtype(lt))
            u.name = f"{p.name}.{path}"
            fields.append((path, lt, off, u))
        ops = [f[3] for f in fields]
        if modified:
            sym = self.agg_var(pt, p.name)
            self.set_var(sym, Val(pt, None, ops), p)
            self.declare(p.name, sym, p)
        else:
            self.declare(p.name, Sym("vvar", pt, None, ops), p)
        return Param(p.name, pt, None, fields)

    # ------------------------------------------------------------- statements
    def stmt(self, node):
        if node is None:
            return
        if not isinstance(node, (c_ast.Pragma, c_ast.For, c_ast.While, c_ast.DoWhile)):
            self.unroll_pragma = None            # '#pragma unroll' binds the next statement only
        meth = getattr(self, "s_" + type(node).__name__, None)
        if meth is None:
            if isinstance(node, c_ast.Node) and type(node).__name__ in (
                    "BinaryOp", "UnaryOp", "Assignment", "FuncCall", "TernaryOp", "ID",
                    "Constant", "ArrayRef", "StructRef", "Cast", "ExprList"):
                self.expr_stmt(node)
                return
            raise self.err(f"'{type(node).__name__}' statements are outside simt's subset", node)
        meth(node)

    def s_Compound(self, node):
        self.scopes.append({})
        for item in node.block_items or []:
            self.stmt(item)
        self.scopes.pop()

    def s_EmptyStatement(self, node):
        pass

    def s_Pragma(self, node):
        """``#pragma unroll [N]``: no effect on semantics; kept on the next loop's LOOPTEST
        (``info["unroll"]``: 0 for fully, else N) for the timing model's view of nvcc's
        unrolling (``loops.counter_values``).  Other pragmas are accepted and ignored."""
        m = re.match(r"\s*unroll\b\s*\(?\s*(\d+)?", node.string or "")
        self.unroll_pragma = (int(m.group(1)) if m.group(1) else 0) if m else None

    def s_DeclList(self, node):
        for d in node.decls:
            self.s_Decl(d)

    def s_Typedef(self, node):
        raise self.err("typedef inside a kernel is outside simt's subset", node)

    def s_Switch(self, node):
        """``switch`` as one construct: a lane's ``matched`` flag turns on at its case
        label (or at ``default`` when no case matches) and stays on, so control falls
        through the following labels; ``break`` leaves the construct (a KILL to its level,
        as ``return`` leaves an inlined function), ``continue`` goes to the enclosing loop.
        Limitations: case labels must be the switch body's own statements (no labels in
        nested blocks, as in Duff's device)."""
        sel = self.rvalue(node.cond)
        if not isinstance(sel.ctype, Scalar) or sel.ctype.is_float:
            raise self.err(f'expression of type "{sel.ctype}" cannot be a switch condition '
                           "(it must be an integer)", node.cond)
        st = T.promote(sel.ctype)
        sel = self.convert(sel, st, node.cond)
        items = (node.stmt.block_items or []) if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        labels: list[tuple[c_ast.Node, int | None]] = []     # (label, case value; None: default)
        default = None
        for it in items:
            if isinstance(it, c_ast.Case):
                v = int(self.convert(Val(T.LLONG, Const(np.int64(self.const_int(it.expr)))), st,
                                     it.expr, explicit=True).op.value)
                if any(v == w for _, w in labels):
                    raise self.err(f"duplicate case value {v}", it.expr)
                labels.append((it, v))
            elif isinstance(it, c_ast.Default):
                if default is not None:
                    raise self.err("a switch may have only one default label", it)
                default = it
                labels.append((it, None))
            elif not isinstance(it, c_ast.EmptyStatement) and not labels:
                raise self.err("a statement before the switch's first case label is never "
                               "executed; move it before the switch", it)

        def equal(v):
            if isinstance(sel.op, Const):
                return Const(np.bool_(int(sel.op.value) == v))
            d = self.reg(np.bool_)
            self.emit(Op.BIN, node, dst=d, args=(sel.op, Const(np.array(v, st.dtype)[()])), sub="eq")
            return d

        def either(a, b):
            if isinstance(a, Const):
                return b if not bool(a.value) else a
            d = self.reg(np.bool_)
            self.emit(Op.BIN, node, dst=d, args=(a, b), sub="or")
            return d

        self.scopes.append({})
        no_case = None
        if default is not None:          # default matches where no case label does
            anyc = Const(np.bool_(False))
            for _, v in labels:
                if v is not None:
                    anyc = either(anyc, equal(v))
            if isinstance(anyc, Const):
                no_case = Const(np.bool_(not bool(anyc.value)))
            else:
                no_case = self.reg(np.bool_)
                self.emit(Op.UN, node, dst=no_case, args=(anyc,), sub="lnot")
        matched = self.reg(np.bool_, True, "switch.matched")
        self.emit(Op.MOV, node, dst=matched, args=(Const(np.bool_(False)),))
        self.emit(Op.BODYINIT, node)
        self.push()
        outer = self.loops[-1] if self.loops else None
        self.loops.append((self.depth, outer[1] if outer else None, outer[2] if outer else None))
        for it, v in labels:
            hit = no_case if v is None else equal(v)
            self.emit(Op.BIN, it, dst=matched, args=(matched, hit), sub="or")
            if not it.stmts:
                continue
            ereg = self.reg(np.bool_, name="else")
            ins_if = self.emit(Op.IF, it, args=(matched,), ereg=ereg)
            self.push()
            for s_ in it.stmts:
                self.stmt(s_)
            self.pop()
            ins_if.target = len(self.code)
        self.loops.pop()
        self.pop()
        self.scopes.pop()

    def s_Case(self, node):
        raise self.err("a case label may only be used directly in a switch's body", node)

    def s_Default(self, node):
        raise self.err("a default label may only be used directly in a switch's body", node)

    def s_Goto(self, node):
        raise self.err("goto is outside simt's subset", node)

    def s_Label(self, node):
        raise self.err("labels are outside simt's subset", node)

    def s_StaticAssert(self, node):
        if not self.const_int(node.cond):
            msg = node.message.value[1:-1] if node.message is not None else ""
            raise self.err("static assertion failed" + (f": {msg}" if msg else ""), node)

    def s_Decl(self, node):
        if isinstance(node.type, c_ast.FuncDecl):
            return  # a prototype
        self.decl_variable(node)
        if node.name and _object_const(node):    # written only by its initializer
            sym = self.scopes[-1].get(node.name)
            if sym is not None and sym.kind in ("var", "vvar", "mem", "array"):
                sym.const = True
        if node.name and node.init is not None and (
                _object_const(node) or "constexpr" in (node.storage or ())):
            sym = self.scopes[-1].get(node.name)
            if sym is not None and sym.kind == "var" and isinstance(sym.ctype, Scalar) \
                    and not sym.ctype.is_float and _plain_constant(node.init):
                sym.value = self.folded(node.init, sym.ctype)

    def decl_variable(self, node):
        attrs = Lowerer._attrs(node)
        co = self.co(node)
        if (co.file, co.line, node.name) in self.lw.local_refs:
            return self.decl_reference(node)
        if _inferred(node.type):
            return self.decl_auto(node)
        ct = self.ctype(node.type)
        name = node.name
        if name is None:          # struct S { ... }; or enum { ... };  (a type, no variable)
            return
        if ct == T.VOID:
            raise self.err(f'variable "{name}" has type void', node)
        storage = set(node.storage or [])
        volatile = "volatile" in (node.quals or ())
        if "shared" in attrs:
            self.decl_shared(node, name, ct, "extern" in storage, volatile)
            return
        if "static" in storage:
            raise self.err("static local variables are outside simt's subset", node)
        if isinstance(ct, Array):
            if isinstance(node.init, CtorInit):
                raise self.err(f'array "{name}" cannot be initialized with parentheses', node.init)
            self.decl_local_array(node, name, ct, volatile)
            elem = T.array_dims(ct)[1]
            info = self.class_info(elem)
            if node.init is None and info is not None and self.has_user_ctors(elem) and not info.default_ctor:
                raise self.err(f'no default constructor exists for class "{info.name}"', node)
            if node.init is None and self.needs_construction(ct):
                self.default_construct(self.sym_lval(self.lookup(name), name, node), node)
            return
        if _agg(ct):
            sym = self.agg_var(ct, name)
            self.declare(name, sym, node)
            if self.init_declared(self.sym_lval(sym, name, node), node.init, node):
                return
            if isinstance(ct, Union) and isinstance(node.init, (c_ast.InitList, CtorInit)):
                if isinstance(node.init, CtorInit):
                    raise self.err("a union is initialized with braces (its first member)", node.init)
                self.union_init(self.sym_lval(sym, name, node), node.init.exprs, node)
                return
            if node.init is not None:
                if isinstance(node.init, c_ast.InitList):
                    v = Val(ct, None, self.init_fields(ct, node.init))
                else:
                    v = self.convert(self.rvalue(node.init), ct, node.init, assign=True)
                if not _agg(v.ctype):
                    raise self.err(f'a value of type "{v.ctype}" cannot be used to initialize an '
                                   f'entity of type "{ct}"', node.init)
                self.set_var(sym, v, node)
            return
        if node.init is None:
            self.declare(name, Sym("var", ct, self.reg(T.storage_dtype(ct), True, name)), node)
            return
        if isinstance(node.init, (CtorInit, c_ast.InitList)) and len(node.init.exprs) == 1 and \
                not isinstance(node.init.exprs[0], c_ast.InitList):
            init = node.init.exprs[0]              # int x(5); int x{5};
            self.bind_copy(node, name, ct, self.convert(self.rvalue(init), ct, init, assign=True))
            return
        if isinstance(node.init, (CtorInit, c_ast.InitList)):
            raise self.err("brace initializer for a scalar" if isinstance(node.init, c_ast.InitList)
                           else f"too many values to initialize a {ct}", node.init)
        self.bind_copy(node, name, ct, self.convert(self.rvalue(node.init), ct, node.init, assign=True))

    def decl_reference(self, node):
        """``T &x = lv;``: ``x`` names ``lv``'s register(s) or memory (its address computed
        here, once), as a reference parameter does.  A ``const T &`` bound to a value of
        another type or to a temporary holds a converted copy, as C++ makes one."""
        if node.init is None or isinstance(node.init, c_ast.InitList):
            raise self.err(f'reference "{node.name}" must be initialized with a variable or '
                           "memory location", node)
        e = self.operand(node.init)
        ct = e.ctype if _inferred(node.type) else self.ctype(node.type)
        const = _const_decl(node.type)
        if isinstance(e, LVal) and e.ctype == ct:
            if e.const and not const:
                raise self.err(f'a reference of type "{ct} &" cannot bind to a const '
                               "location (declare it const)", node)
            self.declare(node.name, _ref_sym(replace(e, const=e.const or const)), node)
            return
        if not const:
            why = ("a value, not a variable or memory location" if not isinstance(e, LVal)
                   else f'a location of type "{e.ctype}"')
            raise self.err(f'a reference of type "{ct} &" cannot bind to {why}', node.init)
        v = self.load(e, node.init) if isinstance(e, LVal) else e
        self.bind_copy(node, node.name, ct, self.convert(v, ct, node.init, assign=True))

    def decl_auto(self, node):
        """``auto x = e;``: ``x`` takes ``e``'s type (arrays decay to pointers)."""
        v = self.rvalue(node.init)        # (the parser rejects auto without one)
        ptr = isinstance(node.type, c_ast.PtrDecl)
        if ptr and not isinstance(v.ctype, Pointer):
            raise self.err(f'"auto *{node.name}" is initialized with a value of type '
                           f'"{v.ctype}", not a pointer', node.init)
        self.bind_copy(node, node.name, v.ctype, v)

    def bind_copy(self, node, name, ct, v: Val):
        """Declare ``name`` as a fresh variable of type ``ct`` holding ``v``."""
        if _agg(ct):
            sym = self.agg_var(ct, name)
            self.declare(name, sym, node)
            self.set_var(sym, v, node)
            return
        if isinstance(v.op, RegTarget):         # float *p = &x;  (p names x)
            self.declare(name, Sym("regptr", ct, v.op), node)
            return
        r = self.reg(T.storage_dtype(ct), True, name)
        self.declare(name, Sym("var", ct, r), node)
        self.emit(Op.MOV, node, dst=r, args=(v.op,))

    def decl_shared(self, node, name, ct, extern, volatile=False):
        if node.init is not None:
            raise self.err("__shared__ variables cannot have an initializer", node)
        if isinstance(ct, Array) and ct.length is None:
            if not extern:
                raise self.err(f'incomplete array "{name}" must be declared extern __shared__', node)
            # its address depends on the static arrays, known once the kernel is lowered
            u = self.uniform("dynshared", np.int64)
            self.dyn_shared.append((name, ct, self.co(node)))
            self.declare(name, Sym("array", ct, u, volatile=volatile), node)
            return
        size = T.sizeof(ct)
        align = max(T.alignof(ct), 4)
        off = -(-self.static_shared // align) * align
        self.static_shared = off + size
        self.shared_symbols.append((name, off, size, ct))
        self.declare(name, Sym("array" if isinstance(ct, Array) else "mem", ct,
                               Const(np.int64(SHARED_BASE + off)), volatile=volatile), node)

    def decl_local_array(self, node, name, ct: Array, volatile=False):
        init = node.init
        if init is not None and not isinstance(init, c_ast.InitList):
            raise self.err(f'array "{name}" must be initialized with a brace initializer', init)
        if ct.length is None:
            if init is None:
                raise self.err(f'array "{name}" needs a size', node)
            ct = Array(ct.elem, self.init_length(ct.elem, init.exprs))
        base = self.local_slot(ct)
        self.declare(name, Sym("array", ct, base, volatile=volatile), node)
        if init is not None:             # every leaf, element by element (C zero-fills the rest)
            for (_, lt, off), f in zip(_value_leaves(ct, 0, ""), self.init_fields(ct, init)):
                self.emit(Op.STORE, init, args=(self.ptr_add_bytes(base, off, init), f), ctype=lt)

    def init_length(self, elem, exprs) -> int:
        """The length of an array of ``elem`` sized by its initializer (``int a[] = {...}``):
        how many elements ``exprs`` initialize, braces elided or not (``init_one``)."""
        n = k = 0
        with self.discarded():
            while k < len(exprs):
                k = self.init_one(elem, exprs, k, [])
                n += 1
        return n

    def expr_stmt(self, node):
        self.expr(node, want=False)

    def cond_bool(self, node) -> object:
        v = self.rvalue(node)
        return self.to_bool(v, node)

    def to_bool(self, v: Val, node):
        if isinstance(v.ctype, Scalar) and v.ctype.is_bool:
            return v.op
        if not isinstance(v.ctype, (Scalar, Pointer)):
            raise self.err(f'expression of type "{v.ctype}" cannot be used as a condition', node)
        if _is_bf16(v.ctype):                   # its float value: -0 is false
            v = Val(T.FLOAT, self.bf16_call("m_b2f", np.float32, v.op, node))
        if isinstance(v.op, RegTarget):         # a variable's address is never null
            return Const(np.bool_(True))
        if isinstance(v.op, Const):
            return Const(np.bool_(v.op.value != 0))
        zero = Const(np.zeros((), v.op.dtype)[()])
        d = self.reg(np.bool_)
        self.emit(Op.BIN, node, dst=d, args=(v.op, zero), sub="ne")
        return d

    def s_If(self, node):
        c = self.cond_bool(node.cond)
        if isinstance(c, Const):   # constant condition: only one side exists
            self.stmt(node.iftrue if bool(c.value) else node.iffalse)
            return
        ereg = self.reg(np.bool_, name="else")
        ins_if = self.emit(Op.IF, node, args=(c,), ereg=ereg)
        self.push()
        self.stmt(node.iftrue)
        self.pop()
        if node.iffalse is not None:
            ins_else = self.emit(Op.ELSE, node.iffalse, ereg=ereg)
            ins_if.target = len(self.code) - 1
            self.push()
            self.stmt(node.iffalse)
            self.pop()
            ins_else.target = len(self.code)
        else:
            ins_if.target = len(self.code)
        ins_if.info["stmt_if"] = True     # a candidate for if-conversion (uniformity.py)

    def loop(self, node, init, cond, nxt, body, do_while=False):
        unroll, self.unroll_pragma = getattr(self, "unroll_pragma", None), None
        self.scopes.append({})
        if init is not None:
            self.stmt(init) if not isinstance(init, c_ast.ExprList) else self.expr(init, want=False)
        d = self.depth
        self.emit(Op.LOOPINIT, node)
        self.push()                                  # loop level d+1
        jump_body = self.emit(Op.JUMP, node) if do_while else None
        top = len(self.code)
        c = self.cond_bool(cond) if cond is not None else None
        if isinstance(c, Const):
            if not bool(c.value):
                c = Const(np.bool_(False))
            else:
                c = None
        test = self.emit(Op.LOOPTEST, cond if cond is not None else node, args=(c,) if c is not None else ())
        if unroll is not None:
            test.info["unroll"] = unroll
        body_start = len(self.code)
        if jump_body is not None:
            jump_body.target = body_start
        self.emit(Op.BODYINIT, body if body is not None else node)
        self.push()                                  # body level d+2
        conts: list[Ins] = []
        self.loops.append((d + 1, d + 2, conts))
        self.stmt(body)
        self.loops.pop()
        self.pop()
        if nxt is not None:
            self.expr(nxt, want=False)
        back = self.emit(Op.JUMP, nxt if nxt is not None else (cond if cond is not None else node))
        back.target = top
        self.pop()
        test.target = len(self.code)
        self.scopes.pop()

    def s_For(self, node):
        self.loop(node, node.init, node.cond, node.next, node.stmt)

    def s_While(self, node):
        self.loop(node, None, node.cond, None, node.stmt)

    def s_DoWhile(self, node):
        self.loop(node, None, node.cond, None, node.stmt, do_while=True)

    def s_Break(self, node):
        if not self.loops or (self.funcs and self.loops[-1][0] <= self.funcs[-1][1]):
            raise self.err("a break statement may only be used within a loop or switch", node)
        self.emit(Op.KILL, node, level=self.loops[-1][0], sub="break")

    def s_Continue(self, node):
        if not self.loops or self.loops[-1][1] is None or (
                self.funcs and self.loops[-1][0] <= self.funcs[-1][1]):
            raise self.err("a continue statement may only be used within a loop", node)
        self.emit(Op.KILL, node, level=self.loops[-1][1], sub="continue")

    def s_Return(self, node):
        if self.funcs:
            name, level, ret, rtype, ref, fname = self.funcs[-1]
            if self.lw.lambdas and self.deduces(name):
                return self.return_deduced(node)
            if ref is not None:
                if isinstance(node.expr, c_ast.InitList):
                    raise self.err(f'a function returning a reference ("{fname}") cannot return a '
                                   "braced list", node.expr)
                self.return_reference(ref, rtype, ret, node)
                self.emit(Op.KILL, node, level=level, sub="return")
                return
            if node.expr is not None:
                if ret is None:
                    raise self.err(f'a void function "{fname}" may not return a value', node)
                if isinstance(node.expr, c_ast.InitList):
                    v = self.braced(rtype, node.expr)
                else:
                    v = self.convert(self.rvalue(node.expr), rtype, node.expr, assign=True)
                if _agg(rtype):
                    for r, f in zip(ret, v.fields):
                        self.emit(Op.MOV, node, dst=r, args=(f,))
                else:
                    self.emit(Op.MOV, node, dst=ret, args=(v.op,))
            elif ret is not None:
                raise self.err(f'function "{fname}" must return a value', node)
            self.emit(Op.KILL, node, level=level, sub="return")
            return
        if node.expr is not None:
            raise self.err("a __global__ function may not return a value", node)
        self.emit(Op.KILL, node, level=0, sub="exit")

    # ------------------------------------------------------------ expressions
    def expr(self, node, want=True) -> Val | None:
        meth = getattr(self, "e_" + type(node).__name__, None)
        if meth is None:
            raise self.err(f"'{type(node).__name__}' expressions are outside simt's subset", node)
        return meth(node) if want else self._discard(meth, node)

    def e_InitList(self, node):
        raise self.err("a braced list is in simt's subset only where it initializes a variable, "
                       "a return value (return {a, b};) or a function's argument (f({a, b}))", node)

    def _discard(self, meth, node):
        if isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "p--"):
            return self.incdec(node, node.op[1:], prefix=True)
        if isinstance(node, c_ast.FuncCall):
            return self.e_FuncCall(node, want=False)
        return meth(node)

    def operand(self, node) -> Val | LVal:
        """An argument's value, or its lvalue when it has one (a reference binds to it)."""
        v = self.expr(node)
        if v is None:
            raise self.err("expression has no value (void)", node)
        return v

    def rvalue(self, node) -> Val:
        v = self.expr(node)
        if isinstance(v, LVal):
            return self.load(v, node)
        if v is None:
            raise self.err("expression has no value (void)", node)
        return v

    def load(self, lv: LVal, node) -> Val:
        if isinstance(lv.ctype, Array):                      # arrays decay to pointers
            if lv.kind != "mem":
                raise self.err(f'the array member of "{lv.name}" lives in registers (a struct '
                               "parameter or value), so it has no address: index it, or copy the "
                               "struct into a local variable first", node)
            return Val(Pointer(lv.ctype.elem, lv.const, lv.volatile), lv.addr)
        if lv.kind == "reg":
            return Val(lv.ctype, lv.reg)
        if lv.kind == "vreg":
            return Val(lv.ctype, None, list(lv.fields))
        if isinstance(lv.ctype, Vector) and lv.ctype.one_access:
            dst = [self.reg(lv.ctype.elem.dtype) for _ in lv.ctype.fields]
            self.emit(Op.LOAD, node, dst=dst, args=(lv.addr,), ctype=lv.ctype)
            return Val(lv.ctype, None, dst)
        if isinstance(lv.ctype, (Struct, Vector)):   # member by member, as nvcc loads it
            dst = []
            for _, mt, off in _leaves(lv.ctype):
                d = self.reg(T.storage_dtype(mt))
                self.emit(Op.LOAD, node, dst=d, args=(self.ptr_add_bytes(lv.addr, off, node),),
                          ctype=mt, info={"volatile": True} if lv.volatile else {})
                dst.append(d)
            return Val(lv.ctype, None, dst)
        if not isinstance(lv.ctype, (Scalar, Pointer)):
            raise self.err(f"cannot load a value of type {lv.ctype}", node)
        d = self.reg(T.storage_dtype(lv.ctype))
        self.emit(Op.LOAD, node, dst=d, args=(lv.addr,), ctype=lv.ctype,
                  info={"volatile": True} if lv.volatile else {})
        return Val(lv.ctype, d)

    def lvalue(self, node) -> LVal:
        v = self.expr(node)
        if isinstance(v, Val) and isinstance(v.op, RegTarget):
            raise self.err(f'pointer "{getattr(node, "name", "")}" holds the address of local '
                           f'variable "{v.op.lv.name}" (line {v.op.coord.line}), and simt cannot '
                           "change it: nvcc's inlining makes *p that variable itself", node)
        if not isinstance(v, LVal):
            raise self.err("expression must be a modifiable lvalue", node)
        if isinstance(v.ctype, Array):
            raise self.err("expression must be a modifiable lvalue (arrays are not assignable)", node)
        if v.const:
            mv = self.lw.module_vars.get(v.name) if v.name else None
            if mv is not None and mv.space == "constant":
                raise self.err(f'__constant__ variable "{v.name}" cannot be written in device '
                               "code (set it from the host: --symbol, Module.get_global)", node)
            why = ("it is reached through a pointer to const" if v.kind == "mem" else
                   "it is const: a const variable, or a member of a const object or of the "
                   "object of a const member function")
            raise self.err(f"expression must be a modifiable lvalue ({why})", node)
        return v

    def store(self, lv: LVal, v: Val, node):
        if lv.kind == "reg":
            if lv.reg.builtin:
                raise self.err("expression must be a modifiable lvalue", node)
            self.emit(Op.MOV, node, dst=lv.reg, args=(v.op,))
        elif lv.kind == "vreg":
            for r, f in zip(lv.fields, v.fields):
                self.emit(Op.MOV, node, dst=r, args=(f,))
        elif isinstance(lv.ctype, Vector) and lv.ctype.one_access:
            self.emit(Op.STORE, node, args=(lv.addr, *v.fields), ctype=lv.ctype)
        elif isinstance(lv.ctype, (Struct, Vector)):
            for (_, mt, off), f in zip(_leaves(lv.ctype), v.fields):
                self.emit(Op.STORE, node, args=(self.ptr_add_bytes(lv.addr, off, node), f), ctype=mt)
        else:
            self.emit(Op.STORE, node, args=(lv.addr, v.op), ctype=lv.ctype)

    def e_ID(self, node):
        name = node.name
        sym = self.lookup(name)
        if sym is not None and sym.value is not None and self.folding:
            return Val(sym.ctype, sym.value)
        if sym is None and name == "this":
            return self.this_pointer(node)
        if sym is None:
            if name in _BUILTIN_VECS:         # the whole vector: dim3 b = blockDim;
                t = T.TYPEDEFS["dim3" if name in ("blockDim", "gridDim") else "uint3"]
                return Val(t, None, [self.builtin(name, c, node).op for c in "xyz"])
            if name == "warpSize":
                return Val(T.INT, Const(np.int32(32)))
            if name in ("true", "false"):
                return Val(T.BOOL, Const(np.bool_(name == "true")))
            if name in ("NULL",):
                return Val(T.INT, Const(np.int32(0)))
            if self.this_stack and self.this_stack[-1] is not None:
                got = self.bare_member(name, node)
                if got is not None:
                    return got
            mv = self.lw.module_vars.get(name)
            if mv is not None:             # its address is bound at launch (Launch._bind)
                u = self.uniform(mv.uniform_name, np.int64)
                return LVal(mv.ctype, "mem", addr=u, name=name, const=mv.const)
            if name in self.lw.consts:
                return self.lw.consts[name]
            if name in self.lw.funcs or name in INTRINSICS:
                raise self.err(f'function "{name}" used as a value (call it with parentheses)', node)
            if name in self.lw.host_funcs:
                raise self.err(self.host_call(name), node)
            if name in self.lw.host_vars:
                at = self.lw.host_vars[name]
                raise self.err(f'identifier "{name}" is undefined in device code: it is a host '
                               f"variable ({at.file}:{at.line}); declare it __device__ or "
                               "__constant__, or pass it as a parameter", node)
            raise self.err(f'identifier "{name}" is undefined', node)
        return self.sym_lval(sym, name, node)

    def sym_lval(self, sym: Sym, name: str, node):
        """What a variable's name stands for: its register(s) or memory, or a value."""
        if sym.kind == "var":
            return LVal(sym.ctype, "reg", reg=sym.op, name=name, const=sym.const)
        if sym.kind == "vvar":
            return LVal(sym.ctype, "vreg", fields=sym.fields, name=name, const=sym.const)
        if sym.kind in ("param", "regptr"):
            return Val(sym.ctype, sym.op)
        if sym.kind in ("array", "mem"):      # arrays, and scalars living in shared memory
            return LVal(sym.ctype, "mem", addr=sym.op, name=name, volatile=sym.volatile, const=sym.const)
        raise self.err(f'cannot use "{name}" here', node)

    def e_Constant(self, node):
        t, s = node.type, node.value
        if t == "string":
            return Val(Pointer(T.CHAR, True), self.string_literal(node))
        if t == "char":
            body = s[1:-1]
            val = ord(bytes(body, "utf-8").decode("unicode_escape")) if body.startswith("\\") else ord(body)
            return Val(T.CHAR, Const(np.int8(val if val < 128 else val - 256)))
        if t == "bool":
            return Val(T.BOOL, Const(np.bool_(s == "true")))
        if t in ("float", "double") or (any(ch in s for ch in ".eEpP") and not s.lower().startswith("0x")):
            is_f = s[-1] in "fF"
            txt = s.rstrip("fFlL")
            val = float.fromhex(txt) if "x" in txt.lower() else float(txt)
            return Val(T.FLOAT, Const(np.float32(val))) if is_f else Val(T.DOUBLE, Const(np.float64(val)))
        # integer literal with C typing rules
        low = s.lower()
        suffix = ""
        while low and low[-1] in "ul":
            suffix = low[-1] + suffix
            low = low[:-1]
        if low.startswith("0x"):
            val, decimal = int(low, 16), False
        elif low.startswith("0b"):
            val, decimal = int(low, 2), False
        elif len(low) > 1 and low.startswith("0"):
            val, decimal = int(low, 8), False
        else:
            val, decimal = int(low), True
        unsigned = "u" in suffix
        nl = suffix.count("l")
        cands = []
        if nl == 0:
            cands = [T.UINT] if unsigned else ([T.INT, T.LONG] if decimal else [T.INT, T.UINT, T.LONG, T.ULONG])
        if nl <= 1 and not cands:
            cands = [T.ULONG] if unsigned else ([T.LONG] if decimal else [T.LONG, T.ULONG])
        if nl == 2:
            cands = [T.ULLONG] if unsigned else ([T.LLONG] if decimal else [T.LLONG, T.ULLONG])
        if unsigned and nl == 0:
            cands = [T.UINT, T.ULONG]
        for ct in cands + [T.ULLONG]:
            info = np.iinfo(ct.dtype)
            if info.min <= val <= info.max:
                return Val(ct, Const(ct.dtype.type(val)))
        raise self.err(f"integer constant {s} is too large", node)

    def string_literal(self, node) -> Uniform:
        """The address of a string literal's bytes, NUL-terminated: read-only memory of the
        module (a ``ModuleVar`` marked ``literal``, allocated at the first launch as
        nvcc's ``$str`` arrays are, in global memory)."""
        raw = node.value
        if not raw.startswith('"'):
            raise self.err("wide and prefixed string literals (L\"...\", u8\"...\") are outside "
                           "simt's subset", node)
        mv = self.lw.literals.get(raw)
        if mv is None:
            try:
                data = np.frombuffer(c_string_bytes(raw) + b"\0", np.int8).copy()
            except UnicodeError:
                raise self.err("cannot read the escapes of this string literal (\\u beyond "
                               "Latin-1 is outside simt's subset)", node) from None
            mv = ModuleVar(raw, Array(T.CHAR, len(data)), np.dtype(np.int8), "global",
                           data.view(np.uint8), True, self.co(node), literal=True)
            self.lw.literals[raw] = mv
        return self.uniform(mv.uniform_name, np.int64)

    def e_ExprList(self, node):
        v = None
        for e in node.exprs:
            v = self.expr(e)
        return v

    def e_Cast(self, node):
        to = self.ctype(node.to_type, allow_void=True)
        if to == T.VOID:
            self.expr(node.expr, want=False)
            return None
        v = self.rvalue(node.expr)
        return self.convert(v, to, node, explicit=True)

    def e_StructRef(self, node):
        field = node.field.name
        if node.type == "." and isinstance(node.name, c_ast.ID) and node.name.name in _BUILTIN_VECS \
                and self.lookup(node.name.name) is None:
            return self.builtin(node.name.name, field, node)
        if node.type == "->" and self.is_this(node.name):
            base = self.this_object(node.name)
        elif node.type == "->":
            p = self.rvalue(node.name)
            if not isinstance(p.ctype, Pointer):
                raise self.err('expression must have pointer type for "->"', node)
            base = replace(p.op.lv, const=p.op.lv.const or p.ctype.const) \
                if isinstance(p.op, RegTarget) else \
                LVal(p.ctype.base, "mem", addr=p.op, const=p.ctype.const, volatile=p.ctype.volatile)
        else:
            base = self.expr(node.name)
        return self.member(base, field, node, node.field)

    def member(self, base, field: str, node, fnode=None):
        """Member ``field`` of a struct or vector value or lvalue ``base``."""
        ct = base.ctype
        if not _agg(ct):
            raise self.err(f'expression of type "{ct}" has no member "{field}"', node)
        if field not in ct.fields:
            raise self.err(f'{"class" if isinstance(ct, Vector) else ""} "{ct}" has no member '
                           f'"{field}"'.lstrip(), fnode or node)
        k = ct.fields.index(field)
        _, mt, off = _members(ct)[k]
        if isinstance(ct, Union) and not (isinstance(base, LVal) and base.kind == "mem"):
            slot = self.local_slot(ct)          # a union value's bytes, read as the member's type
            self.store(LVal(ct, "mem", addr=slot), Val(ct, None, list(base.fields)), node)
            base = LVal(ct, "mem", addr=slot, const=isinstance(base, Val) or base.const)
        if isinstance(base, LVal) and base.kind == "mem":
            addr = self.ptr_add_bytes(base.addr, off, node)
            return LVal(mt, "mem", addr=addr, const=base.const, volatile=base.volatile)
        slots = _member_slots(ct, k)
        several = _agg(mt) or isinstance(mt, Array)      # (an array member: its elements' leaves)
        if isinstance(base, Val):
            return Val(mt, None, base.fields[slots]) if several else Val(mt, base.fields[slots.start])
        if base.kind == "vreg":
            if several:
                return LVal(mt, "vreg", fields=base.fields[slots], name=base.name, const=base.const)
            return LVal(mt, "reg", reg=base.fields[slots.start], name=base.name, const=base.const)
        addr = self.ptr_add_bytes(base.addr, off, node)
        return LVal(mt, "mem", addr=addr, const=base.const, volatile=base.volatile)

    def ptr_add_bytes(self, addr, nbytes: int, node):
        if nbytes == 0:
            return addr
        if isinstance(addr, Const):
            return Const(np.int64(int(addr.value) + nbytes))
        d = self.reg(np.int64)
        self.emit(Op.BIN, node, dst=d, args=(addr, Const(np.int64(nbytes))), sub="add")
        return d

    def index_addr(self, base: Val, idx: Val, node, sub=False):
        """Address of base[idx] (base a pointer)."""
        if not isinstance(idx.ctype, Scalar) or idx.ctype.is_float:
            raise self.err("expression must have integral type", node)
        esz = T.sizeof(base.ctype.base) if base.ctype.base != T.VOID else None
        if esz is None:
            raise self.err("pointer arithmetic on void* is not allowed", node)
        if isinstance(idx.op, Const):
            k = int(idx.op.value) * esz * (-1 if sub else 1)
            return self.ptr_add_bytes(base.op, k, node)
        i64 = self.convert(idx, T.LLONG, node).op
        if esz != 1:
            t = self.reg(np.int64)
            self.emit(Op.BIN, node, dst=t, args=(i64, Const(np.int64(esz))), sub="mul")
            i64 = t
        d = self.reg(np.int64)
        if isinstance(base.op, Const) and int(base.op.value) == 0 and not sub:
            return i64
        self.emit(Op.BIN, node, dst=d, args=(base.op, i64), sub="sub" if sub else "add")
        return d

    def e_ArrayRef(self, node):
        a = self.expr(node.name)
        if isinstance(a, (Val, LVal)) and isinstance(a.ctype, Array) and a.fields is not None:
            return self.register_index(a, node)
        if isinstance(a, (Val, LVal)) and isinstance(a.ctype, Struct):
            return self.subscript_call(a, node)
        b = self.load(a, node.name) if isinstance(a, LVal) else a
        if b is None:
            raise self.err("expression has no value (void)", node.name)
        i = self.rvalue(node.subscript)
        if isinstance(i.ctype, Pointer) and isinstance(b.ctype, Scalar):
            b, i = i, b
        if not isinstance(b.ctype, Pointer):
            raise self.err("expression must have pointer-to-object type", node)
        if isinstance(b.op, RegTarget):              # (&x)[0]: x itself
            if not (isinstance(i.op, Const) and int(i.op.value) == 0):
                raise self.err(b.op.error(), node)
            return replace(b.op.lv, const=b.op.lv.const or b.ctype.const)
        return LVal(b.ctype.base, "mem", addr=self.index_addr(b, i, node), const=b.ctype.const,
                    volatile=b.ctype.volatile,
                    name=node.name.name if isinstance(node.name, c_ast.ID) else "")

    def register_index(self, a, node):
        """``a[i]`` where the array ``a`` lives in registers (an array member of a struct
        value or of a by-value kernel parameter read in place): a constant index picks
        its element's registers, a run-time one selects each leaf from the elements, as
        nvcc reads a small array it keeps in registers (the result is a value; a run-time
        index outside the array reads element 0, as no memory is read, memcheck has
        nothing to see)."""
        t = a.ctype
        i = self.rvalue(node.subscript)
        if not isinstance(i.ctype, Scalar) or i.ctype.is_float:
            raise self.err("expression must have integral type", node.subscript)
        n = _nleaves(t.elem)
        several = _agg(t.elem) or isinstance(t.elem, Array)
        if isinstance(i.op, Const):
            k = int(i.op.value)
            if not 0 <= k < t.length:
                raise self.err(f"array index {k} is outside the array (type {t})", node.subscript)
            f = a.fields[k * n:(k + 1) * n]
            if isinstance(a, LVal):
                return (LVal(t.elem, "vreg", fields=f, name=a.name) if several
                        else LVal(t.elem, "reg", reg=f[0], name=a.name))
            return Val(t.elem, None, f) if several else Val(t.elem, f[0])
        idx = self.convert(i, T.promote(i.ctype), node.subscript).op
        out = list(a.fields[:n])
        for k in range(1, t.length):
            hit = self.reg(np.bool_)
            self.emit(Op.BIN, node, dst=hit, args=(idx, Const(np.array(k, idx.dtype)[()])), sub="eq")
            for j in range(n):
                d = self.reg(out[j].dtype)
                self.emit(Op.SELECT, node, dst=d, args=(hit, a.fields[k * n + j], out[j]))
                out[j] = d
        return Val(t.elem, None, out) if several else Val(t.elem, out[0])

    def e_UnaryOp(self, node):
        op = node.op
        if op == "sizeof":
            e = node.expr
            if isinstance(e, c_ast.Typename):
                t = self.ctype(e)
            else:
                v = self.expr(e)
                t = v.ctype
            return Val(T.ULONG, Const(np.uint64(T.sizeof(t))))
        if op == "&":
            lv = self.expr(node.expr)
            if not isinstance(lv, LVal):
                raise self.err("expression must be an lvalue or a function designator", node)
            if lv.kind in ("reg", "vreg") and not (lv.kind == "reg" and lv.reg.builtin):
                return Val(Pointer(lv.ctype, lv.const), RegTarget(lv, self.co(node)))
            if lv.kind != "mem":
                raise self.err(f'taking the address of local variable "{lv.name}" is outside simt\'s '
                               "subset (declare it as a one-element array)", node)
            return Val(Pointer(lv.ctype, lv.const), lv.addr)
        if op == "*" and self.is_this(node.expr):
            return self.this_object(node.expr)
        if self.lw.has_ops and op in ("-", "+", "!", "~", "++", "--", "p++", "p--"):
            got = self.operator_call(op.lstrip("p"), [node.expr] + ([c_ast.Constant("int", "0", node.coord)]
                                                             if op.startswith("p") else []),
                                     node, kind="postfix" if op.startswith("p") else "prefix")
            if got is not NotImplemented:
                return got
        if op == "*":
            p = self.rvalue(node.expr)
            if not isinstance(p.ctype, Pointer):
                raise self.err('operand of "*" must be a pointer', node)
            if p.ctype.base == T.VOID:
                raise self.err("a void* cannot be dereferenced", node)
            if isinstance(p.op, RegTarget):          # *&x: the variable itself
                return replace(p.op.lv, const=p.op.lv.const or p.ctype.const)
            return LVal(p.ctype.base, "mem", addr=p.op, const=p.ctype.const, volatile=p.ctype.volatile)
        if op in ("++", "--", "p++", "p--"):
            return self.incdec(node, op[-2:], prefix=not op.startswith("p"))
        v = self.rvalue(node.expr)
        if v.ctype == T.HALF2 and op in ("-", "+"):      # __hneg2
            return v if op == "+" else self.negate_fields(v, node)
        if _is_bf16(v.ctype) and op in ("-", "+"):        # __hneg: the sign bit
            return v if op == "+" else self.negate(v, node)
        if op == "!":
            c = self.to_bool(v, node)
            if isinstance(c, Const):
                return Val(T.BOOL, Const(np.bool_(not bool(c.value))))
            d = self.reg(np.bool_)
            self.emit(Op.UN, node, dst=d, args=(c,), sub="lnot")
            return Val(T.BOOL, d)
        if not isinstance(v.ctype, Scalar):
            raise self.err(f'invalid operand type "{v.ctype}" for unary "{op}"', node)
        t = T.promote(v.ctype)
        if op == "~" and t.is_float:
            raise self.err('expression must have integral type for "~"', node)
        v = self.convert(v, t, node)
        if op == "+":
            return v
        name = {"-": "neg", "~": "not"}[op]
        if isinstance(v.op, Const):
            with np.errstate(all="ignore"):
                r = -v.op.value if name == "neg" else ~v.op.value
            return Val(t, Const(t.dtype.type(r)))
        d = self.reg(t.dtype)
        self.emit(Op.UN, node, dst=d, args=(v.op,), sub=name)
        return Val(t, d)

    def incdec(self, node, op, prefix):
        lv = self.lvalue(node.expr)
        old = self.load(lv, node)
        one = Val(T.INT, Const(np.int32(1)))
        if _is_bf16(lv.ctype):                           # cuda_bf16.hpp's ++ adds 1.0 too
            one = Val(T.BF16, Const(_BF16_ONE))
        if _is_half(lv.ctype) or lv.ctype == T.HALF2:    # cuda_fp16.hpp's ++ adds the half 1.0
            h1 = Const(np.float16(1))
            one = Val(T.HALF, h1) if _is_half(lv.ctype) else Val(T.HALF2, None, [h1, h1])
        if isinstance(lv.ctype, Pointer):
            new = Val(lv.ctype, self.index_addr(old, one, node, sub=(op == "--")))
        else:
            new = self.arith("+" if op == "++" else "-", old, one, node)
            new = self.convert(new, lv.ctype, node)
        if not prefix and lv.kind in ("reg",):
            # keep the old value: the variable register is about to change
            keep = self.reg(old.op.dtype)
            self.emit(Op.MOV, node, dst=keep, args=(old.op,))
            old = Val(old.ctype, keep)
        self.store(lv, new, node)
        return new if prefix else old

    def e_BinaryOp(self, node):
        op = node.op
        if self.lw.has_ops:
            got = self.operator_call(op, [node.left, node.right], node)
            if got is not NotImplemented:
                return got
        if op in ("&&", "||"):
            return self.logical(node)
        # contract a*b+c into fma for floats (nvcc -fmad=true)
        if op in ("+", "-"):
            f = self.try_fma(node)
            if f is not None:
                return f
        a = self.rvalue(node.left)
        b = self.rvalue(node.right)
        return self.binop(op, a, b, node)

    def binop(self, op, a: Val, b: Val, node) -> Val:
        if op in _CMP:
            return self.compare(op, a, b, node)
        if op in ("+", "-") and (isinstance(a.ctype, Pointer) or isinstance(b.ctype, Pointer)):
            return self.ptr_arith(op, a, b, node)
        return self.arith(op, a, b, node)

    def try_fma(self, node):
        def is_mul(n):
            return isinstance(n, c_ast.BinaryOp) and n.op == "*"
        if not (is_mul(node.left) or is_mul(node.right)):
            return None
        # type-check cheaply: only floats contract; evaluate operands in source order
        mul_left = is_mul(node.left)
        m = node.left if mul_left else node.right
        other = node.right if mul_left else node.left
        if mul_left:
            x, y = self.rvalue(m.left), self.rvalue(m.right)
            c = self.rvalue(other)
        else:
            c = self.rvalue(other)
            x, y = self.rvalue(m.left), self.rvalue(m.right)
        if all(v.ctype == T.HALF2 for v in (x, y, c)):      # __hfma2, half by half
            if node.op == "-":
                x, c = (x, self.negate_fields(c, node)) if mul_left else (self.negate_fields(x, node), c)
            return self.half_fma(x, y, c, node)
        if all(_is_bf16(v.ctype) for v in (x, y, c)) and \
                not all(isinstance(v.op, Const) for v in (x, y)):
            # fma.rn.bf16: ptxas contracts mul.bf16 and add.bf16 (cuda_bf16.hpp's operators)
            if node.op == "-":
                x, c = (x, self.negate(c, node)) if mul_left else (self.negate(x, node), c)
            return self.bf16_fma(x, y, c, node)
        halves = [_is_half(v.ctype) for v in (x, y, c)]
        if not all(isinstance(v.ctype, Scalar) for v in (x, y, c)) or any(halves) and not all(halves):
            prod = self.binop("*", x, y, m)
            return self.binop(node.op, prod, c, node) if mul_left else self.binop(node.op, c, prod, node)
        pt = usual_arith(x.ctype, y.ctype)
        rt = usual_arith(pt, c.ctype)
        if not (pt.is_float and rt == pt) or any(isinstance(v.op, Const) for v in (x, y)) and \
                all(isinstance(v.op, Const) for v in (x, y)):
            prod = self.arith("*", x, y, m)
            return self.arith(node.op, prod, c, node) if mul_left else self.arith(node.op, c, prod, node)
        x, y, c = (self.convert(v, rt, node) for v in (x, y, c))
        if node.op == "-":
            if mul_left:           # x*y - c = fma(x, y, -c)
                c = self.negate(c, node)
            else:                  # c - x*y = fma(-x, y, c)
                x = self.negate(x, node)
        d = self.reg(rt.dtype)
        self.emit(Op.FMA, node, dst=d, args=(x.op, y.op, c.op))
        return Val(rt, d)

    def half_fma(self, x: Val, y: Val, c: Val, node) -> Val:
        """x * y + c rounded once (``fma.rn.f16``): on halves, or half by half on __half2s."""
        pair = x.ctype == T.HALF2
        fields = []
        for fx, fy, fc in (zip(x.fields, y.fields, c.fields) if pair else [(x.op, y.op, c.op)]):
            d = self.reg(np.float16)
            self.emit(Op.FMA, node, dst=d, args=(fx, fy, fc))
            fields.append(d)
        return Val(T.HALF2, None, fields) if pair else Val(T.HALF, fields[0])

    def bf16_fma(self, x: Val, y: Val, c: Val, node) -> Val:
        """x * y + c on __nv_bfloat16s rounded once (``fma.rn.bf16``)."""
        d = self.reg(np.uint16)
        self.emit(Op.CALL, node, dst=d, args=(x.op, y.op, c.op), sub="m_bfma")
        return Val(T.BF16, d)

    def negate_fields(self, v: Val, node) -> Val:
        """-v of a __half2, half by half."""
        return Val(v.ctype, None, [self.negate(Val(T.HALF, f), node).op for f in v.fields])

    def negate(self, v: Val, node) -> Val:
        if _is_bf16(v.ctype):                   # flips the sign bit of the uint16 pattern
            if isinstance(v.op, Const):
                return Val(v.ctype, Const(np.uint16(int(v.op.value) ^ 0x8000)))
            d = self.reg(np.uint16)
            self.emit(Op.CALL, node, dst=d, args=(v.op,), sub="m_bneg")
            return Val(v.ctype, d)
        if isinstance(v.op, Const):
            return Val(v.ctype, Const(-v.op.value))
        d = self.reg(v.op.dtype)
        self.emit(Op.UN, node, dst=d, args=(v.op,), sub="neg")
        return Val(v.ctype, d)

    def arith(self, op, a: Val, b: Val, node) -> Val:
        if T.HALF2 in (a.ctype, b.ctype):
            if a.ctype != b.ctype or op not in _HALF_ARITH:
                raise self.err(f'no operator "{op}" matches these operands (operand types are: '
                               f"{a.ctype} {op} {b.ctype}): cuda_fp16.hpp defines + - * / on two "
                               "__half2", node)
            return Val(T.HALF2, None, [self.half_bin(_HALF_ARITH[op], T.HALF, x, y, node).op
                                       for x, y in zip(a.fields, b.fields)])
        if not isinstance(a.ctype, Scalar) or not isinstance(b.ctype, Scalar):
            raise self.err(f'operand types are incompatible ("{a.ctype}" and "{b.ctype}") for "{op}"', node)
        if _is_bf16(a.ctype) or _is_bf16(b.ctype):
            if a.ctype != b.ctype or op not in _BF16_ARITH:
                raise self.half_mix(op, a, b, node)
            return self.half_bin(_BF16_ARITH[op], T.BF16, a.op, b.op, node)
        if _is_half(a.ctype) or _is_half(b.ctype):
            if a.ctype != b.ctype or op not in _HALF_ARITH:
                raise self.half_mix(op, a, b, node)
            return self.half_bin(_HALF_ARITH[op], T.HALF, a.op, b.op, node)
        if op in ("<<", ">>"):
            if a.ctype.is_float or b.ctype.is_float:
                raise self.err(f'expression must have integral type for "{op}"', node)
            t = T.promote(a.ctype)
            b = self.convert(b, t, node)
        else:
            t = usual_arith(a.ctype, b.ctype)
            if op in ("%", "&", "|", "^") and t.is_float:
                raise self.err(f'expression must have integral type for "{op}"', node)
            b = self.convert(b, t, node)
        a = self.convert(a, t, node)
        name = _ARITH[op]
        if isinstance(a.op, Const) and isinstance(b.op, Const):
            from .ops import BINOPS
            with np.errstate(all="ignore"):
                try:
                    r = BINOPS[name](np.asarray(a.op.value), np.asarray(b.op.value))
                    return Val(t, Const(t.dtype.type(r)))
                except Exception:
                    pass
        d = self.reg(t.dtype)
        self.emit(Op.BIN, node, dst=d, args=(a.op, b.op), sub=name)
        return Val(t, d)

    def ptr_arith(self, op, a: Val, b: Val, node) -> Val:
        if isinstance(a.ctype, Pointer) and isinstance(b.ctype, Pointer):
            if op != "-":
                raise self.err('two pointers cannot be added', node)
            if a.ctype.base != b.ctype.base:
                raise self.err(f'operand types are incompatible ("{a.ctype}" and "{b.ctype}")', node)
            d = self.reg(np.int64)
            self.emit(Op.BIN, node, dst=d, args=(a.op, b.op), sub="sub")
            esz = T.sizeof(a.ctype.base)
            if esz != 1:
                q = self.reg(np.int64)
                self.emit(Op.BIN, node, dst=q, args=(d, Const(np.int64(esz))), sub="div")
                d = q
            return Val(T.LONG, d)
        if isinstance(b.ctype, Pointer):
            if op == "-":
                raise self.err("an integer minus a pointer is not allowed", node)
            a, b = b, a
        return Val(a.ctype, self.index_addr(a, b, node, sub=(op == "-")))

    def compare(self, op, a: Val, b: Val, node) -> Val:
        if isinstance(a.ctype, Pointer) or isinstance(b.ctype, Pointer):
            ops = (a.op, b.op)
            if isinstance(a.ctype, Scalar):
                ops = (self.convert(a, T.LLONG, node).op, b.op)
            if isinstance(b.ctype, Scalar):
                ops = (a.op, self.convert(b, T.LLONG, node).op)
        else:
            if T.HALF2 in (a.ctype, b.ctype):
                raise self.err(f'comparing {a.ctype} with {b.ctype} is not supported yet: '
                               "compare the .x and .y halves", node)
            if not isinstance(a.ctype, Scalar) or not isinstance(b.ctype, Scalar):
                raise self.err(f'operand types are incompatible ("{a.ctype}" and "{b.ctype}")', node)
            if (_is_half(a.ctype) or _is_half(b.ctype) or _is_bf16(a.ctype) or _is_bf16(b.ctype)) \
                    and a.ctype != b.ctype:
                raise self.half_mix(op, a, b, node)
            if _is_bf16(a.ctype):               # compared as the floats they are
                return self.half_bin("b_" + _CMP[op], T.BOOL, a.op, b.op, node)
            t = usual_arith(a.ctype, b.ctype)
            ops = (self.convert(a, t, node).op, self.convert(b, t, node).op)
        if isinstance(ops[0], Const) and isinstance(ops[1], Const):
            from .ops import BINOPS
            return Val(T.BOOL, Const(np.bool_(BINOPS[_CMP[op]](ops[0].value, ops[1].value))))
        d = self.reg(np.bool_)
        self.emit(Op.BIN, node, dst=d, args=ops, sub=_CMP[op])
        return Val(T.BOOL, d)

    def half_bin(self, sub: str, rt: Scalar, x, y, node) -> Val:
        """A BIN operation of ``simt.ops.HALF_BINOPS`` on two half operands (folded when
        both are constants)."""
        if isinstance(x, Const) and isinstance(y, Const):
            from .ops import BINOPS
            return Val(rt, Const(np.asarray(BINOPS[sub](x.value, y.value)).astype(rt.dtype)[()]))
        d = self.reg(rt.dtype)
        self.emit(Op.BIN, node, dst=d, args=(x, y), sub=sub)
        return Val(rt, d)

    def half_mix(self, op: str, a: Val, b: Val, node) -> CompileError:
        """NVRTC's error for an operator that mixes __half with another type (or that
        cuda_fp16.hpp does not define on halves)."""
        ta, tb = a.ctype, b.ctype
        if _is_bf16(ta) or _is_bf16(tb):
            t, hdr, to_f, from_f = "__nv_bfloat16", "cuda_bf16.hpp", "__bfloat162float", "__float2bfloat16"
        else:
            t, hdr, to_f, from_f = "__half", "cuda_fp16.hpp", "__half2float", "__float2half"
        if ta == tb:
            why = (f'{hdr} defines no "{op}" on {t}, and its conversions to float '
                   "and to each integer type make the built-in one ambiguous")
        else:
            why = (f"the {t} may convert to float or to an integer type, or the other operand "
                   f"to {t}; write {to_f}(h) or {from_f}(x) to say which")
        return self.err(f'more than one operator "{op}" matches these operands (operand types '
                        f'are: {ta} {op} {tb}): {why}', node)

    def half_compound(self, lv: LVal, bop: str, node) -> Val:
        """``h op= e`` on a half (or a __half2): ``operator op=(__half &, const __half &)``,
        the only candidate, so ``e`` converts to half; ``h += a * b`` on halves is one fma
        (one per half of a __half2)."""
        t = lv.ctype
        if bop not in _HALF_ARITH:
            raise self.err(f'no operator "{bop}=" matches these operands (operand types are: '
                           f"{t} {bop}= ...): cuda_fp16.hpp defines += -= *= /= on {t}", node)
        cur = self.load(lv, node)
        r = node.rvalue
        if bop in ("+", "-") and isinstance(r, c_ast.BinaryOp) and r.op == "*":
            x, y = self.rvalue(r.left), self.rvalue(r.right)
            if x.ctype == t and y.ctype == t:
                if bop == "-":
                    x = (self.negate_fields if t == T.HALF2 else self.negate)(x, node)
                return self.half_fma(x, y, cur, node)
            rv = self.binop("*", x, y, r)
        else:
            rv = self.rvalue(r)
        rv = self.convert(rv, t, r, assign=True)
        return self.arith(bop, cur, rv, node)

    def pure(self, node) -> bool:
        """True when evaluating node for inactive lanes is harmless (no loads, stores, calls)."""
        if isinstance(node, (c_ast.ArrayRef, c_ast.Assignment)):
            return False
        if self.lw.has_ops and self.overloaded_node(node):
            return False
        if isinstance(node, c_ast.UnaryOp) and node.op in ("*", "++", "--", "p++", "p--"):
            return False
        if isinstance(node, c_ast.StructRef) and node.type == "->":
            return False
        if isinstance(node, c_ast.StructRef) and not (isinstance(node.name, c_ast.ID)):
            return self.pure(node.name)
        if isinstance(node, c_ast.FuncCall):
            if not (isinstance(node.name, c_ast.ID) and node.name.name in _PURE_CALLS):
                return False
        return all(self.pure(c) for _, c in node.children())

    def logical(self, node) -> Val:
        a = self.cond_bool(node.left)
        if self.pure(node.right):
            b = self.cond_bool(node.right)
            if isinstance(a, Const) and isinstance(b, Const):
                r = bool(a.value) and bool(b.value) if node.op == "&&" else bool(a.value) or bool(b.value)
                return Val(T.BOOL, Const(np.bool_(r)))
            d = self.reg(np.bool_)
            self.emit(Op.BIN, node, dst=d, args=(a, b), sub="and" if node.op == "&&" else "or")
            return Val(T.BOOL, d)
        res = self.reg(np.bool_, True, name="logic")
        self.emit(Op.MOV, node, dst=res, args=(a,))
        cond = res
        if node.op == "||":
            cond = self.reg(np.bool_)
            self.emit(Op.UN, node, dst=cond, args=(res,), sub="lnot")
        ereg = self.reg(np.bool_, name="else")
        ins = self.emit(Op.IF, node, args=(cond,), ereg=ereg)
        self.push()
        b = self.cond_bool(node.right)
        self.emit(Op.MOV, node.right, dst=res, args=(b,))
        self.pop()
        ins.target = len(self.code)
        return Val(T.BOOL, res)

    def e_TernaryOp(self, node):
        """``c ? a : b``: a select when both arms are pure, else if/else, so that an arm's
        loads, stores and calls run only for its lanes.  A struct or vector value is
        selected field by field."""
        c = self.cond_bool(node.cond)
        if isinstance(c, Const):
            return self.rvalue(node.iftrue if bool(c.value) else node.iffalse)
        if self.pure(node.iftrue) and self.pure(node.iffalse):
            a = self.rvalue(node.iftrue)
            b = self.rvalue(node.iffalse)
            t = self.common(a, b, node)
            a, b = self.convert(a, t, node), self.convert(b, t, node)
            if _agg(t):
                dst = [self.reg(T.storage_dtype(mt)) for _, mt, _ in _leaves(t)]
                for d, fa, fb in zip(dst, a.fields, b.fields):
                    self.emit(Op.SELECT, node, dst=d, args=(c, fa, fb))
                return Val(t, None, dst)
            d = self.reg(T.storage_dtype(t))
            self.emit(Op.SELECT, node, dst=d, args=(c, a.op, b.op))
            return Val(t, d)
        t = self.common(Val(self.type_of(node.iftrue)), Val(self.type_of(node.iffalse)), node)
        res = (self.field_regs(t, "cond") if _agg(t)
               else self.reg(T.storage_dtype(t), True, name="cond"))
        ereg = self.reg(np.bool_, name="else")
        ins_if = self.emit(Op.IF, node, args=(c,), ereg=ereg)
        for k, arm in enumerate((node.iftrue, node.iffalse)):
            if k:
                ins_else = self.emit(Op.ELSE, arm, ereg=ereg)
                ins_if.target = len(self.code) - 1
            self.push()
            v = self.convert(self.rvalue(arm), t, arm)
            for d, f in zip(res, v.fields) if _agg(t) else ((res, v.op),):
                self.emit(Op.MOV, arm, dst=d, args=(f,))
            self.pop()
        ins_else.target = len(self.code)
        return Val(t, None, res) if _agg(t) else Val(t, res)

    def folded(self, node, t):
        """The constant value of the initializer ``node`` converted to ``t``, or None; the
        code that computes it is not kept (as in ``type_of``)."""
        self.folding += 1
        try:
            with self.discarded():
                v = self.convert(self.rvalue(node), t, node, assign=True)
        finally:
            self.folding -= 1
        return v.op if isinstance(v.op, Const) else None

    def type_of(self, node) -> CType:
        """The type of an expression, without keeping the code that computes it (nor the
        registers, built-in registers, local memory and fences that code made)."""
        with self.discarded():
            return self.rvalue(node).ctype

    @contextmanager
    def discarded(self):
        """Lower inside the block without keeping what it emits: the code, registers,
        fences, built-in registers and local slots made there are dropped afterwards."""
        mark, nregs, frame = len(self.code), len(self.regs), self.local_frame
        nslots, nfences, builtins = len(self.local_slots), len(self.fences), dict(self.builtin_regs)
        try:
            yield
        finally:
            del self.code[mark:]
            del self.regs[nregs:]
            del self.fences[nfences:]
            del self.local_slots[nslots:]
            self.builtin_regs = builtins
            self.local_frame = frame

    def common(self, a: Val, b: Val, node):
        if isinstance(a.ctype, Scalar) and isinstance(b.ctype, Scalar):
            if (_is_half(a.ctype) or _is_half(b.ctype) or _is_bf16(a.ctype) or _is_bf16(b.ctype)) \
                    and a.ctype != b.ctype:
                raise self.err(f'operand types are incompatible ("{a.ctype}" and "{b.ctype}"): '
                               "each converts to the other; convert one side explicitly", node)
            return usual_arith(a.ctype, b.ctype)
        if isinstance(a.ctype, Pointer):
            return a.ctype
        if isinstance(b.ctype, Pointer):
            return b.ctype
        if a.ctype == b.ctype:
            return a.ctype
        raise self.err(f'operand types are incompatible ("{a.ctype}" and "{b.ctype}")', node)

    def e_Assignment(self, node):
        if self.lw.has_ops and node.op != "=":
            got = self.operator_call(node.op, [node.lvalue, node.rvalue], node)
            if got is not NotImplemented:
                return got
        lv = self.lvalue(node.lvalue)
        op = node.op
        if op == "=":
            v = self.convert(self.rvalue(node.rvalue), lv.ctype, node.rvalue, assign=True)
        else:
            bop = op[:-1]
            if _is_half(lv.ctype) or lv.ctype == T.HALF2:
                v = self.half_compound(lv, bop, node)
            elif _is_bf16(lv.ctype):            # operator op=(__nv_bfloat16 &, const __nv_bfloat16 &)
                if bop not in _BF16_ARITH:
                    raise self.err(f'no operator "{bop}=" matches these operands (operand types '
                                   f"are: {lv.ctype} {bop}= ...): cuda_bf16.hpp defines += -= *= /= "
                                   "on __nv_bfloat16", node)
                cur, r = self.load(lv, node), node.rvalue
                if bop in ("+", "-") and isinstance(r, c_ast.BinaryOp) and r.op == "*" and \
                        _is_bf16(self.type_of(r.left)) and _is_bf16(self.type_of(r.right)):
                    x, y = self.rvalue(r.left), self.rvalue(r.right)      # one fma.rn.bf16
                    v = self.bf16_fma(self.negate(x, node) if bop == "-" else x, y, cur, node)
                else:
                    v = self.arith(bop, cur, self.convert(self.rvalue(r), T.BF16, r), node)
            elif bop in ("+", "-") and isinstance(lv.ctype, Scalar) and lv.ctype.is_float and \
                    isinstance(node.rvalue, c_ast.BinaryOp) and node.rvalue.op == "*":
                cur = self.load(lv, node)
                x, y = self.rvalue(node.rvalue.left), self.rvalue(node.rvalue.right)
                if all(isinstance(q.ctype, Scalar) and not q.ctype.is_half for q in (x, y)) and \
                        usual_arith(usual_arith(x.ctype, y.ctype), cur.ctype) == lv.ctype and \
                        usual_arith(x.ctype, y.ctype).is_float:
                    t = lv.ctype
                    x, y = self.convert(x, t, node), self.convert(y, t, node)
                    if bop == "-":
                        x = self.negate(x, node)
                    d = self.reg(t.dtype)
                    self.emit(Op.FMA, node, dst=d, args=(x.op, y.op, cur.op))
                    v = Val(t, d)
                else:
                    prod = self.binop("*", x, y, node.rvalue)
                    if _is_half(prod.ctype):
                        raise self.half_mix(op, cur, prod, node)
                    v = self.convert(self.binop(bop, cur, prod, node), lv.ctype, node)
            else:
                cur = self.load(lv, node)
                r = self.rvalue(node.rvalue)
                if _is_half(r.ctype) and isinstance(lv.ctype, Scalar):
                    raise self.half_mix(op, cur, r, node)
                v = self.convert(self.binop(bop, cur, r, node), lv.ctype, node)
        self.store(lv, v, node)
        return v

    # -------------------------------------------------------------- conversion
    def convert(self, v: Val, to: CType, node, explicit=False, assign=False) -> Val:
        fr = v.ctype
        if fr == to:
            return v
        if _agg(to) or _agg(fr):
            if isinstance(to, Vector) and isinstance(fr, Vector) and to.elem == fr.elem and to.n == fr.n:
                return Val(to, None, v.fields)
            if self.conversion_rank(fr, to) and self.class_info(to) is not None:
                return self.construct_with(to, [v], node)     # a converting constructor
            raise self.err(f'no suitable conversion from "{fr}" to "{to}"', node)
        if isinstance(to, Pointer):
            if isinstance(fr, Pointer):
                if not explicit:
                    ok = (to.base == fr.base or to.base == T.VOID or
                          (isinstance(to.base, Scalar) and isinstance(fr.base, Scalar) and to.base == fr.base))
                    if not ok:
                        what = "assigned to" if assign else "used to initialize"
                        raise self.err(f'a value of type "{fr}" cannot be {what} an entity of type "{to}"', node)
                    if fr.const and not to.const:
                        raise self.err(f'a value of type "{fr}" cannot be used to initialize an entity of '
                                       f'type "{to}" (it drops const)', node)
                if isinstance(v.op, RegTarget) and to.base != fr.base:
                    raise self.err(v.op.error(), node)   # (float *)&i: its bytes, in memory
                return Val(to, v.op)
            if isinstance(fr, Scalar) and not fr.is_float:
                if not explicit and not (isinstance(v.op, Const) and int(v.op.value) == 0):
                    raise self.err(f'a value of type "{fr}" cannot be used to initialize an entity of type "{to}"', node)
                return Val(to, self.cast_op(v.op, np.dtype(np.int64), node))
            raise self.err(f'invalid type conversion from "{fr}" to "{to}"', node)
        if isinstance(to, Scalar):
            if isinstance(fr, Pointer):
                if not explicit and not to.is_bool:
                    raise self.err(f'a value of type "{fr}" cannot be used to initialize an entity of type "{to}"', node)
                if to.is_bool:
                    return Val(to, self.to_bool(v, node))
                return Val(to, self.cast_op(v.op, to.dtype, node))
            if isinstance(fr, Scalar):
                if fr.is_bf16 and to != fr:     # operator float(), then float to the target
                    v = Val(T.FLOAT, self.bf16_call("m_b2f", np.float32, v.op, node))
                    if to == T.FLOAT:
                        return v
                elif to.is_bf16 and to != fr:   # __float2bfloat16 & co: nearest even
                    return Val(to, self.bf16_call("m_bcvt_rn", np.uint16, v.op, node))
                if to.is_bool:
                    return Val(to, self.to_bool(v, node))
                return Val(to, self.cast_op(v.op, to.dtype, node))
        raise self.err(f'no suitable conversion from "{fr}" to "{to}"', node)

    def bf16_call(self, sub, dtype, op, node):
        """One CALL of ``simt.ops.BF16_CALLS`` on one operand (folded on a constant)."""
        if isinstance(op, Const):
            from .ops import CALLS
            with np.errstate(all="ignore"):
                return Const(np.asarray(CALLS[sub](np.asarray(op.value))).astype(dtype)[()])
        d = self.reg(dtype)
        self.emit(Op.CALL, node, dst=d, args=(op,), sub=sub)
        return d

    def cast_op(self, op, dtype: np.dtype, node):
        if op.dtype == dtype:
            return op
        if isinstance(op, Const):
            from .ops import cast_value
            return Const(cast_value(np.asarray(op.value), dtype)[()])
        d = self.reg(dtype)
        if dtype == np.float16:         # __float2half & co: nearest even, NaN made canonical
            self.emit(Op.CALL, node, dst=d, args=(op,), sub="m_hcvt_rn")
        else:
            self.emit(Op.CAST, node, dst=d, args=(op,))
        return d

    # ------------------------------------------------------------------- calls
    def e_FuncCall(self, node, want=True):
        if isinstance(node.name, c_ast.StructRef):
            if node.name.type == "->" or self.class_info(self.type_of(node.name.name)) is not None:
                return self.method_call(node, want)
            node = self.group_method(node)
        args = list(node.args.exprs) if node.args else []
        if not isinstance(node.name, c_ast.ID):
            f = self.operand(node.name) if self.lw.has_ops else None
            got = self.functor_call(f, args, node) if f is not None else NotImplemented
            if got is NotImplemented:
                raise self.err("calls through function pointers are outside simt's subset", node)
            return got
        name = self.lw.names.get(node.name.name, node.name.name)
        if name in self.lw.lambdas:
            return self.closure(node)
        if name in (MEMINIT, MEMLIST) and self.this_stack and self.this_stack[-1] is not None:
            return self.member_init(node)
        if self.lookup(name) is not None:
            got = self.functor_call(self.operand(node.name), args, node) if self.lw.has_ops \
                else NotImplemented
            if got is NotImplemented:
                raise self.err(f'"{name}" is a variable, not a function', node)
            return got
        if self.this_stack and self.this_stack[-1] is not None:
            got = self.bare_call(name, args, node)
            if got is not NotImplemented:
                return got
        if name in self.lw.classes.qualified:
            return self.qualified_call(name, args, node)
        t = self.is_type_name(name)
        if t is not None:
            return self.construct_temp(t, node)
        if name in self.lw.funcs and name not in INTRINSICS:
            return self.inline_call(name, args, node)
        if name in CURAND_OVERLOADS and "__curand_xorwow_curand" in self.lw.funcs:
            return self.curand_call(name, args, node)
        tm = self.lw.templates
        if tm is not None and name in tm.by_name and name not in INTRINSICS:
            return self.deduced_call(tm, name, args, node)
        if name in INTRINSICS:
            return lower_intrinsic(self, name, args, node, want)
        if name in T.FUNCTIONAL_CASTS:          # T(e), as the front end wrote it
            spelled, to = T.FUNCTIONAL_CASTS[name]
            if len(args) != 1:
                raise self.err(f"{spelled}(...) takes one value to convert, got {len(args)}", node)
            return self.convert(self.rvalue(args[0]), to, node, explicit=True)
        if name in self.lw.host_funcs:
            raise self.err(self.host_call(name), node.name)
        raise self.err(f'identifier "{name}" is undefined', node.name)

    def host_call(self, name: str) -> str:
        at = self.lw.host_funcs[name]
        return (f'calling a __host__ function("{name}") from device code is not allowed: it is '
                f"declared at {at.file}:{at.line} without __device__ (declare it __device__, or "
                "__host__ __device__ to keep it for the host too)")

    def group_method(self, node):
        """``g.m(args)`` on a cooperative group (``simt.coop``): the call
        ``_cg_<kind>_<m>(g, args)``."""
        from . import coop
        ref = node.name
        ct = self.type_of(ref.name)
        kind = coop.KINDS.get(getattr(ct, "name", None))
        if kind is None:
            raise self.err(f'expression of type "{ct}" has no member function "{ref.field.name}"', ref)
        fn = f"_cg_{kind}_{ref.field.name}"
        if fn not in self.lw.funcs and (self.lw.templates is None or fn not in self.lw.templates.by_name):
            why = coop.WHY.get((kind, ref.field.name))
            raise self.err(why or f"{ref.field.name}() of a cooperative group ({kind}) is outside "
                           "simt's subset", ref.field)
        args = [ref.name] + (list(node.args.exprs) if node.args else [])
        return c_ast.FuncCall(c_ast.ID(fn, coord=ref.coord), c_ast.ExprList(args, coord=node.coord),
                              coord=node.coord)

    def curand_call(self, name, args, node):
        """A cuRAND device function (``curand_uniform(&s)``): the header's implementation
        for the generator its state argument points to (``simt.curand``)."""
        from .curand import resolve
        k = CURAND_OVERLOADS[name]
        a = args[k] if len(args) > k else None
        amp = isinstance(a, c_ast.UnaryOp) and a.op == "&"
        st = Pointer(self.type_of(a.expr)) if amp else self.type_of(a) if a is not None else None
        impl = resolve(name, st.base.name if isinstance(st, Pointer) and isinstance(st.base, Struct)
                       else None)
        if impl is None or impl not in self.lw.funcs:
            shown = ", ".join(str(st if j == k else self.type_of(x)) for j, x in enumerate(args))
            raise self.err(f'no instance of overloaded function "{name}" matches the argument list '
                           f"(argument types are: ({shown}); simt's curand_kernel.h has the XORWOW "
                           "and Philox4_32_10 generators)", node)
        # the header's functions take the state by reference: &s is s itself, any other
        # pointer p is *p.  (Through a pointer, a local XORWOW state's words would be local
        # loads and stores; by reference simt.promote keeps them in registers, as nvcc does)
        args = list(args)
        args[k] = a.expr if amp else c_ast.UnaryOp("*", a, a.coord)
        return self.inline_call(impl, args, node, display=name)

    def deduced_call(self, tm, name, args, node):
        """A call to a function template that names no arguments: deduce them from the
        arguments' types; an instance not yet written in stops the build (NeedInstance)
        so that the module writes it in and lowers again."""
        from .templates import deduce
        vals = [self.operand(a) for a in args]
        types = [_spelling(Pointer(v.ctype.elem) if isinstance(v.ctype, Array) else v.ctype) for v in vals]
        co = self.co(node)
        inst = tm.instance(name, deduce(tm.by_name[name], types, co, tm), co)
        if inst.display not in self.lw.funcs:
            raise NeedInstance(inst)
        return self.inline_call(inst.display, args, node, vals)

    def inline_call(self, name, args, node, pre=None, this=None, fdef=None, display=None):
        """Inline function ``name`` (a member function: its ``fdef``, the object ``this``, a
        value or an lvalue, and ``display``, its C++ name) called with ``args`` (nodes, or
        values already evaluated: ``pre``)."""
        fdef = fdef or self.lw.funcs[name]
        display = display or name
        method = self.lw.classes.by_ident.get(fdef.decl.name)
        if "global" in Lowerer._attrs(fdef.decl):
            raise self.err(f'calling a __global__ function ("{name}") from a kernel needs dynamic '
                           "parallelism, which simt does not emulate", node)
        if any(f[0] == name for f in self.funcs):
            raise self.err(f'recursive call to "{display}" is outside simt\'s subset', node)
        ftype = fdef.decl.type
        lambda_op = bool(self.lw.lambdas) and method is not None and method.cls in self.lw.lambdas
        deduced = lambda_op and self.is_auto(ftype.type)     # a lambda's return type, deduced
        rtype = DEDUCED if deduced else self.ctype(ftype.type, allow_void=True)
        plist = [p for p in (ftype.args.params if ftype.args else [])
                 if lambda_op and self.is_auto(p.type) or
                 not (self.ctype(p.type, allow_void=True) == T.VOID and p.name is None)]
        dflt = self.lw.defaults.get(name, {})
        if len(args) < len(plist) and all(i in dflt for i in range(len(args), len(plist))):
            more = [dflt[i] for i in range(len(args), len(plist))]   # default arguments
            if pre is not None:
                pre = list(pre) + [self.rvalue(d) for d in more]
            args = list(args) + more
        if len(plist) != len(args):
            raise self.err(f'too {"few" if len(args) < len(plist) else "many"} arguments in call to '
                           f'"{display}" (expected {len(plist)}, got {len(args)})', node)
        obj = self.bind_this(method, this, node) if method is not None else None
        vals = []
        refs = self.lw.refs.get(name, frozenset())
        for i, (p, a) in enumerate(zip(plist, args)):
            if lambda_op and self.is_auto(p.type):      # a generic lambda's auto parameter
                e, pt = self.auto_arg(p, a, pre[i] if pre is not None else None, i in refs)
            else:
                pt = self.ctype(p.type)
                if isinstance(pt, Array):
                    pt = Pointer(pt.elem)
                if pre is None and isinstance(a, c_ast.InitList):
                    if i in refs and not _const_decl(p.type):
                        raise self.err(f'a braced list cannot bind to the non-const reference '
                                       f'parameter "{p.name}" of "{display}"', a)
                    e = self.braced(pt, a)           # f({a, b}): the parameter list-initialized
                else:
                    e = pre[i] if pre is not None else (self.operand(a) if i in refs else self.rvalue(a))
            if i in refs and isinstance(e, LVal) and e.ctype == pt:
                vals.append((p, pt, e))              # a reference: the caller's own lvalue
                continue
            v = self.load(e, a) if isinstance(e, LVal) else e
            vals.append((p, pt, self.convert(v, pt, a, assign=True)))
        saved_scopes = self.scopes
        saved_loops = self.loops
        self.scopes = [dict(self.closure_scope(method, obj)) if lambda_op else {}]
        self.loops = []
        for p, pt, v in vals:
            if isinstance(v, LVal):
                self.scopes[-1][p.name] = _ref_sym(v)
            elif _agg(pt):
                sym = self.agg_var(pt, p.name)
                self.set_var(sym, v, node)
                self.scopes[-1][p.name] = sym
            elif isinstance(v.op, RegTarget):        # f(&x): *p, p->m, p[0] name x
                self.scopes[-1][p.name] = Sym("regptr", pt, v.op)
            else:
                r = self.reg(T.storage_dtype(pt), True, p.name)
                self.emit(Op.MOV, node, dst=r, args=(v.op,))
                self.scopes[-1][p.name] = Sym("var", pt, r)
        ret = None
        returns_ref = (method is not None and method.ref_return) or -1 in refs
        ref = {"const": _const_decl(ftype.type)} if returns_ref else None
        if ref is not None:
            ret = self.reg(np.int64, True, f"{display}.ret")
        elif rtype is not DEDUCED and rtype != T.VOID:
            if _agg(rtype):
                ret = self.field_regs(rtype, f"{display}.ret")
            else:
                ret = self.reg(T.storage_dtype(rtype), True, f"{display}.ret")
        self.emit(Op.BODYINIT, node)
        self.push()
        self.funcs.append((name, self.depth, ret, rtype, ref, display))
        self.this_stack.append((method, obj) if method is not None else None)
        if method is not None and method.kind == "ctor":
            self.ctor_prologue(method, obj, fdef, node)
        self.stmt(fdef.body)
        self.this_stack.pop()
        if deduced:                     # what its first return made (nothing: void)
            _, _, ret, rtype, _, _ = self.funcs[-1]
            rtype = T.VOID if rtype is DEDUCED else rtype
        self.funcs.pop()
        self.pop()
        self.scopes = saved_scopes
        self.loops = saved_loops
        if ref is not None:
            return self.returned_reference(ref, rtype, ret, display, node)
        if ret is None:
            return None
        if _agg(rtype):
            return Val(rtype, None, ret)
        return Val(rtype, ret)
