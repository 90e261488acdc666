"""C++ enums as C reads them: ``enum class`` (scoped) enumerators and enum names as types.

``enum class Mode : int { Add, Mul };`` becomes ``enum Mode { Mode__Add, Mode__Mul };`` and
each ``Mode::Add`` in the file becomes ``Mode__Add`` (the same length, so columns after it
hold); every file-scope ``enum E { ... };`` is followed by ``typedef enum E E;`` on its line,
as C++ lets ``E`` name the type.  ``rewrite`` also returns the enum names, which
``simt.templates`` accepts as the type of a template value parameter (``template <Mode M>``).

Limitations: enumerators are ints whatever the declared underlying type (``enum class E :
unsigned char`` is 4 bytes in a struct, where the GPU's is 1); an unscoped enum's
enumerators may not be qualified (``Color::Red``).
"""
from __future__ import annotations

import re

from .errors import CompileError

_ENUM = re.compile(r"\benum\s+(?P<scoped>(?:class|struct)\s+)?(?P<name>[A-Za-z_]\w*)\s*"
                   r"(?P<base>:\s*[A-Za-z_][\w\s]*?)?\s*\{(?P<body>[^{}]*)\}\s*;")


def rewrite(text: str, filename: str) -> tuple[str, frozenset]:
    """The file's enums as C (see the module docstring) and the set of enum names."""
    if not re.search(r"\benum\b", text):
        return text, frozenset()
    from .frontend import _coord_of

    names, scoped = set(), {}
    out, pos = [], 0
    for m in _ENUM.finditer(text):
        name = m.group("name")
        names.add(name)
        body = m.group("body")
        if m.group("scoped"):
            members = [p.split("=")[0].strip() for p in body.split(",") if p.strip()]
            rx = re.compile(r"\b(" + "|".join(map(re.escape, members)) + r")\b") if members else None
            body = rx.sub(lambda e: f"{name}__{e.group(1)}", body) if rx else body
            scoped[name] = set(members)
        head = f"enum {name} "
        head += " " * max(0, m.start("body") - 1 - m.start() - len(head))
        file_scope = text.count("{", 0, m.start()) == text.count("}", 0, m.start())
        tdef = f" typedef enum {name} {name};" if file_scope else ""
        out.append(text[pos:m.start()] + head + "{" + body + "};" + tdef)
        pos = m.end()
    out.append(text[pos:])
    text = "".join(out)

    def qualified(q):
        enum, member = q.group(1), q.group(2)
        if enum not in scoped:
            return q.group(0)
        if member not in scoped[enum]:
            raise CompileError(f'enum "{enum}" has no enumerator "{member}"',
                               _coord_of(text, q.start(), filename))
        return f"{enum}__{member}".ljust(len(q.group(0)))
    text = re.sub(r"\b([A-Za-z_]\w*)\s*::\s*([A-Za-z_]\w*)", qualified, text)
    return text, frozenset(names)
