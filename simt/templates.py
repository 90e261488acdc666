"""Function templates, instantiated as text before parsing (what C++ does, in little).

``template <typename T, unsigned int blockSize = 256> __global__ void reduce(...)`` is cut
out of the translation unit; each instance that is asked for (``--kernel 'reduce<float,
256>'``, ``Module.get_function``), named in a call (``warpReduce<blockSize>(s, tid)``) or
deduced from a call's argument types (``warpSum(v)`` with a ``float v``: the lowerer asks
for ``warpSum<float>``) is written back at the template's place as an ordinary function
whose parameters are replaced by their arguments: a type by its spelling, a value by a
literal of the parameter's type.  Instances are named ``name__t<hash>`` in the text;
``names`` maps those to the C++ spelling (``reduce<float, 256>``), which is what reports
show and what ``--real`` hands NVRTC as a name expression.  ``#line`` directives keep each
instance's coordinates on the template's lines.

A class template (``template <typename T, int N> struct Vec { T v[N]; ... };``) is
instantiated the same way where a ``Vec<float, 4>`` is named (a type in a declaration, a
parameter, another template's argument: ``Pair<Vec<float, 2>>``): the instance is the
struct ``Vec__t<hash>`` (its own name inside it, the injected class name and its
constructors', replaced too), written before the first file-scope declaration that needs
it, and its member functions are ``simt.classes``'.  A function template's parameter
declared as a class template's instance (``const Vec<T, N> &v``) deduces ``T`` and ``N``
from the argument's instance.

Limitations: no explicit or partial specializations (``template <>``, ``struct X<T *>``),
members of class templates defined outside the class, member templates, template
template parameters or parameter packs; a call that names some
of its arguments must name all that have no default (deduction fills only calls that name
none); deduction matches a parameter declared ``T``, ``T *`` or ``const T *`` against the
argument's type; value arguments are integer constant expressions of literals, enumerators
and file-scope ``const``/``constexpr`` integers.  Columns on a line where a parameter was
replaced by a longer or shorter spelling are those of the instance's text.
"""
from __future__ import annotations

import ast as pyast
import bisect
import hashlib
import math
import re
from dataclasses import dataclass, field

from .errors import CompileError, Coord

MAX_INSTANCES = 256          # a template that instantiates itself without end stops here

_INT_TYPES = {
    "int": "", "signed": "", "signed int": "", "short": "", "short int": "", "char": "",
    "signed char": "", "unsigned": "u", "unsigned int": "u", "unsigned short": "u",
    "unsigned char": "u", "long": "ll", "long int": "ll", "long long": "ll", "long long int": "ll",
    "unsigned long": "ull", "unsigned long int": "ull", "unsigned long long": "ull",
    "unsigned long long int": "ull", "size_t": "ull", "int64_t": "ll", "uint64_t": "ull",
    "int32_t": "", "uint32_t": "u", "bool": "bool",
}
_TYPE_ALIASES = {"unsigned": "unsigned int", "signed": "int", "signed int": "int",
                 "long int": "long", "long long int": "long long", "short int": "short",
                 "unsigned long int": "unsigned long", "unsigned long long int": "unsigned long long",
                 "unsigned short int": "unsigned short"}


@dataclass
class TParam:
    kind: str                  # "type" or "value"
    name: str
    vtype: str = ""            # a value parameter's type ("int", "unsigned int", "bool")
    default: str | None = None


@dataclass
class Template:
    name: str
    params: list[TParam]
    decl: str                  # the declaration after ``template <...>``
    start: int                 # where ``template`` begins in the text
    decl_start: int            # where the declaration begins
    end: int                   # one past its closing brace (or semicolon)
    line: int                  # the declaration's first line (for #line)
    file: str
    is_kernel: bool
    fparams: list[tuple] = field(default_factory=list)   # (base word, pointer depth, its <args>)
    is_class: bool = False     # a class template (template <typename T> struct Pair {...};)

    def signature(self) -> str:
        ps = ", ".join(("typename " + p.name) if p.kind == "type" else f"{p.vtype} {p.name}"
                       for p in self.params)
        return f"{self.name}<{ps}>"


