"""Member functions, constructors and operators of C++ classes in the lowering.

``simt.classes`` wrote each member function as a file-scope function with a table entry
(``Method``).  A call ``a.dot(b)``, ``p->scale(2)``, ``arr[i].dot(b)`` inlines that
function as a call ``dot(a, b)`` of a free function taking the object by reference would
be inlined (the same instructions): ``this`` names the object's registers or memory (the
address computed once, at the call), a temporary object (``make().dot(b)``,
``V3(1, 2, 3).dot(b)``) is copied into registers first, as a reference parameter bound to
a temporary is.  In the body, the members named bare (``x``), ``this->x`` and ``(*this).x``
are the object's; a ``const`` member function reaches them through a const lvalue (its
writes are errors), and a const object only takes const member functions.  Static member
functions (``V3::zero()``) have no object.

A constructor runs on the object it initializes: the declared variable (``V3 v(1, 2, 3);``,
``V3 v{1, 2, 3};``, ``V3 v = {1, 2, 3};``, ``V3 v;`` with a default constructor), or a
temporary (``V3(1, 2, 3)``, ``V3{1, 2, 3}`` as expressions, and a converting constructor
where a ``float`` meets a ``V3``), its member initializers first (``__simt_meminit``
statements, ``simt.classes``), members of class type it does not name default-constructed.
A struct without constructors is an aggregate: ``P{1, 2}`` and ``P v{1, 2}`` initialize its
members in order (default member initializers fill what the braces leave out).

An operator on an object of class type (``a + b``, ``-a``, ``a += b``, ``a == b``,
``a[i]``, ``f(x)`` on a functor, ``++a``, ``a++``) calls the member or non-member
operator function that takes the operands' types (overloads are ranked as C++ ranks them
in the simple cases: exact match, then promotion, then conversion); a function returning a
reference (``float &operator[](int i)``) gives the caller the variable its ``return``
names.

Limitations: a function returning a reference must return the same variable on every
path when that variable lives in registers (memory may differ: its address is returned);
overload resolution by types only (an rvalue may bind to a non-const reference
parameter; a parameter with a default argument may be left out, ``min_args``); constructors of ``__shared__`` objects are not run (as
CUDA forbids them to do anything); an array of objects with a default constructor runs it
element by element, unrolled.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from pycparser import c_ast

from . import ctypes_ as T
from .classes import MEMINIT, MEMLIST, BraceCall, CtorInit
from .ctypes_ import Array, Pointer, Scalar, Struct, Vector
from .ir import Const, Op

_OVERLOADABLE = frozenset(("+", "-", "*", "/", "%", "^", "&", "|", "<", ">", "<=", ">=", "==",
                           "!=", "<<", ">>"))
MAX_CONSTRUCTED_ELEMENTS = 1024


def _agg(t) -> bool:
    return isinstance(t, (Vector, Struct))


class ClassLowering:
    """Mixed into ``simt.lower.KernelBuilder``."""

    # -------------------------------------------------------------- lookups
    def class_info(self, t):
        """The ``simt.classes.ClassInfo`` of a struct type (None: not a class with members)."""
        return self.lw.classes.classes.get(t.name) if isinstance(t, Struct) else None

    def method_def(self, m):
        return self.lw.methods[m.ident]

    def params_of(self, m) -> list:
        """(CType, is a reference, const) of each parameter of a member function."""
        from .lower import _const_decl
        ftype = self.method_def(m).decl.type
        plist = [p for p in (ftype.args.params if ftype.args else [])
                 if not (self.ctype(p.type, allow_void=True) == T.VOID and p.name is None)]
        refs = self.lw.refs.get(m.ident, frozenset())
        out = []
        for i, p in enumerate(plist):
            pt = self.ctype(p.type)
            out.append((Pointer(pt.elem) if isinstance(pt, Array) else pt, i in refs, _const_decl(p.type)))
        return out

    def min_args(self, m) -> int:
        """How many arguments a call of member function ``m`` must give: its parameters
        up to the first of those that have a default argument."""
        n, dflt = len(self.params_of(m)), self.lw.defaults.get(m.ident, {})
        while n and n - 1 in dflt:
            n -= 1
        return n

    def type_of_memo(self, node):
        """``type_of`` once per node (a node's type is the same wherever it is lowered)."""
        hit = self._type_memo.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        t = self.type_of(node)
        self._type_memo[id(node)] = (node, t)
        return t

    # -------------------------------------------------------------- this
    def current_this(self):
        """(Method, object) of the innermost member function being inlined, or None."""
        return self.this_stack[-1] if self.this_stack else None

    def is_this(self, node) -> bool:
        return isinstance(node, c_ast.ID) and node.name == "this" and self.lookup("this") is None

    def this_object(self, node):
        """``*this``: the object a member function runs on."""
        cur = self.current_this()
        if cur is not None and cur[0].cls in self.lw.lambdas:
            raise self.err('"this" in a lambda names the object of the member function that defines '
                           "it: capturing this is outside simt's subset", node)
        if cur is None or cur[1] is None:
            raise self.err('"this" may only be used inside a nonstatic member function', node)
        return cur[1]

    def this_pointer(self, node):
        obj = self.this_object(node)
        if obj.kind != "mem":
            raise self.err('this object lives in registers (a local variable or a value), so "this" '
                           "has no address in simt: use its members (this->x) or *this", node)
        return self.value_of_pointer(obj)

    @staticmethod
    def value_of_pointer(obj):
        from .lower import Val
        return Val(Pointer(obj.ctype, obj.const, obj.volatile), obj.addr)

    def bare_member(self, name: str, node):
        """A member named bare inside a member function (``x``, ``N``), or None."""
        method, obj = self.current_this()
        info = self.lw.classes.classes.get(method.cls) if method.cls else None
        if info is None:
            return None
        if name in info.statics:
            return self.lw.consts.get(info.statics[name]) or self.err_undefined(info.statics[name], node)
        if name in info.members:
            if obj is None:
                raise self.err(f'a nonstatic member reference ("{name}") must be relative to a '
                               f"specific object (in static member function {method.display})", node)
            return self.member(obj, name, node)
        return None

    def err_undefined(self, name, node):
        raise self.err(f'identifier "{name}" is undefined', node)

    def bind_this(self, method, this, node):
        """The object a member function's ``this`` names: the caller's lvalue (const in a
        const member function), or a temporary holding a value."""
        from .lower import LVal
        if method.kind == "static" or this is None:
            return None
        if isinstance(this, LVal):
            if this.const and not method.const and method.kind != "ctor":
                raise self.err(f'the object has type qualifiers that are not compatible with the '
                               f'member function "{method.display}" (a const object takes const '
                               "member functions only)", node)
            return replace(this, const=this.const or method.const) if method.kind != "ctor" else this
        sym = self.agg_var(this.ctype, "this")
        self.set_var(sym, this, node)
        obj = self.sym_lval(sym, "this", node)
        return replace(obj, const=method.const)

    # -------------------------------------------------------------- references returned
    def return_reference(self, ref: dict, rtype, ret, node) -> None:
        """``return e;`` in a function returning ``T &``: ``e`` must name a variable or
        memory; memory's address goes to ``ret``, a register variable is remembered."""
        from .lower import LVal
        if node.expr is None:
            raise self.err("a function returning a reference must return a variable", node)
        e = self.operand(node.expr)
        if not isinstance(e, LVal) or isinstance(e.ctype, Array):
            raise self.err(f'a reference of type "{rtype} &" cannot bind to a value; return a '
                           "variable, a member or an array element", node.expr)
        if e.ctype != rtype:
            raise self.err(f'a reference of type "{rtype} &" cannot bind to a location of type '
                           f'"{e.ctype}"', node.expr)
        if e.const and not ref["const"]:
            raise self.err(f'a reference of type "{rtype} &" cannot bind to a const location '
                           "(return const T &)", node.expr)
        kind = "mem" if e.kind == "mem" else "reg"
        if ref.get("kind", kind) != kind or kind == "reg" and ref.get("lv") is not None and \
                (ref["lv"].reg, ref["lv"].fields) != (e.reg, e.fields):
            raise self.err("simt cannot return references to different variables from one function "
                           "unless they are in memory (the object lives in registers)", node)
        ref["kind"] = kind
        if kind == "mem":
            self.emit(Op.MOV, node, dst=ret, args=(e.addr,))
            ref["volatile"] = e.volatile
        else:
            ref["lv"] = e

    def returned_reference(self, ref: dict, rtype, ret, display, node):
        from .lower import LVal
        if "kind" not in ref:
            raise self.err(f'"{display}" returns a reference but has no return statement', node)
        if ref["kind"] == "mem":
            return LVal(rtype, "mem", addr=ret, const=ref["const"], volatile=ref.get("volatile", False))
        return replace(ref["lv"], const=ref["lv"].const or ref["const"])

    # -------------------------------------------------------------- calls
    def method_call(self, node, want=True):
        """``obj.f(args)`` or ``p->f(args)`` on an object of class type."""
        from .lower import LVal
        ref = node.name
        field = ref.field.name
        args = list(node.args.exprs) if node.args else []
        if ref.type == "->":
            if self.is_this(ref.name):
                obj = self.this_object(ref.name)
            else:
                p = self.rvalue(ref.name)
                if not isinstance(p.ctype, Pointer):
                    raise self.err('expression must have pointer type for "->"', ref)
                obj = LVal(p.ctype.base, "mem", addr=p.op, const=p.ctype.const, volatile=p.ctype.volatile)
        else:
            obj = self.operand(ref.name)
        info = self.class_info(obj.ctype)
        cands = info.methods.get(field) if info is not None else None
        if not cands:
            if _agg(obj.ctype) and field in obj.ctype.fields:
                raise self.err(f'"{field}" is a data member of "{obj.ctype}", not a member function '
                               "(calls through function pointers are outside simt's subset)", ref.field)
            raise self.err(f'expression of type "{obj.ctype}" has no member function "{field}"', ref.field)
        return self.call_member(cands, obj, args, node)

    def call_member(self, cands, obj, args, node, what=None):
        m = self.pick(cands, args, obj, node, what)
        return self.inline_call(m.ident, args, node, this=obj, fdef=self.method_def(m), display=m.display)

    def pick(self, cands, args, obj, node, what=None, types=None):
        """The overload of ``cands`` a call with ``args`` (nodes; or their ``types``) on
        ``obj`` (None: no object) calls."""
        if len(cands) == 1 and types is None:
            return cands[0]
        types = types if types is not None else [self.type_of_memo(a) for a in args]
        obj_const = getattr(obj, "const", False)
        viable = []
        for m in cands:
            ps = self.params_of(m)
            if not self.min_args(m) <= len(types) <= len(ps):
                continue
            ranks = []
            if m.kind not in ("static", "ctor") and obj is not None:
                if obj_const and not m.const:
                    continue
                ranks.append(3 if m.const == obj_const else 2)
            for (pt, is_ref, const), at in zip(ps, types):
                r = self.conversion_rank(at, pt)
                if r == 0:
                    break
                ranks.append(r)
            else:
                viable.append((m, ranks))
        best = [m for m, r in viable if all(all(x >= y for x, y in zip(r, r2)) for _, r2 in viable)]
        name = what or f'overloaded function "{cands[0].display}"'
        shown = ", ".join(str(t) for t in types)
        if not viable:
            raise self.err(f"no instance of {name} matches the argument list (argument types are: "
                           f"({shown}))", node)
        if len(best) != 1:
            raise self.err(f"more than one instance of {name} matches the argument list (argument "
                           f"types are: ({shown}))", node)
        return best[0]

    def conversion_rank(self, at, pt) -> int:
        """How well a value of type ``at`` converts to ``pt``: 3 exact, 2 promotion, 1
        conversion, 0 none."""
        if isinstance(at, Array):
            at = Pointer(at.elem)
        if at == pt:
            return 3
        if isinstance(at, Scalar) and isinstance(pt, Scalar):
            if at.is_half != pt.is_half:
                return 1
            if at.is_float == pt.is_float and (pt == T.promote(at) or pt == T.DOUBLE and at == T.FLOAT):
                return 2
            return 1
        if isinstance(at, Pointer) and isinstance(pt, Pointer):
            if pt.base == at.base or pt.base == T.VOID:
                return 2
            return 0
        if isinstance(pt, Struct) and not isinstance(at, Struct):
            info = self.class_info(pt)
            if info is not None and any(not c.explicit and self.min_args(c) <= 1 <= len(self.params_of(c))
                                        for c in info.ctors()):
                return 1
        return 0

    def qualified_call(self, name, args, node):
        """``V3::zero()`` (written ``V3__zero``): a static member function, or a member of
        the object a member function of that class runs on."""
        cls, fname = self.lw.classes.qualified[name]
        info = self.lw.classes.classes[cls]
        cands = info.methods.get(fname)
        if not cands:
            raise self.err(f'class "{cls}" has no member function "{fname}"', node)
        cur = self.current_this()
        obj = cur[1] if cur is not None and cur[0].cls == cls else None
        if obj is None:
            cands = [m for m in cands if m.kind == "static"]
            if not cands:
                raise self.err(f'a nonstatic member function ("{cls}::{fname}") must be called on an '
                               "object (obj.f() or p->f())", node)
        return self.call_member(cands, obj, args, node)

    def bare_call(self, name, args, node):
        """``f(args)`` inside a member function where ``f`` is a member function of its
        class (called on the same object) or a member of a class type with ``operator()``
        (a lambda's capture of another lambda), or NotImplemented."""
        cur = self.current_this()
        if cur is None or cur[0].cls is None:
            return NotImplemented
        info = self.lw.classes.classes[cur[0].cls]
        cands = info.methods.get(name)
        if not cands and cur[1] is not None:
            mt = next((t for n, t, _ in getattr(cur[1].ctype, "members", ()) if n == name), None)
            if "operator()" in getattr(self.class_info(mt), "methods", {}):
                return self.functor_call(self.member(cur[1], name, node), args, node)
        if not cands or name == info.name:
            return NotImplemented
        return self.call_member(cands, cur[1], args, node)

    # -------------------------------------------------------------- construction
    def e_BraceCall(self, node):
        return self.e_FuncCall(node)

    def is_type_name(self, name: str):
        """The type a call's name spells (``V3(...)``, ``float3{...}``), or None."""
        if self.lookup(name) is not None:
            return None
        if name in T.TYPEDEFS:
            return T.TYPEDEFS[name] if isinstance(T.TYPEDEFS[name], Vector) else None
        return self.lw.typedefs.get(name)

    def construct_temp(self, t, node):
        """``T(args)`` / ``T{args}`` as an expression: a temporary object."""
        from .lower import Val
        args = list(node.args.exprs) if node.args else []
        brace = isinstance(node, BraceCall)
        if isinstance(t, Scalar):
            if len(args) > 1:
                raise self.err(f"too many values to initialize a {t}", node)
            if not args:
                return Val(t, Const(np.zeros((), T.storage_dtype(t))[()]))
            return self.convert(self.rvalue(args[0]), t, node, explicit=not brace)
        if not _agg(t):
            raise self.err(f"cannot construct a value of type {t}", node)
        sym = self.agg_var(t, "tmp")
        obj = self.sym_lval(sym, "tmp", node)
        self.init_object(obj, args, node, brace, value_init=True)
        return self.load(obj, node)

    def braced(self, t, init):
        """``return {a, b};`` and ``f({a, b})``: the braced list ``init`` (an InitList)
        list-initializes a temporary of the return value's or the parameter's type ``t``."""
        from .lower import Val
        if isinstance(t, Scalar):
            if len(init.exprs) > 1:
                raise self.err(f"too many values to initialize a {t}", init)
            if not init.exprs:
                return Val(t, Const(np.zeros((), T.storage_dtype(t))[()]))
            return self.convert(self.rvalue(init.exprs[0]), t, init.exprs[0], assign=True)
        if not _agg(t):
            raise self.err(f'a braced list cannot initialize a value of type "{t}"', init)
        return self.construct_temp(t, BraceCall(None, c_ast.ExprList(list(init.exprs), init.coord),
                                                init.coord))

    def construct_with(self, t, vals, node):
        """A temporary of class ``t`` made by its converting constructor from ``vals``."""
        info = self.class_info(t)
        cands = [c for c in info.ctors() if not c.explicit]
        m = self.pick(cands, [node] * len(vals), None, node, f'constructor "{info.name}::{info.name}"',
                      types=[v.ctype for v in vals])
        sym = self.agg_var(t, "tmp")
        obj = self.sym_lval(sym, "tmp", node)
        self.inline_call(m.ident, [node] * len(vals), node, pre=vals, this=obj,
                         fdef=self.method_def(m), display=m.display)
        return self.load(obj, node)

    def has_user_ctors(self, t) -> bool:
        info = self.class_info(t)
        return info is not None and any(not c.implicit for c in info.ctors())

    def init_object(self, lv, args, node, brace: bool, value_init: bool = False):
        """Direct- or list-initialize the object ``lv`` from ``args`` (nodes)."""
        from .lower import Val
        t = lv.ctype
        info = self.class_info(t)
        if info is not None and len(args) == 1 and not isinstance(args[0], c_ast.InitList) and \
                self.type_of_memo(args[0]) == t:
            self.store(lv, self.rvalue(args[0]), node)          # the implicit copy constructor
            return
        if info is not None and self.has_user_ctors(t):
            if not args and not [c for c in info.ctors() if not self.min_args(c)]:
                if not info.default_ctor:
                    raise self.err(f'no default constructor exists for class "{info.name}"', node)
                return
            m = self.pick(info.ctors(), args, None, node, f'constructor "{info.name}::{info.name}"')
            self.inline_call(m.ident, args, node, this=lv, fdef=self.method_def(m), display=m.display)
            return
        if isinstance(t, Array) or _agg(t):
            if brace or (not args and value_init):
                self.aggregate_init(lv, args, node)
                return
            if not args:
                self.default_construct(lv, node)
                return
            if len(args) != 1:
                raise self.err(f'no instance of constructor "{t}" matches the argument list (an '
                               "aggregate takes its members in braces)", node)
            self.store(lv, self.convert(self.rvalue(args[0]), t, args[0], assign=True), node)
            return
        if len(args) > 1:
            raise self.err(f"too many values to initialize a {t}", node)
        if not args:
            v = Val(t, Const(np.zeros((), T.storage_dtype(t))[()]))
        else:
            v = self.convert(self.rvalue(args[0]), t, args[0], assign=True)
        self.store(lv, v, node)

    def aggregate_init(self, lv, exprs, node):
        """``{exprs}`` into an aggregate or an array (C's rules, brace elision included);
        default member initializers fill the members the braces leave out."""
        from .lower import _members, _value_leaves
        t = lv.ctype
        info = self.class_info(t)
        implicit = [c for c in info.ctors() if c.implicit] if info is not None else []
        if not implicit:
            self.store_leaves(lv, self.init_fields(t, c_ast.InitList(list(exprs), node.coord)), node)
            if not exprs:
                self.default_construct(lv, node, members_only=True)
            return
        zeros = [Const(np.zeros((), T.storage_dtype(lt))[()]) for _, lt, _ in _value_leaves(t, 0, "")]
        self.store_leaves(lv, zeros, node)
        self.inline_call(implicit[0].ident, [], node, this=lv, fdef=self.method_def(implicit[0]),
                         display=implicit[0].display)
        k = 0
        for mn, mt, _ in _members(t):
            if k >= len(exprs):
                break
            out: list = []
            k = self.init_one(mt, exprs, k, out)
            self.store_leaves(self.member(lv, mn, node), out, node)
        if k < len(exprs):
            raise self.err("too many initializer values", exprs[k])

    def store_leaves(self, lv, leaves, node):
        """Store the leaf values (``_value_leaves`` order) of an object into ``lv``."""
        from .lower import Val, _value_leaves
        t = lv.ctype
        if _agg(t):
            self.store(lv, Val(t, None, list(leaves)), node)
        elif isinstance(t, Array):
            if lv.kind == "vreg":
                for r, f in zip(lv.fields, leaves):
                    self.emit(Op.MOV, node, dst=r, args=(f,))
            else:
                for (_, lt, off), f in zip(_value_leaves(t, 0, ""), leaves):
                    self.emit(Op.STORE, node, args=(self.ptr_add_bytes(lv.addr, off, node), f), ctype=lt)
        else:
            self.store(lv, Val(t, leaves[0]), node)

    def needs_construction(self, t) -> bool:
        """Whether default-initializing an object of ``t`` runs code (a default constructor,
        its own or a member's)."""
        memo = self.lw.construct_memo
        key = t
        if key in memo:
            return memo[key]
        memo[key] = False
        got = False
        if isinstance(t, Array):
            got = self.needs_construction(t.elem)
        elif isinstance(t, Struct):
            info = self.class_info(t)
            got = (info is not None and any(not self.min_args(c) for c in info.ctors())) or \
                any(self.needs_construction(mt) for _, mt, _ in t.members)
        memo[key] = got
        return got

    def default_construct(self, lv, node, members_only=False):
        """Default-initialize the object ``lv``: its default constructor, or its members'."""
        from .lower import LVal
        t = lv.ctype
        info = self.class_info(t)
        if info is not None and not members_only:
            d = [c for c in info.ctors() if not self.min_args(c)]
            if d:
                self.inline_call(d[0].ident, [], node, this=lv, fdef=self.method_def(d[0]),
                                 display=d[0].display)
                return
            if any(not c.implicit for c in info.ctors()) and not info.default_ctor:
                raise self.err(f'no default constructor exists for class "{info.name}"', node)
        if not self.needs_construction(t):
            return
        if isinstance(t, Struct):
            for mn, mt, _ in t.members:
                if self.needs_construction(mt):
                    self.default_construct(self.member(lv, mn, node), node)
        elif isinstance(t, Array):
            n = T.sizeof(t) // max(1, T.sizeof(T.array_dims(t)[1]))
            if n > MAX_CONSTRUCTED_ELEMENTS:
                raise self.err(f"an array of {n} objects with a default constructor: simt runs the "
                               f"constructor element by element, at most {MAX_CONSTRUCTED_ELEMENTS}",
                               node)
            es = T.sizeof(t.elem)
            for k in range(t.length):
                el = LVal(t.elem, "mem", addr=self.ptr_add_bytes(lv.addr, k * es, node),
                          const=lv.const, volatile=lv.volatile)
                self.default_construct(el, node)

    def ctor_prologue(self, method, obj, fdef, node):
        """Members of class type a constructor's initializers do not name: their default
        constructors run first (C++ runs every member's in declaration order)."""
        if not isinstance(obj.ctype, Struct):
            return
        named = set()
        for st in fdef.body.block_items or []:
            if isinstance(st, c_ast.FuncCall) and isinstance(st.name, c_ast.ID) and \
                    st.name.name in (MEMINIT, MEMLIST) and st.args is not None:
                named.add(st.args.exprs[0].name)
        for mn, mt, _ in obj.ctype.members:
            if mn not in named and self.needs_construction(mt):
                self.default_construct(self.member(obj, mn, node), node)

    def member_init(self, node):
        """``__simt_meminit(m, args)`` / ``__simt_memlist(m, args)`` in a constructor."""
        cur = self.current_this()
        args = list(node.args.exprs)
        mlv = self.member(replace(cur[1], const=False), args[0].name, node)
        self.init_object(mlv, args[1:], node, node.name.name == MEMLIST, value_init=True)

    def init_declared(self, lv, init, node) -> bool:
        """Initialize a new variable ``lv`` by C++'s rules where they are not C's: ``T v(args)``,
        ``T v{args}`` of a class with constructors or default member initializers, ``T v;``
        with a default constructor, ``T v = T(args)`` (constructed in place).  False: C's
        initialization applies."""
        t = lv.ctype
        if isinstance(init, CtorInit):
            self.init_object(lv, list(init.exprs), node, brace=False)
            return True
        info = self.class_info(t)
        if init is None:
            if self.needs_construction(t) or info is not None and self.has_user_ctors(t):
                self.default_construct(lv, node)
            return True
        if info is None:
            return False
        if isinstance(init, c_ast.InitList):
            if self.has_user_ctors(t) or info.ctors():
                self.init_object(lv, list(init.exprs), node, brace=True)
                return True
            return False
        if isinstance(init, c_ast.FuncCall) and isinstance(init.name, c_ast.ID) and \
                self.is_type_name(init.name.name) == t:
            args = list(init.args.exprs) if init.args else []
            self.init_object(lv, args, init, isinstance(init, BraceCall), value_init=True)
            return True
        return False

    # -------------------------------------------------------------- operators
    def operator_call(self, op: str, operands: list, node, kind: str = "binary"):
        """The operator function ``op`` on ``operands`` (nodes) where one has class type;
        NotImplemented where none does (the built-in operator applies)."""
        if not self.lw.has_ops:
            return NotImplemented
        types = [self.type_of_memo(o) for o in operands]
        if not any(isinstance(t, Struct) or isinstance(t, Vector) and t != T.HALF2 for t in types):
            return NotImplemented
        name = "operator" + op
        info = self.class_info(types[0])
        members = [m for m in (info.methods.get(name, []) if info is not None else [])
                   if len(self.params_of(m)) == len(operands) - 1]
        free = [m for m in self.lw.classes.free_ops.get(op, []) if len(self.params_of(m)) == len(operands)]
        if not members and not free:
            if not any(isinstance(t, Struct) for t in types):
                return NotImplemented
            shown = f" {op} ".join(str(t) for t in types) if kind == "binary" else \
                f"{op} {types[0]}" if kind == "prefix" else f"{types[0]} {op}"
            raise self.err(f'no operator "{op}" matches these operands (operand types are: {shown})', node)
        pick_from = members + free
        if len(pick_from) == 1:
            m = pick_from[0]
        else:
            m = self.pick_operator(members, free, types, operands, node, op)
        if m.cls is not None:
            obj = self.operand(operands[0])
            if getattr(obj, "const", False) and not m.const:
                raise self.err(f'no operator "{op}" matches these operands: the left operand is const '
                               f'and {m.display} is not a const member function', node)
            return self.inline_call(m.ident, operands[1:], node, this=obj, fdef=self.method_def(m),
                                    display=m.display)
        return self.inline_call(m.ident, operands, node, fdef=self.method_def(m), display=m.display)

    def pick_operator(self, members, free, types, operands, node, op):
        """Members take the object and the rest; non-members take every operand."""
        scored = []
        for m in members + free:
            ts = types[1:] if m.cls is not None else types
            ranks = [3] if m.cls is not None else []
            rs = [self.conversion_rank(at, pt) for (pt, _, _), at in zip(self.params_of(m), ts)]
            if all(rs):
                scored.append((m, ranks + rs))
        best = [m for m, r in scored if all(all(x >= y for x, y in zip(r, r2)) for _, r2 in scored)]
        shown = f" {op} ".join(str(t) for t in types)
        if not scored:
            raise self.err(f'no operator "{op}" matches these operands (operand types are: {shown})', node)
        if len(best) != 1:
            raise self.err(f'more than one operator "{op}" matches these operands (operand types are: '
                           f"{shown})", node)
        return best[0]

    def subscript_call(self, obj, node):
        """``obj[i]`` on an object of class type: its ``operator[]``."""
        info = self.class_info(obj.ctype)
        cands = info.methods.get("operator[]") if info is not None else None
        if not cands:
            raise self.err(f'no operator "[]" matches these operands (operand types are: {obj.ctype} '
                           "[ ... ])", node)
        return self.call_member(cands, obj, [node.subscript], node)

    def functor_call(self, obj, args, node):
        """``f(args)`` where ``f`` is an object of class type: its ``operator()``
        (NotImplemented: not such an object)."""
        info = self.class_info(obj.ctype)
        cands = info.methods.get("operator()") if info is not None else None
        if not cands:
            return NotImplemented
        return self.call_member(cands, obj, args, node)

    def overloaded_node(self, node) -> bool:
        """Whether an expression node is an operator on an object of class type (a call:
        not pure, ``simt.lower.KernelBuilder.pure``)."""
        if not self.lw.has_ops or not isinstance(node, (c_ast.BinaryOp, c_ast.UnaryOp)):
            return False
        if isinstance(node, c_ast.UnaryOp) and node.op in ("sizeof", "&", "*"):
            return False
        kids = [node.left, node.right] if isinstance(node, c_ast.BinaryOp) else [node.expr]
        return any(_agg(self.type_of_memo(k)) for k in kids)
