"""C++ classes as the C the parser reads: member functions, constructors, operators.

::

    struct V3 {
        float x, y, z;
        __device__ V3(float a, float b, float c) : x(a), y(b), z(c) {}
        __device__ float dot(const V3 &o) const { return x * o.x + y * o.y + z * o.z; }
        __device__ V3 operator+(const V3 &o) const { return V3(x + o.x, y + o.y, z + o.z); }
        __device__ float &operator[](int i) { return v(i); }
        __device__ static V3 zero() { return V3(0, 0, 0); }
        static constexpr int N = 3;
    };

The struct keeps its data members in place (C's layout, ``simt.ctypes_``); each member
function is cut out of it (its lines blanked) and written after the struct's ``;`` as a
file-scope function with a name of its own (``__m<k>``), at its own lines and columns
(``#line``), with a table entry (``Method``) saying whose member it is, under which name,
whether it is ``const``, ``static``, a constructor or an operator, and whether it returns
a reference (the ``&`` blanked: ``simt.methods`` binds the caller to the returned
variable).  The lowering binds ``this`` (and the members named bare in the body) to the
object a call names, as it binds a reference parameter (``simt.methods``).  A
constructor's member initializers (``: x(a), y{b}``) and the default member initializers
of the members it does not name (``float sum = 0.0f;``) become statements
``__simt_meminit(x,a);`` / ``__simt_memlist(y,b);`` at the start of its body, in the order
the members are declared (C++'s order), each at its own place in the file; a struct with
default member initializers and no constructor gets an implicit default constructor made
of them.  ``static const``/``constexpr`` data members become file-scope constants
``Class__name``; ``Class::name`` anywhere in the file is written ``Class__name`` (the same
length).  Member functions defined outside the class (``float V3::dot(...) const {...}``)
and non-member operator functions (``float3 operator+(float3 a, float3 b)``, as
helper_math.h writes them) are renamed in place (a ``union`` with member functions or
constructors is rewritten as a struct is).  ``class`` is read as ``struct`` and the
access labels (``public:``) are blanked: access is not checked.

Limitations (each an error naming the place): inheritance, virtual functions, friends,
member templates, nested types with member functions, member typedefs, non-const static
data members, conversion operators (except the CUDA samples' ``SharedMemory<T>``,
``simt.smem_struct``), user-defined copy constructors, copy assignment operators and
destructors with a body, trailing return types, ref-qualified member functions, default
arguments.  Columns on the first line of a member function or constructor are those of
the rewritten text where its return type and name took more room than they had.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast

from .errors import CompileError, Coord
from .templates import close_paren, skip_string, split_spans

MEMINIT = "__simt_meminit"            # member(args): direct-initialization
MEMLIST = "__simt_memlist"            # member{args}: list-initialization
_SYM = r"(?:\(\s*\)|\[\s*\]|->\*?|<<=|>>=|\+\+|--|&&|\|\||<<|>>|[-+*/%^&|~!=<>]=?|,)"
_OPERATOR = re.compile(r"\boperator\b\s*(" + _SYM + r")?")
_HEAD = re.compile(r"\b(struct|class|union)\s+([A-Za-z_]\w*)\s*(?:\bfinal\b\s*)?(:(?!:)[^{};]*)?\{")
_SPECIFIERS = ("__device__", "__host__", "__forceinline__", "__inline__", "__noinline__", "inline",
               "constexpr", "explicit", "static", "virtual", "friend")
_TRAILER_WORDS = ("const", "noexcept", "override", "final", "volatile", "__restrict__")
_ACCESS = re.compile(r"(?:public|private|protected)\s*:(?!:)")
# the operators simt lets a class define (operator= and the others are an error)
OPERATORS = frozenset(("+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "<", ">", "<=", ">=",
                       "==", "!=", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=",
                       "<<=", ">>=", "++", "--", "[]", "()"))


class CtorInit(c_ast.ExprList):
    """The arguments of a direct-initialization ``V3 v(1, 2, 3);`` (the parser's)."""


class BraceCall(c_ast.FuncCall):
    """``V3{1, 2, 3}`` as an expression: a call of the type name, list-initialized."""


@dataclass
class Method:
    """A member function (or constructor, operator, static member function) or a
    non-member operator function, as a file-scope function named ``ident``."""
    ident: str
    cls: str | None          # the class's tag (None: a non-member operator)
    name: str                # "dot", "operator+", "operator[]"; a constructor: the class name
    kind: str                # "method" | "static" | "ctor" | "operator"
    coord: Coord
    const: bool = False      # a const member function
    ref_return: bool = False # returns T & (the caller gets the variable)
    explicit: bool = False   # an explicit constructor (no implicit conversions through it)
    implicit: bool = False   # the default constructor made of default member initializers
    label: str = ""          # what messages call it, where not Class::name (a lambda's)

    @property
    def display(self) -> str:
        if self.label:
            return self.label
        return f"{self.cls}::{self.name}" if self.cls else self.name


@dataclass
class ClassInfo:
    name: str
    coord: Coord
    members: list[str] = field(default_factory=list)            # in declaration order
    methods: dict[str, list[Method]] = field(default_factory=dict)
    statics: dict[str, str] = field(default_factory=dict)       # static const member -> constant
    nested: set = field(default_factory=set)     # nested types and enumerators (file scope in C)
    user_ctors: bool = False         # declares a constructor (the default one aside)
    default_ctor: bool = False       # has a default constructor (declared, defaulted or implicit)

    def ctors(self) -> list[Method]:
        return self.methods.get(self.name, [])


@dataclass
class ClassTable:
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    by_ident: dict[str, Method] = field(default_factory=dict)
    free_ops: dict[str, list[Method]] = field(default_factory=dict)   # "+" -> non-member operators
    qualified: dict[str, tuple[str, str]] = field(default_factory=dict)  # "V3__zero" -> (V3, zero)
    mutating: set = field(default_factory=set)   # names of non-const member functions and operators
    # member functions defined outside their class: the default arguments of the declaration
    # inside it, by parameter index ((Coord, expression text), as frontend.default_snippets reads)
    defaults: dict[str, dict] = field(default_factory=dict)

    @property
    def has_operators(self) -> bool:
        return bool(self.free_ops) or any(n.startswith("operator") for c in self.classes.values()
                                          for n in c.methods)

    def add(self, m: Method) -> None:
        self.by_ident[m.ident] = m
        if m.cls is None:
            self.free_ops.setdefault(m.name[len("operator"):], []).append(m)
            return
        self.classes[m.cls].methods.setdefault(m.name, []).append(m)
        if m.kind in ("method", "operator") and not m.const:
            self.mutating.add(m.name)


def _has_params(params: str) -> bool:
    return params.strip() not in ("", "void")


def _all_defaulted(params: str) -> bool:
    """Every parameter has a default argument (a constructor callable with none)."""
    return all(re.search(r"(?<![=!<>])=(?!=)", params[a:b]) for a, b in _split(params, 0, len(params)))


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _skip_ws(text: str, i: int, end: int | None = None) -> int:
    end = len(text) if end is None else end
    while i < end and text[i].isspace():
        i += 1
    return i


def _split(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """(start, end) of each comma-separated part of ``text[a:b]`` outside (), [], {} and
    string literals (a ``<`` in an initializer is a comparison here, not a bracket)."""
    return split_spans(text, a, b, brackets="()[]{}", strings=True)


def _closing(text: str, i: int) -> int:
    """The index of the bracket closing the one at i (``(``, ``[`` or ``{``), or -1."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = skip_string(text, i)
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if not stack or stack.pop() != c:
                return -1
            if not stack:
                return i
        i += 1
    return -1


class _Rewriter:
    def __init__(self, text: str, filename: str):
        from .frontend import _coord_of
        self.text = text
        self.filename = filename
        self._coord_of = _coord_of
        self.table = ClassTable()
        self.k = 0
        self.protos: dict = {}           # (class, name) -> member functions declared, not defined
        self.nsdmi: dict = {}            # class -> its default member initializers

    def co(self, pos: int) -> Coord:
        return self._coord_of(self.text, pos, self.filename)

    def err(self, msg: str, pos: int) -> CompileError:
        return CompileError(msg, self.co(pos))

    def ident(self, prefix: str = "__m") -> str:
        self.k += 1
        return f"{prefix}{self.k}"

    def line_directive(self, pos: int) -> str:
        """``#line`` and the spaces that put the next character at ``pos``'s place."""
        c = self.co(pos)
        return f'\n#line {c.line} "{c.file}"\n' + " " * max(0, c.col - 1)

    def extern_braces(self) -> set:
        """The positions of the braces of ``extern "C" { ... }`` (file scope inside them)."""
        from .frontend import _match_brace
        extern = set()
        for m in re.finditer(r'extern\s*"C"\s*\{', self.text):
            extern.update((m.end() - 1, _match_brace(self.text, m.end() - 1)))
        return extern

    # ---------------------------------------------------------------- classes
    def run(self) -> tuple[str, ClassTable]:
        t = self.text
        if not re.search(r"\b(?:struct|class|union|operator)\b", t):
            return t, self.table
        extern = self.extern_braces()
        out, pos = [], 0
        heads = [m for m in _HEAD.finditer(t)
                 if not re.search(r"\benum\s*$", t[max(0, m.start() - 10):m.start()])]
        depth_at = self._depths(extern)
        for m in heads:
            if m.start() < pos:
                continue
            if depth_at(m.start()) != 0:
                if self._has_functions(m):
                    raise self.err(f'"{m.group(2)}": member functions of a struct defined inside a '
                                   "function or another struct are outside simt's subset; define it "
                                   "at file scope", m.start())
                continue
            piece, end = self.rewrite_class(m)
            if piece is None:
                continue
            out.append(t[pos:m.start()] + piece)
            pos = end
        out.append(t[pos:])
        text = "".join(out)
        text = self.outside_definitions(text)
        text = self.free_operators(text)
        text = self.qualified_names(text)
        return text, self.table

    def _depths(self, extern: set):
        """A function: brace depth at a position (counted once, looked up by bisection)."""
        import bisect
        t = self.text
        marks, depth, i = [], 0, 0
        while i < len(t):
            c = t[i]
            if c in "\"'":
                i = skip_string(t, i)
                continue
            if c in "{}" and i not in extern:
                depth += 1 if c == "{" else -1
                marks.append((i, depth))
            i += 1
        keys = [p for p, _ in marks]

        def at(pos):
            k = bisect.bisect_left(keys, pos) - 1
            return marks[k][1] if k >= 0 else 0
        return at

    def _has_functions(self, m) -> bool:
        close = _closing(self.text, m.end() - 1)
        body = self.text[m.end():close] if close > 0 else ""
        return bool(re.search(r"\)\s*(?:const\s*)?\{|\boperator\b", body))

    def rewrite_class(self, m):
        """The text replacing the struct at ``m`` up to its ``;`` (members cut out and
        written after it), and where that ends; (None, 0) for a plain C struct."""
        t = self.text
        name = m.group(2)
        open_ = m.end() - 1
        close = _closing(t, open_)
        if close < 0:
            raise self.err(f'unbalanced braces in struct "{name}"', m.start())
        semi = _skip_ws(t, close + 1)
        declarators = ""
        if semi < len(t) and t[semi] != ";":
            j = t.find(";", close)
            if j < 0:
                return None, 0
            declarators, semi = t[close + 1:j], j
        body = t[open_ + 1:close]
        cplusplus = m.group(1) == "class" or m.group(3) or re.search(
            r"[(=]|\b(?:public|private|protected|static|operator|template|virtual|friend|typedef|using)\b"
            r"|\{", body)
        if not cplusplus:
            return None, 0
        if m.group(3):
            raise self.err(f'"{name}": inheritance (struct {name} {m.group(3).strip()}) is outside '
                           "simt's subset; hold the base as a member instead",
                           m.start(3))
        info = ClassInfo(name, self.co(m.start()))
        if name in self.table.classes:
            raise self.err(f'struct "{name}" is defined twice', m.start())
        self.table.classes[name] = info
        items = self.items(open_ + 1, close, name)
        keep = list(t[m.start():close + 1])
        base = m.start()

        def blank(a, b):
            for j in range(a, b):
                if keep[j - base] != "\n":
                    keep[j - base] = " "
        if m.group(1) == "class":                     # class V3 -> struct V3 (one column more)
            s = m.start(1) - base
            keep[s:s + 5] = ["struct", "", "", "", ""]
        funcs, nsdmi, statics = [], {}, []
        for it in items:
            kind = it["kind"]
            if kind == "access":
                blank(it["start"], it["end"])
            elif kind in ("func", "ctor", "dtor"):
                blank(it["start"], it["end"])
                funcs.append(it)
            elif kind == "static":
                blank(it["start"], it["end"])
                statics.append(it)
            elif kind == "data":
                for nm, a, b, brace in it["inits"]:
                    nsdmi[nm] = (a, b, brace)
                    blank(it["init_spans"][nm][0], it["init_spans"][nm][1])
                info.members += it["names"]
            if kind == "data":
                info.nested.update(it["nested"])
        self.nsdmi[name] = nsdmi
        gen, before = [], ""
        for it in items:                    # a nested named type: defined before the struct
            h = it.get("hoist")
            if h is None:
                continue
            a, b, kw, tag, alone = h
            before += self.line_directive(a) + t[a:b] + ";" + (f" typedef enum {tag} {tag};" if kw == "enum" else "")
            blank(a, b)
            if alone:
                blank(it["start"], it["end"])
            else:
                keep[a - base:a - base + len(kw) + 1 + len(tag)] = list(f"{kw} {tag}")
        for st in statics:                  # constants the data members may use: before the struct
            cname = f"{name}__{st['name']}"
            info.statics[st["name"]] = cname
            before += self.line_directive(st["start"]) + f"static const {st['type']} {cname} = " \
                + re.sub(r"\b(" + "|".join(info.statics) + r")\b", lambda q: info.statics[q.group(1)],
                         t[st["init"][0]:st["init"][1]]) + ";"
        if info.statics:
            body_at = open_ + 1 - base
            rx = re.compile(r"\b(" + "|".join(info.statics) + r")\b")
            inner = "".join(keep[body_at:close - base])
            keep[body_at:close - base] = [rx.sub(lambda q: info.statics[q.group(1)], inner)] + \
                [""] * (close - base - body_at - 1)
        defaults = [f for f in funcs if f["kind"] == "ctor" and not _has_params(f["params"])]
        provided = any(f["special"] in (None, "prototype") for f in defaults)
        for f in funcs:
            g = self.method(f, info, nsdmi)
            if g:
                gen.append(g)
        if nsdmi and not provided and (defaults or not info.user_ctors):
            gen.append(self.implicit_ctor(info, nsdmi, m.start()))
        if before:
            before += self.line_directive(m.start())
        text = before + "".join(keep) + declarators + ";"
        if gen:
            text += "".join(gen) + self.line_directive(semi + 1)
        return text, semi + 1

    # ---------------------------------------------------------------- items
    def items(self, a: int, b: int, cls: str) -> list[dict]:
        """The member declarations of a struct body ``text[a:b]``."""
        t = self.text
        out = []
        i = _skip_ws(t, a, b)
        while i < b:
            am = _ACCESS.match(t, i)
            if am:
                out.append({"kind": "access", "start": i, "end": am.end()})
                i = _skip_ws(t, am.end(), b)
                continue
            if t[i] == ";":
                i = _skip_ws(t, i + 1, b)
                continue
            it = self.item(i, b, cls)
            out.append(it)
            i = _skip_ws(t, it["end"], b)
        return out

    def item(self, i: int, b: int, cls: str) -> dict:
        t = self.text
        word = re.match(r"[A-Za-z_]\w*", t[i:b])
        w = word.group(0) if word else ""
        if w == "template":
            raise self.err(f'"{cls}": member templates are outside simt\'s subset', i)
        if w == "friend":
            raise self.err(f'"{cls}": friend declarations are outside simt\'s subset', i)
        if w in ("typedef", "using"):
            raise self.err(f'"{cls}": member type aliases ({w}) are outside simt\'s subset; '
                           "declare the type at file scope", i)
        # what comes first at depth 0: ( of a function, = or { of an initializer, ; of data
        j = i
        while j < b:
            c = t[j]
            if c in "\"'":
                j = skip_string(t, j)
                continue
            om = _OPERATOR.match(t, j) if c == "o" and (j == 0 or not (t[j - 1].isalnum() or t[j - 1] == "_")) else None
            if om or c == "(":
                return self.function(i, b, cls, *self.name_at(i, j, b, cls))
            if c == "[":
                j = _closing(t, j) + 1
                continue
            if c in "={;":
                return self.data(i, b, cls)
            j += 1
        raise self.err(f'"{cls}": cannot read this member declaration (a ";" is missing?)', i)

    def data(self, i: int, b: int, cls: str) -> dict:
        """A data member declaration (one or more declarators; default member initializers
        ``= v`` / ``{v}``; a nested struct, union or enum definition), or a static one."""
        t = self.text
        j = i
        while j < b and t[j] != ";":
            if t[j] in "\"'":
                j = skip_string(t, j)
                continue
            if t[j] in "([{":
                j = _closing(t, j) + 1
                if j <= 0:
                    raise self.err(f'"{cls}": unbalanced brackets in this member', i)
                continue
            j += 1
        end = j + 1
        decl = t[i:j]
        if re.match(r"\s*static\b", decl):
            sm = re.match(r"\s*static\s+((?:(?:const|constexpr)\s+)+)?([A-Za-z_][\w\s]*?)\s*\b([A-Za-z_]\w*)\s*=\s*",
                          decl)
            if not sm or not sm.group(1):
                raise self.err(f'"{cls}": static data members other than static const/constexpr '
                               "scalars with an initializer are outside simt's subset", i)
            return {"kind": "static", "start": i, "end": end, "name": sm.group(3),
                    "type": sm.group(2).strip(), "init": (i + sm.end(), j)}
        names, inits, spans, inner_names, hoist = [], [], {}, set(), None
        start = i
        nested = re.match(r"\s*(struct|union|enum)\b\s*([A-Za-z_]\w*)?[^;{]*\{", decl)
        if nested:
            close = _closing(t, i + nested.end() - 1)
            start = close + 1
            inner = t[i + nested.end():close]
            if re.search(r"\)\s*(?:const\s*)?\{|\boperator\b", inner):
                raise self.err(f'"{cls}": member functions of a nested type are outside simt\'s subset', i)
            if nested.group(2):                     # C declares nested types (and enumerators)
                inner_names.add(nested.group(2))     # at file scope: Outer::Inner is Inner
                hoist = (i + nested.start(1), close + 1, nested.group(1), nested.group(2),
                         not t[close + 1:j].strip())
            if nested.group(1) == "enum":
                inner_names.update(re.findall(r"([A-Za-z_]\w*)\s*(?:=[^,]*)?(?:,|$)", inner.strip()))
        for a, e in _split(t, start, j):
            # a declarator: its name is the last identifier before [ = { (or its end)
            k, init = a, None
            while k < e:
                c = t[k]
                if c in "\"'":
                    k = skip_string(t, k)
                    continue
                if c == "[":
                    k = _closing(t, k) + 1
                    continue
                if c == "=" or c == "{":
                    init = k
                    break
                if c == "(":
                    raise self.err(f'"{cls}": this member looks like a function pointer, which is '
                                   "outside simt's subset", k)
                k += 1
            head = t[a:init if init is not None else e]
            nm = re.findall(r"[A-Za-z_]\w*", re.sub(r"\[[^\]]*\]", "", head))
            if not nm:
                continue
            names.append(nm[-1])
            if init is not None:
                if t[init] == "=":
                    v0 = _skip_ws(t, init + 1, e)
                    brace = v0 < e and t[v0] == "{"
                    va, vb = (v0 + 1, _closing(t, v0)) if brace else (v0, e)
                else:
                    brace, va, vb = True, init + 1, _closing(t, init)
                inits.append((nm[-1], va, vb, brace))
                spans[nm[-1]] = (init, e)
        return {"kind": "data", "start": i, "end": end, "names": names, "inits": inits,
                "init_spans": spans, "nested": inner_names, "hoist": hoist}

    def name_at(self, i: int, j: int, b: int, cls: str) -> tuple[str, int, int]:
        """A member function's name (``dot``, ``operator+``, ``~V3``), where it starts and
        where its parameter list opens; ``j``: where ``operator`` or the ``(`` is."""
        t = self.text
        om = _OPERATOR.match(t, j) if t.startswith("operator", j) else None
        if om:
            if om.group(1) is None:
                raise self.err(f'"{cls}": conversion operators are outside simt\'s subset (except '
                               "the CUDA samples' SharedMemory<T>, whose operators return an extern "
                               "__shared__ array); write a member function that returns the value", j)
            return "operator" + re.sub(r"\s", "", om.group(1)), j, _skip_ws(t, om.end(), b)
        nm = re.search(r"(~?\s*[A-Za-z_]\w*)\s*$", t[i:j])
        if not nm:
            raise self.err(f'"{cls}": cannot read this member declaration', i)
        return re.sub(r"\s", "", nm.group(1)), i + nm.start(1), j

    def function(self, i: int, b: int, cls: str, fname: str, name_start: int, po: int) -> dict:
        """A member function, constructor, destructor or operator from ``i``: its head,
        parameters, qualifiers, member initializers and body (or ``;`` / ``= default;``)."""
        t = self.text
        if po >= b or t[po] != "(":
            raise self.err(f'"{cls}": cannot read this member declaration', i)
        pc = close_paren(t, po + 1) - 1
        lead = t[i:name_start]
        words = re.findall(r"[A-Za-z_]\w*|\S", lead)
        if "virtual" in words:
            raise self.err(f'"{cls}": virtual functions are outside simt\'s subset', i + lead.index("virtual"))
        static = "static" in words
        explicit = "explicit" in words
        ret = lead
        for w in _SPECIFIERS:
            ret = re.sub(r"\b" + w + r"\b", " ", ret)
        ret = " ".join(ret.split())
        # after the parameters: qualifiers, then { body }, ; , = default; or : initializers {
        j = pc + 1
        const = False
        while True:
            j = _skip_ws(t, j, b)
            wm = re.match(r"[A-Za-z_]\w*", t[j:b])
            if wm and wm.group(0) in _TRAILER_WORDS:
                const = const or wm.group(0) == "const"
                j += wm.end()
                if wm.group(0) == "noexcept" and t[_skip_ws(t, j, b)] == "(":
                    j = _closing(t, _skip_ws(t, j, b)) + 1
                continue
            break
        if t.startswith("->", j):
            raise self.err(f'"{cls}": trailing return types are outside simt\'s subset', j)
        if t.startswith("&", j):
            raise self.err(f'"{cls}": ref-qualified member functions are outside simt\'s subset', j)
        it = {"kind": "func", "start": i, "name": fname, "name_start": name_start, "po": po, "pc": pc,
              "ret": ret, "static": static, "explicit": explicit, "const": const,
              "params": t[po + 1:pc], "inits": [], "body": None, "special": None}
        if fname == cls:
            it["kind"] = "ctor"
        if fname.startswith("~"):
            it["kind"] = "dtor"
        if t.startswith("=", j):
            sm = re.match(r"=\s*(default|delete|0)\s*;", t[j:b])
            if not sm:
                raise self.err(f'"{cls}": cannot read this member declaration', j)
            if sm.group(1) == "0":
                raise self.err(f'"{cls}": pure virtual functions are outside simt\'s subset', i)
            it["special"] = sm.group(1)
            it["end"] = j + sm.end()
            return it
        if t.startswith(";", j):
            it["special"] = "prototype"
            it["end"] = j + 1
            return it
        if t.startswith(":", j) and it["kind"] == "ctor":
            j = self.meminits(it, j + 1, b, cls)
        if j >= b or t[j] != "{":
            raise self.err(f'"{cls}": cannot read this member function (its body should follow)', j)
        close = _closing(t, j)
        if close < 0:
            raise self.err(f'"{cls}": unbalanced braces in this member function', j)
        it["body"] = (j, close + 1)
        it["end"] = close + 1
        return it

    def meminits(self, it: dict, j: int, b: int, cls: str) -> int:
        """A constructor's member initializer list; returns where its body's ``{`` is."""
        t = self.text
        while True:
            j = _skip_ws(t, j, b)
            nm = re.match(r"[A-Za-z_]\w*", t[j:b])
            if not nm:
                raise self.err(f'"{cls}": cannot read this member initializer', j)
            k = _skip_ws(t, j + nm.end(), b)
            if k >= b or t[k] not in "({":
                raise self.err(f'"{cls}": cannot read this member initializer', j)
            close = _closing(t, k)
            it["inits"].append((nm.group(0), j, k + 1, close, t[k] == "{"))
            j = _skip_ws(t, close + 1, b)
            if j < b and t[j] == ",":
                j += 1
                continue
            return j

    # ---------------------------------------------------------------- output
    def head(self, start: int, po: int, ret: str, ident: str) -> str:
        """``ret ident`` standing for the text from ``start`` to the ``(`` at ``po``: padded
        to its length (keeping its line breaks) so the parameters keep their columns."""
        orig = self.text[start:po]
        new = f"{ret} {ident}".strip()
        if "\n" in orig:
            tail = orig[orig.rfind("\n") + 1:]
            return new + "\n" * orig.count("\n") + " " * len(tail)
        return new + " " * max(1, len(orig) - len(new))

    def method(self, f: dict, info: ClassInfo, nsdmi: dict) -> str:
        t = self.text
        cls = info.name
        kind, name = f["kind"], f["name"]
        at = f["start"]
        if kind == "dtor":
            if f["special"] or (f["body"] and not t[f["body"][0] + 1:f["body"][1] - 1].strip()):
                return ""
            raise self.err(f'"{cls}": a destructor with a body is outside simt\'s subset (simt runs '
                           "no destructors)", at)
        params = f["params"]
        copy = re.fullmatch(r"\s*(?:const\s+)?" + re.escape(cls) + r"\s*&&?\s*\w*\s*", params)
        if kind == "ctor":
            if copy:
                if f["special"] in ("default", "delete"):
                    return ""
                raise self.err(f'"{cls}": a user-defined copy or move constructor is outside simt\'s '
                               "subset (simt copies structs member by member)", at)
            if not _has_params(params):
                info.default_ctor = True
            else:
                info.user_ctors = True
                info.default_ctor = info.default_ctor or _all_defaulted(params)
            if f["special"] == "default":
                return ""
        if name == "operator=":
            if f["special"] in ("default", "delete"):
                return ""
            raise self.err(f'"{cls}": a user-defined operator= is outside simt\'s subset (simt '
                           "assigns structs member by member)", at)
        if name.startswith("operator") and name[len("operator"):] not in OPERATORS:
            raise self.err(f'"{cls}": {name} is outside simt\'s subset', f["name_start"])
        if f["special"] in ("delete", "prototype"):
            if f["special"] == "prototype":
                f["defaults"] = {k: (self.co(a + eq.end()), t[a + eq.end():e])
                                 for k, (a, e) in enumerate(_split(t, f["po"] + 1, f["pc"]))
                                 for eq in [re.search(r"(?<![=!<>])=(?!=)", t[a:e])] if eq}
                self.protos.setdefault((cls, name), []).append(f)
            return ""
        ref = False
        ret = f["ret"]
        if kind == "ctor":
            ret = "void"
        elif ret.endswith("&"):
            if ret.endswith("&&"):
                raise self.err(f'"{cls}": rvalue reference returns are outside simt\'s subset', at)
            ref, ret = True, ret[:-1].strip()
        elif not ret:
            raise self.err(f'"{cls}": member function "{name}" needs a return type', at)
        ident = self.ident()
        mk = ("ctor" if kind == "ctor" else "static" if f["static"] else
              "operator" if name.startswith("operator") else "method")
        if mk == "static" and name.startswith("operator"):
            raise self.err(f'"{cls}": a static {name} is outside simt\'s subset', at)
        self.table.add(Method(ident, cls, name, mk, self.co(f["name_start"]), const=f["const"],
                              ref_return=ref, explicit=f["explicit"]))
        if f.get("defaults"):
            self.table.defaults[ident] = f["defaults"]
        return self.emit(f, ident, ret, info, nsdmi)

    def emit(self, f: dict, ident: str, ret: str, info: ClassInfo, nsdmi: dict) -> str:
        """The member function as a file-scope function at its own lines and columns (in
        place, for one defined outside its class: ``f["in_place"]``)."""
        t = self.text
        out = "" if f.get("in_place") else self.line_directive(f["start"])
        out += self.head(f["start"], f["po"], ret, ident)
        out += t[f["po"]:f["pc"] + 1]
        body_a, body_b = f["body"]
        if f["kind"] == "ctor" and (f["inits"] or nsdmi):
            out += " {" + self.initializers(f, info, nsdmi)
            out += self.line_directive(body_a) + t[body_a:body_b] + "}"
        else:
            out += _blank(t[f["pc"] + 1:body_a]) + t[body_a:body_b]
        return out

    def initializers(self, f: dict, info: ClassInfo, nsdmi: dict) -> str:
        """``__simt_meminit(m,args);`` for each member a constructor initializes, named in
        its initializer list or by a default member initializer, in declaration order."""
        t = self.text
        listed = {}
        for nm, a, ao, close, brace in f["inits"]:
            if nm not in info.members:
                raise self.err(f'"{nm}" is not a member of "{info.name}" (simt has no base classes)', a)
            if nm in listed:
                raise self.err(f'member "{nm}" is initialized twice', a)
            listed[nm] = (a, ao, close, brace)
        out = []
        for nm in info.members:
            if nm in listed:
                a, ao, close, brace = listed[nm]
                args = t[ao:close]
            elif nm in nsdmi:
                va, vb, brace = nsdmi[nm]
                a, args = va, t[va:vb]
            else:
                continue
            call = MEMLIST if brace else MEMINIT
            pad = self.line_directive(a)
            pad = pad[:pad.rfind("\n") + 1] + " " * max(0, len(pad) - pad.rfind("\n") - 1 - len(call) - 1)
            sep = "," if args.strip() else ""
            out.append(pad + f"{call}({nm}{sep}{args});")
        return "".join(out)

    def implicit_ctor(self, info: ClassInfo, nsdmi: dict, at: int) -> str:
        """The default constructor of a struct with default member initializers."""
        ident = self.ident()
        self.table.add(Method(ident, info.name, info.name, "ctor", info.coord, implicit=True))
        info.default_ctor = True
        return (self.line_directive(at) + f"void {ident}() {{"
                + self.initializers({"inits": []}, info, nsdmi) + "}")

    # ---------------------------------------------------------------- the rest of the file
    def outside_definitions(self, text: str) -> str:
        """``RET V3::dot(params) const { ... }`` at file scope: a member defined outside its
        class (declared inside it), renamed in place."""
        if not self.table.classes:
            return text
        names = "|".join(map(re.escape, self.table.classes))
        rx = re.compile(r"\b(" + names + r")\s*::\s*(~?\s*[A-Za-z_]\w*|operator\b\s*" + _SYM + r")\s*\(")
        out, pos = [], 0
        saved = self.text
        self.text = text
        try:
            for m in rx.finditer(text):
                if m.start() < pos:
                    continue
                cls, fname = m.group(1), re.sub(r"\s", "", m.group(2))
                if (cls, fname) not in self.protos:
                    continue
                k = self.decl_start(text, m.start())
                f = self.function(k, len(text), cls, fname, m.start(), m.end() - 1)
                if f["body"] is None:
                    continue
                protos = self.protos[(cls, fname)]
                n = len(_split(text, f["po"] + 1, f["pc"])) if _has_params(text[f["po"] + 1:f["pc"]]) else 0
                proto = next((p for p in protos if len(_split(p["params"], 0, len(p["params"])))
                              == n and _has_params(p["params"])), protos[0])
                f["static"], f["explicit"] = proto["static"], proto["explicit"]
                f["defaults"] = proto.get("defaults")
                f["in_place"] = True
                g = self.method(f, self.table.classes[cls], self.nsdmi.get(cls, {}))
                out.append(text[pos:k] + g)
                pos = f["end"]
        finally:
            self.text = saved
        out.append(text[pos:])
        return "".join(out)

    @staticmethod
    def decl_start(text: str, pos: int) -> int:
        """Where the file-scope declaration around ``pos`` begins: after the previous ``;``,
        brace or directive line."""
        k = pos
        while k > 0 and text[k - 1] not in ";{}":
            if text[k - 1] == "\n":
                ls = text.rfind("\n", 0, k - 1) + 1
                if text[ls:k - 1].lstrip().startswith("#"):
                    break
            k -= 1
        return _skip_ws(text, k)

    def free_operators(self, text: str) -> str:
        """Non-member operator functions (``float3 operator+(float3 a, float3 b) {...}``):
        renamed in place (``__o<k>``, padded to the same length); their prototypes blanked."""
        if "operator" not in text:
            return text
        out, pos = [], 0
        saved = self.text
        self.text = text
        try:
            for m in re.finditer(r"(?<![\w:.>])operator\b\s*(" + _SYM + r")?\s*\(", text):
                if m.start() < pos:
                    continue
                if m.group(1) is None:
                    raise self.err("conversion operators are outside simt's subset", m.start())
                sym = re.sub(r"\s", "", m.group(1))
                if sym == "()" and not re.match(r"operator\s*\(\s*\)\s*\(", text[m.start():]):
                    continue
                po = m.start() + re.match(r"operator\s*" + re.escape(m.group(1)) + r"\s*", text[m.start():]).end()
                if sym not in OPERATORS or sym in ("[]", "()"):
                    raise self.err(f"operator{sym} as a non-member function is outside simt's subset",
                                   m.start())
                pc = close_paren(text, po + 1) - 1
                j = _skip_ws(text, pc + 1)
                if text.startswith(";", j):                   # a prototype
                    k = self.decl_start(text, m.start())
                    out.append(text[pos:k] + _blank(text[k:j + 1]))
                    pos = j + 1
                    continue
                if not text.startswith("{", j):
                    continue                                  # inside an expression (a call)
                ident = self.ident("__o")
                self.table.add(Method(ident, None, "operator" + sym, "operator", self.co(m.start())))
                span = text[m.start():po]
                out.append(text[pos:m.start()] + ident + " " * max(1, len(span) - len(ident)))
                pos = po
        finally:
            self.text = saved
        out.append(text[pos:])
        return "".join(out)

    def qualified_names(self, text: str) -> str:
        """``V3::zero``, ``V3::N`` -> ``V3__zero``, ``V3__N`` (the same length)."""
        if not self.table.classes:
            return text
        names = "|".join(map(re.escape, self.table.classes))

        def sub(m):
            cls, nm = m.group(1), m.group(2)
            if nm in self.table.classes[cls].nested:
                return nm.rjust(len(m.group(0)))
            new = f"{cls}__{nm}"
            self.table.qualified[new] = (cls, nm)
            return new.ljust(len(m.group(0)))
        return re.sub(r"\b(" + names + r")\s*::\s*([A-Za-z_]\w*)", sub, text)


def rewrite(text: str, filename: str) -> tuple[str, ClassTable]:
    """The file's classes as C (see the module docstring) and their table."""
    return _Rewriter(text, filename).run()