def skip_string(text: str, i: int) -> int:
    """One past the string or character literal whose quote is at i."""
    q = text[i]
    i += 1
    while i < len(text) and text[i] != q:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def match_angle(text: str, open_pos: int) -> int:
    """Index of the ``>`` closing the ``<`` at open_pos (brackets and parentheses nest), or -1."""
    depth = 0
    i = open_pos
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = skip_string(text, i)
            continue
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
            if depth == 0:
                return i if c == ">" else -1
        elif c in ";{}":
            return -1
        i += 1
    return -1


def angle_call(text: str, lt: int) -> tuple[int, int] | None:
    """For the ``<`` at lt of ``name<...>(``: the matching ``>`` and the ``(`` right after
    it, or None when the text there is not of that shape."""
    close = match_angle(text, lt)
    po = text.find("(", close + 1) if close >= 0 else -1
    if close < 0 or po < 0 or text[close + 1:po].strip():
        return None
    return close, po


def split_spans(s: str, start: int = 0, end: int | None = None, brackets: str = "<>()[]",
                strings: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each top-level comma-separated part of s[start:end] (an argument
    or parameter list: commas inside the ``brackets`` pairs, by default (), [] and <>, do
    not split; with ``strings``, nor commas in string and character literals)."""
    end = len(s) if end is None else end
    opens, closes = brackets[0::2], brackets[1::2]
    out, depth, a, i = [], 0, start, start
    while i < end:
        c = s[i]
        if strings and c in "\"'":
            i = skip_string(s, i)
            continue
        if c in opens:
            depth += 1
        elif c in closes:
            depth -= 1
        elif c == "," and depth == 0:
            out.append((a, i))
            a = i + 1
        i += 1
    out.append((a, end))
    return out


def split_args(s: str) -> list[str]:
    """Top-level comma split of a template argument list."""
    out = [s[a:b].strip() for a, b in split_spans(s)]
    return [] if out == [""] else out


def close_paren(text: str, i: int) -> int:
    """One past the ``)`` matching the ``(`` just before position i (the end if none)."""
    depth = 1
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return i


def _line_of(text: str, pos: int, filename: str) -> Coord:
    from .frontend import _coord_of
    return _coord_of(text, pos, filename)


def _end_of_decl(text: str, pos: int) -> int:
    """One past the function body's closing brace (or a prototype's semicolon)."""
    from .frontend import _match_brace
    i = pos
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = skip_string(text, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth == 0:
            return i + 1
        elif c == "{" and depth == 0:
            close = _match_brace(text, i)
            return -1 if close < 0 else close + 1
        i += 1
    return -1


def _parse_params(s: str, co: Coord, enums=frozenset()) -> list[TParam]:
    """A template's parameters; a value parameter of an enum type (``enums``) keeps the
    enum's name as its type (its instances spell the enumerator: ``k<Mode::Mul>``)."""
    out = []
    for part in split_args(s):
        if not part:
            raise CompileError("empty template parameter", co)
        default = None
        if "=" in part:
            part, default = (x.strip() for x in part.split("=", 1))
        words = part.split()
        if words[0] in ("typename", "class") and len(words) == 2:
            out.append(TParam("type", words[1], default=default))
        elif len(words) >= 2 and " ".join(words[:-1]) in _INT_TYPES:
            out.append(TParam("value", words[-1], " ".join(words[:-1]), default))
        elif len(words) == 2 and words[0] in enums:
            out.append(TParam("value", words[1], words[0], default))
        elif "..." in part:
            raise CompileError("template parameter packs are outside simt's subset", co)
        else:
            raise CompileError(f"template parameter '{part}': simt takes typename/class "
                               "parameters and integer, bool or enum values", co)
    return out


