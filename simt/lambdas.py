"""C++ lambdas in device code: a class the lowering completes where the lambda is.

::

    auto sq = [](float v) { return v * v; };
    float acc = 0.0f;
    auto add = [&](int k) { acc += x[k]; };
    y[i] = apply([=](float v) { return v * s + a; }, x[i]);     // template <typename F> ... F f

Each lambda expression (captures ``[]``, ``[=]``, ``[&]``, ``[a, &b]``, ``[=, &b]``,
``[&, a]``, init-captures ``[n = 0]``, ``[&r = x]``; parameters or none; ``mutable``;
``-> T``) is cut out of its function (the text that
follows keeps its lines and columns) and becomes:

- an ``operator()`` written before that function as a file-scope function (``<tag>_call``)
  at the lambda's own lines and columns (``#line``), in the ``ClassTable`` as the one
  member function of a class named by the lambda's tag (``__lam<hash>``), ``const`` unless
  the lambda is ``mutable``; with no ``-> T`` its return type is deduced from its first
  ``return`` (``AUTO``), and a parameter declared ``auto`` (a generic lambda) takes its
  argument's type at each call, as C++ instantiates the call operator template for it;
- at the lambda's place, the call ``<tag>(e1, e2, ...)`` of its explicit captures (a
  name, or an init-capture's expression), which the lowering (``LambdaLowering``) reads
  as the closure object: it finds the names the body uses that are the enclosing
  function's variables (the implicit captures of ``[=]`` and ``[&]``); the captures by
  value become the members of a struct made then (their types are the variables', known
  there), copied at that point, and the body names them bare, as a member function names
  its members; the captures by reference name the variables themselves (their registers
  or memory) for every call of the lambda's ``operator()``, as a reference parameter does.

A ``__shared__`` variable, and a ``const`` integer local with a constant value, are
named, never copied (C++ does not capture a variable of static storage nor a constant it
does not odr-use).  So a closure passed by value (``apply(f, x)``) copies the captured
values, and a ``mutable`` lambda changes its own copies; the lambda's class is named
``struct __lam<hash>`` in template arguments (``apply<struct __lam1a2b3c4d>``).

Limitations (each an error naming the place): a lambda at file scope or in a struct's
initializer; a ``__device__`` or ``__host__`` annotation (nvcc and NVRTC want
``--extended-lambda`` for it, even in device code); capturing ``this`` (a lambda in a member function using the object's members);
capturing a local array by value; a braced list as a deduced return value; parameter
packs, ``template`` parameter lists (``[]<typename T>(T v)``), default arguments;
``std::function`` (``std::`` is outside the subset).  A capture by reference names the
variable of the closure's latest evaluation: a closure kept past the function that made
it (returned from a lambda) refers to where its variables were, as C++ leaves it
dangling.  Columns after a lambda on its last line are those of the rewritten text where
the call ``__lam<hash>(...)`` is longer than the lambda.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from pycparser import c_ast

from .classes import ClassInfo, ClassTable, Method, _closing, _Rewriter, _skip_ws
from .errors import CompileError, Coord
from .templates import skip_string, split_spans

PREFIX = "__lam"          # a lambda's tag: PREFIX + 8 hex digits
AUTO = "__au"             # ``auto`` as a parameter's or the return type (a typedef name)
PRELUDE = f"typedef int {AUTO};"
_SPECS = ("__device__", "__host__", "__forceinline__", "__noinline__", "mutable", "constexpr",
          "noexcept", "inline")
_INTRO_AFTER = re.compile(r"\s*(?:\(|\{|->|<|(?:" + "|".join(_SPECS) + r")\b)")


@dataclass
class Capture:
    name: str
    byref: bool
    init: bool               # an init-capture (``n = 0``): its expression is the call's argument
    coord: Coord


@dataclass
class Lambda:
    tag: str
    ident: str               # its operator()'s file-scope function
    default: str | None      # "=", "&" or None
    captures: list[Capture]
    coord: Coord
    label: str               # ``lambda [=](float v)``, as messages show it
    owner: str               # the function it is defined in (its identifier in the text)


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _fill(new: str, old: str) -> str:
    """``new`` standing for ``old``: its line breaks kept, the last line padded to its
    length, so that what follows keeps its line and column."""
    if "\n" in old:
        return new + "\n" * old.count("\n") + " " * len(old[old.rfind("\n") + 1:])
    return new + " " * max(0, len(old) - len(new))


_INTRO = re.compile(r"(?:[=(,{};:?+\-*/%&|^!~<>]|(?<![\w$])return)\s*(\[)(?!\[)")


def _introducers(text: str) -> list[int]:
    """Where a lambda's ``[`` is: where an expression may start (after an operator, ``( ,
    { } ; : ?`` or ``return``; not an attribute ``[[``, nor a subscript, nor a designator
    ``[2] =``), its ``]`` followed by parameters, a body, ``->`` or a specifier; outside
    string and character literals."""
    out = []
    for m in _INTRO.finditer(text):
        close = _closing(text, m.start(1))
        if close > 0 and _INTRO_AFTER.match(text, close + 1):
            out.append(m.start(1))
    if not out:
        return out
    strings, i = [], 0                  # (only a file with a lambda gets here)
    while i < len(text):
        if text[i] in "\"'":
            j = skip_string(text, i)
            strings.append((i, j))
            i = j
            continue
        i += 1
    return [p for p in out if not any(a < p < b for a, b in strings)]


class _LambdaRewriter(_Rewriter):
    def __init__(self, text: str, filename: str, table: ClassTable):
        super().__init__(text, filename)
        self.table = table
        self.lambdas: dict[str, Lambda] = {}

    def run(self):
        while True:
            starts = _introducers(self.text)
            if not starts:
                return self.text, self.lambdas
            self.text = self.one(starts[-1])     # the last one holds no other lambda

    def enclosing(self, pos: int) -> int:
        """The ``{`` of the file-scope declaration (a function's body) around ``pos``, or -1."""
        extern = self.extern_braces()
        t = self.text
        depth, open_, i = 0, -1, 0
        while i < pos:
            c = t[i]
            if c in "\"'":
                i = skip_string(t, i)
                continue
            if c in "{}" and i not in extern:
                if c == "{":
                    if depth == 0:
                        open_ = i
                    depth += 1
                else:
                    depth -= 1
            i += 1
        return open_ if depth > 0 else -1

    def owner(self, pos: int) -> tuple[str, int, bool]:
        """The function a lambda at ``pos`` is in: its identifier, where its declaration
        starts, and whether it is device code."""
        brace = self.enclosing(pos)
        if brace < 0:
            raise self.err("a lambda at file scope is outside simt's subset; define it inside "
                           "the kernel or __device__ function that uses it", pos)
        t = self.text
        start = self.decl_start(t, brace)
        head = t[start:brace]
        m = re.search(r"\)\s*(?:(?:const|noexcept|volatile)\s*)*$", head)
        po = None
        if m:
            depth, k = 0, start + m.start()
            while k >= start:
                depth += {")": 1, "(": -1}.get(t[k], 0)
                if depth == 0:
                    po = k
                    break
                k -= 1
        nm = re.search(r"([A-Za-z_]\w*)\s*$", t[start:po]) if po is not None else None
        if nm is None or re.match(r"\s*(?:struct|class|union|enum)\b", head):
            raise self.err("a lambda outside a function body is outside simt's subset", pos)
        name = nm.group(1)
        device = (name in self.table.by_ident or
                  re.search(r"\b(?:__device__|__global__)\b", head) is not None)
        return name, start, device

    def one(self, pos: int) -> str:
        """The text with the lambda at ``pos`` rewritten (see the module docstring)."""
        t = self.text
        owner, ins, device = self.owner(pos)
        rb = _closing(t, pos)
        caps_text = t[pos + 1:rb]
        j, po, pc, specs = _skip_ws(t, rb + 1), None, None, []

        def specifiers(j):
            while True:
                wm = re.match(r"[A-Za-z_]\w*", t[j:j + 40])
                if not wm or wm.group(0) not in _SPECS:
                    return j
                specs.append((wm.group(0), j))
                j = _skip_ws(t, j + wm.end())
                if wm.group(0) == "noexcept" and t.startswith("(", j):
                    j = _skip_ws(t, _closing(t, j) + 1)
        j = specifiers(j)
        if t.startswith("<", j):
            raise self.err("a lambda with a template parameter list ([]<typename T>(T v) { ... }) is "
                           "outside simt's subset; write auto parameters ([](auto v) { ... })", j)
        if t.startswith("(", j):
            po, pc = j, _closing(t, j)
            if pc < 0:
                raise self.err("unbalanced parentheses in this lambda's parameter list", j)
            j = specifiers(_skip_ws(t, pc + 1))
        ret = None
        if t.startswith("->", j):
            k = j + 2
            while k < len(t) and t[k] not in "{;":
                close = _closing(t, k) if t[k] in "([" else k
                if close < 0:
                    raise self.err("unbalanced brackets in this lambda's return type", k)
                k = close + 1
            ret, j = " ".join(t[j + 2:k].split()), k
        if not t.startswith("{", j):
            raise self.err("cannot read this lambda (its body { ... } should follow)", pos)
        body_a, body_b = j, _closing(t, j) + 1
        if body_b <= 0:
            raise self.err("unbalanced braces in this lambda's body", j)
        words = {w for w, _ in specs}
        if words & {"__device__", "__host__"}:
            # nvcc and NVRTC reject the annotation without --extended-lambda, even in
            # device code (measured: the GPU run of tests/test_lambdas.py), and simt
            # compiles what CuPy compiles
            at = next(p for w, p in specs if w in ("__device__", "__host__"))
            where = ("" if device else " (in host code, an extended lambda passed to a kernel "
                     "launch is outside simt's subset)")
            raise self.err("__host__ or __device__ annotation on lambda requires the "
                           "--extended-lambda nvcc flag, which simt and its --real backend do "
                           "not use: a lambda inside a kernel or a __device__ function is a "
                           "device lambda without it; drop the annotation" + where, at)
        co = self.co(pos)
        key = self.table.by_ident[owner].display if owner in self.table.by_ident else owner
        tag = PREFIX + hashlib.sha1(f"{key}|{co}".encode()).hexdigest()[:8]
        ident = f"{tag}_call"
        default, caps, args = self.captures(pos, caps_text)
        for a, b in split_spans(t, po + 1, pc) if po is not None else []:
            eq = re.search(r"(?<![=!<>])=(?!=)", t[a:b])
            if eq:
                raise self.err("default arguments are outside simt's subset; give every argument "
                               "at the call", a + eq.start())
            if "..." in t[a:b]:
                raise self.err("parameter packs are outside simt's subset", a + t[a:b].index("..."))

        def params_at(params):             # ``auto`` as AUTO (its ``*`` are its deduction's)
            return re.sub(r"\bauto\b((?:\s*\*)*)", lambda m: AUTO + _blank(m.group(1)), params)
        ref = False
        if ret is None or ret == "auto":
            ret = AUTO
        elif ret.endswith("&"):
            if ret.endswith("&&"):
                raise self.err("a lambda returning an rvalue reference is outside simt's subset", pos)
            ref, ret = True, ret[:-1].strip()
            if ret == "auto":
                raise self.err("a lambda returning auto & is outside simt's subset; write the "
                               "type it returns a reference to", pos)
        if re.search(r"\bdecltype\b", ret):
            raise self.err("decltype is outside simt's subset; write the return type", pos)
        label = "lambda [" + " ".join(caps_text.split()) + "](" + " ".join(t[po + 1:pc].split()) \
            + ")" if po is not None else "lambda [" + " ".join(caps_text.split()) + "]"
        self.table.classes[tag] = ClassInfo(tag, co)
        self.table.add(Method(ident, tag, "operator()", "operator", co, const="mutable" not in words,
                              ref_return=ref, label=label))
        self.lambdas[tag] = Lambda(tag, ident, default, caps, co, label, owner)
        # the head on the line before the parameters' (or the body's), which keep their places
        c = self.co(po if po is not None else body_a)
        fn = f'\n#line {c.line - 1} "{c.file}"\n{ret} {ident}\n' + " " * (c.col - 1)
        if po is not None:
            fn += params_at(t[po:pc + 1]) + _blank(t[pc + 1:body_a])
        else:
            fn = fn[:-2] + "()" if fn.endswith("  ") else fn + "()"
        fn += t[body_a:body_b] + self.line_directive(ins)
        call = _fill(f"{tag}({', '.join(args)})", t[pos:body_b])
        return t[:ins] + fn + t[ins:pos] + call + t[body_b:]

    def captures(self, pos: int, caps_text: str):
        """The capture-default, the explicit captures and the call's arguments for them."""
        t = self.text
        default, caps, args, seen = None, [], [], set()
        a0 = pos + 1
        for k, (a, b) in enumerate(split_spans(t, a0, a0 + len(caps_text), brackets="()[]{}",
                                               strings=True)):
            part = t[a:b].strip()
            at = a + len(t[a:b]) - len(t[a:b].lstrip())
            if not part:
                if k == 0 and b == a0 + len(caps_text):
                    break
                raise self.err("cannot read this lambda's capture list", at)
            if part in ("=", "&"):
                if k != 0:
                    raise self.err("the capture default (= or &) must come first in the capture list", at)
                default = part
                continue
            if re.fullmatch(r"\*?\s*this", part):
                raise self.err(f"capturing {part} is outside simt's subset (a lambda in a member "
                               "function using the object): pass what it needs as parameters, or "
                               "copy the members into locals and capture those", at)
            m = re.fullmatch(r"(&)?\s*([A-Za-z_]\w*)\s*(\.\.\.)?\s*(?:=\s*(.+)|\{(.*)\}|\((.*)\))?",
                             part, re.S)
            if not m:
                raise self.err(f'cannot read the capture "{part}"', at)
            byref, name = m.group(1) is not None, m.group(2)
            if m.group(3):
                raise self.err("capturing a parameter pack is outside simt's subset", at)
            init = next((g for g in m.group(4, 5, 6) if g is not None), None)
            if init is None and default == ("&" if byref else "="):
                raise self.err(f'"{part}": a capture by {"reference" if byref else "copy"} cannot '
                               f"be listed after the capture default {default} (it is that "
                               "already)", at)
            if name in seen:
                raise self.err(f'"{name}" is captured twice', at)
            seen.add(name)
            caps.append(Capture(name, byref, init is not None, self.co(at + part.index(name))))
            args.append(" ".join((f"({init})" if init is not None else name).split()))
        return default, caps, args


def rewrite(text: str, filename: str, table: ClassTable) -> tuple[str, dict[str, Lambda]]:
    """The file with its lambdas rewritten (see the module docstring); the lambdas by tag
    (their classes and ``operator()`` are added to ``table``)."""
    if "[" not in text or not _introducers(text):
        return text, {}
    return _LambdaRewriter(text, filename, table).run()


# ------------------------------------------------------------------ the lowering

def _free_names(lw, fdef) -> list[tuple[str, c_ast.ID]]:
    """The names a lambda's body (``fdef``, its operator()) uses that it does not declare
    (nor its parameters), in order, with a node naming each; a lambda inside it with a
    capture-default adds the names its own body takes from this one."""
    out: list = []

    def params(f):
        plist = f.decl.type.args.params if f.decl.type.args else []
        return {p.name for p in plist if getattr(p, "name", None)}

    def walk(node, scopes):
        if node is None:
            return
        if isinstance(node, c_ast.ID):
            if not any(node.name in s for s in scopes):
                out.append((node.name, node))
            return
        if isinstance(node, c_ast.Decl):
            walk(node.init, scopes)
            t = node.type
            while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl, c_ast.TypeDecl)):
                if isinstance(t, c_ast.ArrayDecl):
                    walk(t.dim, scopes)
                t = t.type
            if node.name:
                scopes[-1].add(node.name)
            return
        if isinstance(node, c_ast.StructRef):
            walk(node.name, scopes)
            return
        if isinstance(node, c_ast.NamedInitializer):        # {.x = e}: x is a member
            walk(node.expr, scopes)
            return
        if isinstance(node, (c_ast.Compound, c_ast.For)):
            scopes = scopes + [set()]
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name in lw.lambdas:
            inner = lw.lambdas[node.name.name]
            if inner.default is not None:
                f = lw.methods[inner.ident]
                walk(f.body, scopes + [params(f) | {c.name for c in inner.captures}])
            walk(node.args, scopes)
            return
        for _, ch in node.children():
            walk(ch, scopes)

    walk(fdef.body, [params(fdef)])
    return out


class LambdaLowering:
    """Closures and their calls, mixed into ``simt.lower.KernelBuilder``."""

    @staticmethod
    def named_not_captured(sym) -> bool:
        """A ``__shared__`` variable or a constant integer: a lambda names it, never copies it."""
        from .ir import Const, Uniform
        from .spaces import LOCAL_BASE, SHARED_BASE
        if sym.value is not None:
            return True
        op = sym.op
        if sym.kind in ("array", "mem") and isinstance(op, Const):
            return SHARED_BASE <= int(op.value) < LOCAL_BASE
        return sym.kind == "array" and isinstance(op, Uniform) and op.name == "dynshared"

    def visible(self, name: str, node):
        """The variable ``name`` names where a lambda is made: a local, or, in another
        lambda's body, what that one captured (its member, or what it names by reference)."""
        from .lower import _ref_sym
        sym = self.lookup(name)
        cur = self.current_this()
        if sym is None and cur is not None and cur[0].cls in self.lw.lambdas and cur[1] is not None \
                and name in self.class_info(cur[1].ctype).members:
            lv = self.member(cur[1], name, node)
            sym = _ref_sym(lv)
            sym.const = lv.const
        return sym

    def closure(self, node):
        """``__lam<hash>(captures)``: the closure object of a lambda (``simt.lambdas``)."""
        from . import ctypes_ as T
        from .ctypes_ import Array
        from .lower import LVal, Val, _agg, _ref_sym
        lam = self.lw.lambdas[node.name.name]
        args = list(node.args.exprs) if node.args else []
        byval, byref = [], {}

        def by_value(name, sym, at):
            if isinstance(sym.ctype, Array):
                raise CompileError(f'capturing the array "{name}" by copy (the lambda would hold a '
                                   f"copy of it) is outside simt's subset; capture it by reference "
                                   f"([&{name}]) or capture a pointer to it", at)
            byval.append((name, self.rvalue(c_ast.ID(name, coord=node.coord))))

        for cap, a in zip(lam.captures, args):
            sym = None if cap.init else self.visible(cap.name, node)
            if not cap.init and sym is None:
                raise CompileError(f'"{cap.name}" cannot be captured: it is not a local variable or '
                                   "parameter of the enclosing function", cap.coord)
            if cap.byref:
                if sym is None:
                    e = self.operand(a)
                    if not isinstance(e, LVal):
                        raise self.err(f'the reference "{cap.name}" cannot bind to a value', a)
                    sym = _ref_sym(e)
                byref[cap.name] = sym
            elif cap.init:
                byval.append((cap.name, self.rvalue(a)))
            elif self.named_not_captured(sym):
                byref[cap.name] = sym
            else:
                by_value(cap.name, sym, cap.coord)
        done = {c.name for c in lam.captures}
        for name, idn in _free_names(self.lw, self.lw.methods[lam.ident]):
            if name in done:
                continue
            done.add(name)
            sym = self.visible(name, idn)
            if sym is None:
                cur = self.current_this()
                info = self.lw.classes.classes.get(cur[0].cls) if cur and cur[0].cls else None
                if info is not None and cur[0].cls not in self.lw.lambdas and name in info.members:
                    raise self.err(f'the lambda uses "{name}", a member of "{info.name}": capturing '
                                   "this is outside simt's subset; copy the member into a local and "
                                   "capture that", idn)
                continue
            if self.named_not_captured(sym) or lam.default == "&":
                byref[name] = sym
            elif lam.default == "=":
                by_value(name, sym, self.co(idn))
            else:
                raise self.err(f'an enclosing-function local variable ("{name}") cannot be referenced '
                               "in a lambda body unless it is in the capture list", idn)
        members = [(n, v.ctype) for n, v in byval]
        tag, k = lam.tag, 0
        while True:            # the same lambda capturing other types (in a generic lambda)
            st = T.make_struct(tag if k == 0 else f"{tag}_{k}", members, lam.label)
            old = self.lw.structs.get(st.name)
            if old is None or old == st:
                break
            k += 1
        self.lw.structs[st.name] = st
        self.lw.classes.classes.setdefault(st.name, self.lw.classes.classes[tag])
        self.lw.classes.classes[tag].members = [n for n, _ in byval]
        self.closure_refs[st.name] = byref
        fields = []
        for _, v in byval:
            fields += list(v.fields) if _agg(v.ctype) else [v.op]
        tmp = self.agg_var(st, "tmp")          # a temporary, as ``Class{a, b}`` makes one
        self.set_var(tmp, Val(st, None, fields), node)
        return self.load(self.sym_lval(tmp, "tmp", node), node)

    def closure_scope(self, method, obj) -> dict:
        """What the names a lambda captured by reference stand for in its operator()."""
        if method is None or method.cls not in self.lw.lambdas or obj is None:
            return {}
        return self.closure_refs.get(obj.ctype.name, {})

    def auto_arg(self, p, a, pre, is_ref: bool):
        """A generic lambda's argument ``a`` (or its value ``pre``) for the parameter ``p``
        declared ``auto`` (``auto v``, ``const auto &v``): the value, or the lvalue a
        reference binds to, and the parameter's type: the argument's (an array's decays),
        as C++ deduces it."""
        from .ctypes_ import Array, Pointer
        from .lower import LVal, _const_decl
        if pre is None and isinstance(a, c_ast.InitList):
            raise self.err(f'cannot deduce the type of the auto parameter "{p.name}" from a braced '
                           "list", a)
        e = pre if pre is not None else self.operand(a) if is_ref else self.rvalue(a)
        if is_ref and not isinstance(e, LVal) and not _const_decl(p.type):
            raise self.err(f'an rvalue cannot bind to the non-const reference parameter "{p.name}" '
                           "(auto &)", a)
        t = e.ctype
        return e, Pointer(t.elem) if isinstance(t, Array) else t

    @staticmethod
    def is_auto(tnode) -> bool:
        """Whether a declarator's type is ``auto`` as ``simt.lambdas`` writes it."""
        while isinstance(tnode, (c_ast.PtrDecl, c_ast.TypeDecl)):
            tnode = tnode.type
        return isinstance(tnode, c_ast.IdentifierType) and tnode.names == [AUTO]

    def deduces(self, name: str) -> bool:
        """Whether the function being inlined as ``name`` is a lambda's operator() whose
        return type is deduced."""
        f = self.lw.methods.get(name)
        return f is not None and self.is_auto(f.decl.type.type)

    def return_deduced(self, node):
        """``return e;`` in a lambda whose return type is deduced: the first return sets it
        (the register that carries it is made then); a later one must agree."""
        from . import ctypes_ as T
        from .ctypes_ import Array, Pointer
        from .ir import Op
        from .lower import _agg
        name, level, ret, rtype, ref, fname = self.funcs[-1]
        if isinstance(node.expr, c_ast.InitList):
            raise self.err(f'cannot deduce the return type of "{fname}" from a braced list', node.expr)
        v = self.rvalue(node.expr) if node.expr is not None else None
        t = T.VOID if v is None else Pointer(v.ctype.elem) if isinstance(v.ctype, Array) else v.ctype
        if rtype is DEDUCED:
            if t != T.VOID:
                ret = self.field_regs(t, f"{fname}.ret") if _agg(t) else \
                    self.reg(T.storage_dtype(t), True, f"{fname}.ret")
            self.funcs[-1] = (name, level, ret, t, ref, fname)
        elif t != rtype:
            raise self.err(f'the return type "{t}" is inconsistent with the "{rtype}" deduced from an '
                           f'earlier return in "{fname}"', node.expr or node)
        if v is not None and _agg(t):
            for r, f in zip(ret, v.fields):
                self.emit(Op.MOV, node, dst=r, args=(f,))
        elif v is not None:
            self.emit(Op.MOV, node, dst=ret, args=(v.op,))
        self.emit(Op.KILL, node, level=level, sub="return")


class _Deduced:
    def __repr__(self) -> str:
        return "auto"


DEDUCED = _Deduced()      # the return type of a lambda not yet returned from