def _fparams(decl: str, name: str) -> list[tuple[str, int, list | None]]:
    """(base word, pointer depth, the base's template arguments or None) of each parameter
    of a function template (``const Vec<T, N> &v``: ``("Vec", 0, ["T", "N"])``)."""
    m = re.search(r"\b" + re.escape(name) + r"\s*\(", decl)
    if not m:
        return []
    i = close_paren(decl, m.end())
    out = []
    for raw in split_args(decl[m.end():i - 1]):
        raw = re.sub(r"\b(const|volatile|restrict|__restrict__|__restrict)\b", " ", raw)
        raw = re.sub(r"\[\s*\w*\s*\]", "*", raw)
        targs = None
        lt = raw.find("<")
        if lt >= 0:
            close = match_angle(raw, lt)
            if close > 0:
                targs = split_args(raw[lt + 1:close])
                raw = raw[:lt] + " " + raw[close + 1:]
        words = re.findall(r"[A-Za-z_]\w*", raw)
        out.append((words[0] if words else "", raw.count("*"), targs))
    return out


def find_templates(text: str, filename: str, enums=frozenset()) -> tuple[str, list[Template]]:
    """The text with every file-scope template blanked out (lines kept), and the templates.
    Explicit instantiations (``template __global__ void k<float>(float *);``) are blanked:
    an instance is written when a launch or a call asks for it."""
    text = re.sub(r"\btemplate\s+(?!<)[^;{}]*;", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    out = list(text)
    found: list[Template] = []
    depth = 0
    i = 0
    rx = re.compile(r"\btemplate\s*<")
    while True:
        m = rx.search(text, i)
        if not m:
            break
        depth += text.count("{", i, m.start()) - text.count("}", i, m.start())
        co = _line_of(text, m.start(), filename)
        if depth != 0:
            raise CompileError("a template inside a function or struct is outside simt's subset", co)
        close = match_angle(text, m.end() - 1)
        if close < 0:
            raise CompileError("unbalanced '<' in template parameter list", co)
        plist = text[m.end():close].strip()
        if not plist:
            raise CompileError("explicit specializations (template <>) are outside simt's subset", co)
        params = _parse_params(plist, co, enums)
        decl_start = close + 1
        end = _end_of_decl(text, decl_start)
        if end < 0:
            raise CompileError("cannot find the end of this template", co)
        decl = text[decl_start:end]
        cm = re.match(r"\s*(?:struct|class)\s+([A-Za-z_]\w*)\s*(<)?", decl)
        if cm:                                        # a class template: ends at its ;
            if cm.group(2):
                raise CompileError("partial specializations of class templates are outside simt's "
                                   "subset", co)
            if not decl.rstrip().endswith(";"):
                semi = re.match(r"\s*;", text[end:])
                if not semi:
                    raise CompileError("a class template must end with ';' after its closing brace", co)
                end += semi.end()
                decl = text[decl_start:end]
            nm = cm
        else:
            head = decl[:decl.find("(")] if "(" in decl else decl
            if "::" in head:
                raise CompileError("a member of a class template defined outside the class is outside "
                                   "simt's subset; define it inside the class", co)
            nm = re.search(r"([A-Za-z_]\w*)\s*\(", re.sub(r"__launch_bounds__\s*\([^)]*\)|"
                                                       r"__align__\s*\([^)]*\)",
                                                       lambda x: " " * len(x.group(0)), decl))
            if not nm or re.match(r"\s*union\b", decl):
                raise CompileError("only function and class templates are in simt's subset", co)
        for k in range(m.start(), end):
            if out[k] != "\n":
                out[k] = " "
        i = end
        if decl.rstrip().endswith(";") and "{" not in decl:
            continue                                  # a forward declaration: dropped
        name = nm.group(1)
        dco = _line_of(text, decl_start, filename)
        found.append(Template(name, params, decl, m.start(), decl_start, end, dco.line,
                              dco.file or filename, not cm and "__global__" in decl[:nm.start()],
                              [] if cm else _fparams(decl, name), is_class=bool(cm)))
    return "".join(out), found


# ------------------------------------------------------------------ argument values

_BIN = {pyast.Add: lambda a, b: a + b, pyast.Sub: lambda a, b: a - b,
        pyast.Mult: lambda a, b: a * b, pyast.Mod: lambda a, b: int(abs(a) % abs(b)) * (1 if a >= 0 else -1),
        pyast.FloorDiv: lambda a, b: int(abs(a) // abs(b)) * (1 if (a >= 0) == (b >= 0) else -1),
        pyast.LShift: lambda a, b: a << b, pyast.RShift: lambda a, b: a >> b,
        pyast.BitAnd: lambda a, b: a & b, pyast.BitOr: lambda a, b: a | b,
        pyast.BitXor: lambda a, b: a ^ b}
_CMP = {pyast.Lt: lambda a, b: a < b, pyast.LtE: lambda a, b: a <= b, pyast.Gt: lambda a, b: a > b,
        pyast.GtE: lambda a, b: a >= b, pyast.Eq: lambda a, b: a == b, pyast.NotEq: lambda a, b: a != b}


def eval_int(expr: str, consts: dict[str, int], co: Coord) -> int:
    """Value of a C integer constant expression (the subset template arguments use)."""
    s = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
    s = re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", s))
    s = s.replace("&&", " and ").replace("||", " or ")
    s = re.sub(r"!(?!=)", " not ", s).replace("/", "//")
    s = re.sub(r"\b0(\d+)\b", lambda m: str(int(m.group(1), 8)), s)

    def ev(n):
        if isinstance(n, pyast.Expression):
            return ev(n.body)
        if isinstance(n, pyast.Constant) and isinstance(n.value, int):
            return int(n.value)
        if isinstance(n, pyast.Name):
            if n.id in consts:
                return int(consts[n.id])
            raise CompileError(f"template argument '{expr}': '{n.id}' is not a constant simt knows", co)
        if isinstance(n, pyast.BinOp) and type(n.op) in _BIN:
            return _BIN[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, pyast.UnaryOp):
            v = ev(n.operand)
            return {pyast.USub: -v, pyast.UAdd: v, pyast.Invert: ~v, pyast.Not: int(not v)}[type(n.op)]
        if isinstance(n, pyast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _CMP:
            return int(_CMP[type(n.ops[0])](ev(n.left), ev(n.comparators[0])))
        if isinstance(n, pyast.BoolOp):
            vals = [ev(v) for v in n.values]
            return int(all(vals) if isinstance(n.op, pyast.And) else any(vals))
        if isinstance(n, pyast.IfExp):
            return ev(n.body) if ev(n.test) else ev(n.orelse)
        raise CompileError(f"template argument '{expr}' is not an integer constant expression", co)

    s2 = re.sub(r"(.+?)\?(.+?):(.+)", r"(\2) if (\1) else (\3)", s) if "?" in s else s
    try:
        tree = pyast.parse(s2.strip(), mode="eval")
    except SyntaxError:
        raise CompileError(f"template argument '{expr}' is not an integer constant expression", co) from None
    return ev(tree)


def canon_type(s: str) -> str:
    """A type argument's one spelling: ``unsigned*`` -> ``unsigned int *``."""
    s = " ".join(s.replace("*", " * ").split())
    base = s.replace(" *", "").replace("const ", "").strip()
    return s.replace(base, _TYPE_ALIASES[base], 1) if base in _TYPE_ALIASES else s


def literal(p: TParam, v: int) -> str:
    suf = _INT_TYPES.get(p.vtype, "")
    if suf == "bool":
        return "true" if v else "false"
    return f"({v}{suf})" if v < 0 else f"{v}{suf}"


@dataclass(frozen=True)
class Instance:
    name: str
    args: tuple[str, ...]      # canonical: type spellings and decimal values

    @property
    def display(self) -> str:
        return f"{self.name}<{', '.join(self.args)}>"

    @property
    def ident(self) -> str:
        h = hashlib.sha1(self.display.encode()).hexdigest()[:8]
        return f"{self.name}__t{h}"


class Expander:
    """Instantiates a file's templates on request and writes the instances into its text."""

    def __init__(self, text: str, filename: str, enums=frozenset()):
        self.filename = filename
        self.text, self.templates = find_templates(text, filename, enums)
        self.colmaps: dict[str, tuple] = {}      # instance ident -> (template, line starts, replacements)
        self.instances: dict[str, Instance] = {}    # instance ident -> instance
        self.by_name = {}
        for t in self.templates:
            if t.name in self.by_name:
                co = Coord(t.file, t.line)
                raise CompileError(f"a second template named {t.name}: overloaded templates are "
                                   "outside simt's subset", co)
            self.by_name[t.name] = t
        self.consts = {}
        for m in re.finditer(r"\b(?:constexpr|const)\s+(?:static\s+)?(?:unsigned\s+)?(?:int|long|size_t|"
                             r"short|char|unsigned)\s+([A-Za-z_]\w*)\s*=\s*([^;,]+);", self.text):
            try:
                self.consts[m.group(1)] = eval_int(m.group(2), self.consts, Coord(filename, 1))
            except CompileError:
                pass
        self.enumerators: dict[str, dict[int, str]] = {}    # enum -> value -> its spelling
        for m in re.finditer(r"\benum\b\s*(\w*)[^{;]*\{([^}]*)\}", self.text):
            nxt = 0
            names = self.enumerators.setdefault(m.group(1), {})
            for item in m.group(2).split(","):
                if not item.strip():
                    continue
                nm, _, val = item.partition("=")
                try:
                    nxt = eval_int(val, self.consts, Coord(filename, 1)) if val.strip() else nxt
                except CompileError:
                    break
                self.consts[nm.strip()] = nxt
                scoped = m.group(1) and nm.strip().startswith(m.group(1) + "__")
                names.setdefault(nxt, nm.strip().replace("__", "::", 1) if scoped else nm.strip())
                nxt += 1

    # -------------------------------------------------------------- requests
    def instance(self, name: str, arg_texts: list[str], co: Coord) -> Instance:
        """The canonical instance of ``name<arg_texts>`` (defaults filled, values evaluated)."""
        t = self.by_name[name]
        if len(arg_texts) > len(t.params):
            raise CompileError(f"too many template arguments for {t.signature()}", co)
        args = []
        bound: dict[str, str] = {}
        for i, p in enumerate(t.params):
            if i < len(arg_texts):
                a = arg_texts[i]
            elif p.default is not None:
                a = _subst(p.default, {q.name: bound[q.name] for q in t.params[:i]})
            else:
                raise CompileError(f"{name} needs its template argument '{p.name}' "
                                   f"({t.signature()}); write {name}<...>", co)
            if p.kind == "type":
                v = canon_type(a)
                if not re.fullmatch(r"[A-Za-z_][\w ]*\**", v.replace(" *", "*")):
                    raise CompileError(f"template argument '{a}' for {p.name} is not a type", co)
                bound[p.name] = v
            else:
                val = eval_int(a, self.consts, co)
                if _INT_TYPES.get(p.vtype) == "bool":
                    val = int(bool(val))
                v = str(val)
                if p.vtype in self.enumerators:
                    v = self.enumerators[p.vtype].get(val, f"({p.vtype}){val}")
                bound[p.name] = literal(p, val)
            args.append(v)
        return Instance(name, tuple(args))

    def _value(self, p: TParam, canonical: str) -> int:
        """A value argument's integer from its canonical spelling (``Mode::Mul`` for an
        enum's, ``(Mode)7`` for an enum value without an enumerator)."""
        if p.vtype in self.enumerators:
            for v, spelled in self.enumerators[p.vtype].items():
                if spelled == canonical:
                    return v
            return int(canonical.rsplit(")", 1)[-1])
        return int(canonical)

    def request(self, spelled: str, co: Coord | None = None) -> Instance | None:
        """``reduce<float, 256>`` (or ``reduce`` for a template whose parameters all have
        defaults) as an instance; None when the name is not a template's."""
        co = co or Coord(self.filename, 1)
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(?:<(.*)>)?\s*", spelled, re.S)
        if not m or m.group(1) not in self.by_name:
            return None
        args = split_args(m.group(2)) if m.group(2) is not None else []
        # a scoped enumerator as the launch spells it (Mode::Mul) is Mode__Mul in the text
        args = [re.sub(r"\b(\w+)\s*::\s*(\w+)", r"\1__\2", a) for a in args]
        return self.instance(m.group(1), [a for a in args if a], co)

    # -------------------------------------------------------------- expansion
    _TOKEN = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\bif\s+constexpr\b|\b[A-Za-z_]\w*\b")

    def _instance_text(self, t: Template, inst: Instance, todo: list[Instance]):
        """One instance's text (parameters bound, its name and the template calls in it
        replaced by instance names) and its replacements, ``(inst_start, orig_start,
        inst_end, orig_end)`` each, by which ``colmap`` finds the template's columns."""
        env = self._bind(inst)
        src = t.decl
        out: list[str] = []
        reps: list[tuple[int, int, int, int]] = []
        pos = ipos = 0
        renamed = False
        i = 0
        while True:
            m = self._TOKEN.search(src, i)
            if not m:
                break
            w, i = m.group(0), m.end()
            new, end = None, m.end()
            if re.fullmatch(r"if\s+constexpr", w):
                new = "if"
            elif w[0] in "\"'":
                continue
            elif w == t.name and not renamed and re.match(r"\s*\(", src[end:]) and not t.is_class:
                new, renamed = inst.ident, True
            elif w == t.name and t.is_class and not re.match(r"\s*<", src[end:]):
                new = inst.ident                    # the class's own name (and its constructors')
            elif w in self.by_name and re.match(r"\s*<", src[end:]):
                co = Coord(t.file, t.line + src.count("\n", 0, m.start()))
                call = self._call(src, w, m.start(), src.index("<", end), env, co, todo)
                if call is None:
                    continue
                new, end = call
                i = end
            elif w in env:
                new = env[w]
            if new is None:
                continue
            out.append(src[pos:m.start()])
            ipos += m.start() - pos
            reps.append((ipos, m.start(), ipos + len(new), end))
            out.append(new)
            ipos += len(new)
            pos = end
        out.append(src[pos:])
        return "".join(out), reps

    def colmap(self, ident: str, line: int, col: int) -> tuple[int, int]:
        """The template's (line, column) of a place in instance ``ident``'s text."""
        t, starts, reps = self.colmaps[ident]
        k = line - t.line
        col0 = _col0(self.text, t.decl_start)
        if k < 0 or col < 1 or k >= len(starts):
            return line, col
        p = starts[k] + col - 1 - (col0 if k == 0 else 0)
        j = bisect.bisect_right(reps, (p, math.inf)) - 1    # the last replacement at or before p
        if j < 0:
            o = p
        else:
            ist, ost, iend, oend = reps[j]
            o = ost if p < iend else oend + (p - iend)
        nl = t.decl.rfind("\n", 0, o)
        return t.line + t.decl.count("\n", 0, o), (col0 + o + 1 if nl < 0 else o - nl)

    def _bind(self, inst: Instance) -> dict[str, str]:
        t = self.by_name[inst.name]
        return {p.name: (a if p.kind == "type" else literal(p, self._value(p, a)))
                for p, a in zip(t.params, inst.args)}

    def _call(self, src: str, name: str, start: int, lt: int, env: dict[str, str], co: Coord,
              todo: list[Instance]) -> tuple[str, int] | None:
        """The call ``name<args>`` at ``start`` (its ``<`` at ``lt``): queue its instance and
        return the instance's name (keeping the call's line breaks) and where the call's
        argument list ends; None when the ``<`` does not close."""
        close = match_angle(src, lt)
        if close < 0:
            return None
        callee = self.instance(name, split_args(self._nested(_subst(src[lt + 1:close], env), co, todo)), co)
        todo.append(callee)
        return callee.ident + "\n" * src.count("\n", start, close + 1), close + 1

    def _nested(self, s: str, co: Coord, todo: list[Instance]) -> str:
        """Template arguments with their own template-ids (``Pair<Vec<float, 2>>``) named
        by their instances."""
        if "<" not in s:
            return s
        return self._replace_calls(s, todo, lambda at: co)

    def _calls(self, text: str, offset: int, todo: list[Instance]) -> str:
        """Replace the template calls ``tname<args>`` in code outside the templates (at
        ``offset`` in the text) by instance names, queueing the instances."""
        if not self.by_name:
            return text
        return self._replace_calls(text, todo, lambda at: _line_of(self.text, offset + at, self.filename))

    def _replace_calls(self, text: str, todo: list[Instance], coord_at) -> str:
        """``text`` with each ``tname<args>`` of a known template replaced by its instance's
        name (queued in ``todo``); ``coord_at(position)`` gives the call's coordinates."""
        rx = re.compile(r"\b(" + "|".join(map(re.escape, self.by_name)) + r")\s*<")
        out, pos = [], 0
        for m in rx.finditer(text):
            if m.start() < pos:
                continue
            call = self._call(text, m.group(1), m.start(), m.end() - 1, {}, coord_at(m.start()), todo)
            if call is None:
                continue
            out.append(text[pos:m.start()] + call[0])
            pos = call[1]
        out.append(text[pos:])
        return "".join(out)

    def expand(self, requests=()) -> tuple[str, dict[str, str]]:
        """The text with the requested instances (and every instance they name) written in;
        and ``names``: instance identifier -> C++ spelling."""
        todo: list[Instance] = list(requests)
        cuts = [0] + [t.end for t in sorted(self.templates, key=lambda t: t.start)] + [len(self.text)]
        segs = [self._calls(self.text[a:b], a, todo) for a, b in zip(cuts, cuts[1:])]
        done: dict[Instance, str] = {}
        while todo:
            inst = todo.pop(0)
            if inst in done:
                continue
            if len(done) >= MAX_INSTANCES:
                t = self.by_name[inst.name]
                raise CompileError(f"more than {MAX_INSTANCES} template instances (does {t.name} "
                                   "instantiate itself without end?)", Coord(t.file, t.line))
            t = self.by_name[inst.name]
            body, reps = self._instance_text(t, inst, todo)
            done[inst] = body
            starts = [0] + [j + 1 for j, c in enumerate(body) if c == "\n"]
            self.colmaps[inst.ident] = (t, starts, reps)
        by_t: dict[str, list[str]] = {}
        classes = []
        for inst, body in done.items():
            self.instances[inst.ident] = inst
            if self.by_name[inst.name].is_class:
                classes.append((inst, body))
            else:
                by_t.setdefault(inst.name, []).append(body)
        # write each template's instances after the (blanked) template
        pieces = []
        for t, seg in zip(sorted(self.templates, key=lambda t: t.start), segs):
            pieces.append(seg)
            bodies = by_t.get(t.name)
            if not bodies:
                continue
            end_co = _line_of(self.text, t.end, self.filename)
            col = t.end - (self.text.rfind("\n", 0, t.end) + 1)
            ins = "".join(f'\n#line {t.line} "{t.file}"\n' + " " * _col0(self.text, t.decl_start) + b
                          for b in bodies)
            pieces.append(ins + f'\n#line {end_co.line} "{end_co.file or self.filename}"\n' + " " * col)
        pieces.append(segs[-1])
        names = {inst.ident: inst.display for inst in done}
        return self._place_classes("".join(pieces), classes), names

    def _place_classes(self, text: str, classes: list) -> str:
        """Write each class template instance before the first file-scope declaration that
        names it (or that names an instance naming it), as C needs a struct defined before
        its use; an instance nothing names is left out."""
        if not classes:
            return text
        from .frontend import _coord_of
        bounds = _boundaries(text)
        at: dict[str, int] = {}
        for inst, _ in classes:
            m = re.search(r"\b" + re.escape(inst.ident) + r"\b", text)
            if m:
                at[inst.ident] = bounds[bisect.bisect_right(bounds, m.start()) - 1]
        bodies = {inst.ident: body for inst, body in classes}
        uses = {a: [b for b in bodies if b != a and re.search(r"\b" + b + r"\b", bodies[a])] for a in bodies}
        changed = True
        while changed:                              # what an instance names goes before it
            changed = False
            for a, bs in uses.items():
                for b in bs:
                    if a in at and at.get(b, math.inf) > at[a]:
                        at[b] = at[a]
                        changed = True
        order: list[str] = []

        def visit(a, seen=()):
            if a in order or a in seen:
                return
            for b in uses[a]:
                visit(b, seen + (a,))
            order.append(a)
        for a in bodies:
            visit(a)
        inserts: dict[int, list[str]] = {}
        for ident in order:
            if ident in at:
                inserts.setdefault(at[ident], []).append(ident)
        for pos in sorted(inserts, reverse=True):
            co = _coord_of(text, pos, self.filename)
            ins = ""
            for ident in inserts[pos]:
                t = self.by_name[self.instances[ident].name]
                ins += f'\n#line {t.line} "{t.file}"\n' + " " * _col0(self.text, t.decl_start) + bodies[ident]
            ins += f'\n#line {co.line} "{co.file or self.filename}"\n' + " " * max(0, co.col - 1)
            text = text[:pos] + ins + text[pos:]
        return text


def _boundaries(text: str) -> list[int]:
    """Positions where a file-scope declaration may begin: the start, after a ``;`` or a
    function body's ``}`` at file scope, and inside ``extern "C" {``."""
    from .frontend import _match_brace
    extern = set()
    for m in re.finditer(r'extern\s*"C"\s*\{', text):
        extern.update((m.end() - 1, _match_brace(text, m.end() - 1)))
    out, depth, i, bodies = [0], 0, 0, []
    n = len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            i = skip_string(text, i)
            continue
        if i in extern:
            out.append(i + 1)
        elif c == "{":
            if depth == 0:
                bodies.append(text[:i].rstrip().endswith(")") or
                              bool(re.search(r"\)\s*(?:const\s*)?$", text[max(0, i - 40):i])))
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and bodies and bodies.pop():
                out.append(i + 1)
        elif c == ";" and depth == 0:
            out.append(i + 1)
        i += 1
    return sorted(set(out))


def _col0(text: str, pos: int) -> int:
    return pos - (text.rfind("\n", 0, pos) + 1)


def _subst(text: str, env: dict[str, str]) -> str:
    """Replace whole identifiers (outside strings) by their bindings."""
    if not env:
        return text
    rx = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\b(" + "|".join(map(re.escape, env)) + r")\b")
    return rx.sub(lambda m: env[m.group(1)] if m.group(1) else m.group(0), text)


def deduce(t: Template, arg_types: list[str], co: Coord, expander=None) -> list[str]:
    """Template arguments of a call that names none, from its arguments' C types
    (spellings such as ``float``, ``unsigned int *``, ``struct Pair__t1a2b3c4d``); a
    parameter declared as a class template's instance (``const Vec<T, N> &v``) takes its
    arguments from the argument's instance (``expander``: whose instances they are)."""
    got: dict[str, str] = {}
    for (base, depth, targs), at in zip(t.fparams, arg_types):
        if targs is not None:
            tag = at.replace("const ", "").replace("*", " ").split()[-1] if at.split() else ""
            inst = expander.instances.get(tag) if expander is not None else None
            if inst is None or inst.name != base:
                continue
            for ta, p, val in zip(targs, expander.by_name[base].params, inst.args):
                ta = ta.strip()
                if ta in {q.name for q in t.params} and ta not in got:
                    got[ta] = re.sub(r"\b(\w+)\s*::\s*(\w+)", r"\1__\2", val)
            continue
        if base in got or base not in {p.name for p in t.params if p.kind == "type"}:
            continue
        stars = at.count("*")
        if stars < depth:
            continue
        core = at.replace("const ", "").replace("volatile ", "").replace("*", " ")
        got[base] = " ".join(core.split()) + " *" * (stars - depth)
    out = []
    for p in t.params:
        if p.name in got:
            out.append(got[p.name])
        elif p.default is not None:
            break                      # instance() fills defaults from here on
        else:
            raise CompileError(f"cannot deduce template argument '{p.name}' of {t.signature()} "
                               f"from this call; write {t.name}<...>(...)", co)
    return out
