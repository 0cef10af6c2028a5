"""Merging a chat answer's snippet into the file it names, by syntax: certain, or asked.

A chat answer's code block for an existing file (``EditRules.snippet``) is one of three shapes
(:func:`classify`):

- ``whole``: the whole file (no placeholder, and every top-level definition of the file is in
  it): written as any write is;
- ``lazy``: it holds placeholder comments (``// ... existing code ...``, :mod:`.placeholders`)
  standing for the code left out;
- ``fragment``: no placeholder, but only some of the file's top-level definitions (one
  rewritten method, a new function).

A lazy snippet or fragment is merged level by level (the top of the file, then the body of
each class, function or section the answer shows changed), over the units of
:mod:`.lazyunits`:

1. imports merge as a set (one already there is kept; one that names more of the same module
   replaces it; a new one goes after the file's last import);
2. every other unit of the answer is matched to the file's unit of the same kind and name
   (a statement by its first line, or its text): an *anchor*; a name the file defines twice is
   told apart by its first line (``@property`` / ``@x.setter``), else it is a question;
3. between two anchors, a placeholder stands for the file's units between their matches;
   the answer's new units go where their neighbours put them (before the placeholder: right
   after the anchor above; after it: right before the anchor below); the edges of a level
   count as placeholders (an answer need not repeat the first and last lines of a file);
4. a fragment has no placeholder: the file's units between anchors are kept, and a new unit
   is placed only where it has one place (next to an anchor at an edge, or between two
   anchors with nothing between them in the file);
5. a changed anchor replaces its match, re-indented to it; one whose answer holds placeholders,
   or a class that leaves out members, is merged member by member.

The merge is *certain* only when every unit and placeholder of the answer has exactly one
place, no definition of the file is left out (dropped) or doubled, and the result parses:
otherwise :attr:`Merge.problems` names what could not be placed, and :attr:`Merge.text` is
the best proposal (every definition of the file kept), to be shown and asked about.
"""

from __future__ import annotations

import itertools
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..placeholders import find_placeholders
from ..syntax.languages import Lang, language_for
from ..syntax.parse import Offsets, Parsed, parse
from ..syntax.reparse import _point
from ..syntax.tokens import _definition
from .lazyunits import Source, Unit, body_of, nodes_of, normalized, units

__all__ = ["Merge", "Shape", "body_of", "classify", "merge_snippet", "qualified_definitions"]

Shape = Literal["whole", "lazy", "fragment"]


@dataclass(frozen=True, slots=True)
class Merge:
    """What :func:`merge_snippet` made of an answer: its ``shape``; ``text``, the merged file
    (for ``whole``, the answer itself; None when there is nothing to propose); ``problems``,
    what could not be placed (empty: the merge is certain)."""

    shape: Shape
    text: str | None
    problems: tuple[str, ...] = ()
    #: Problems of the proposal itself: it would drop or double a definition of the file, or
    #: not parse. Such a proposal is never written, not even when the user accepts the merge.
    fatal: tuple[str, ...] = ()

    @property
    def certain(self) -> bool:
        return not self.problems and not self.fatal and self.text is not None

    @property
    def proposal(self) -> str | None:
        """The merged text the user may accept: None when there is none, or it is unsafe."""
        return None if self.fatal else self.text


@dataclass(slots=True)
class _Item:
    text: str
    fpos: int | None  # the file unit it stands for (None: new)
    imports: bool = False  # an import: next to another, one line break between


@dataclass(slots=True)
class _Ctx:
    fsrc: Source
    ssrc: Source
    problems: list[str] = field(default_factory=list)
    fatal: list[str] = field(default_factory=list)

    def ask(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)

    def refuse(self, problem: str) -> None:
        if problem not in self.fatal:
            self.fatal.append(problem)


def classify(old: str, snippet: str, path: str) -> Shape:
    """The shape of ``snippet`` as a new content of the file ``path`` holding ``old``."""
    return merge_snippet(old, snippet, path, shape_only=True).shape


def merge_snippet(old: str, snippet: str, path: str, *, shape_only: bool = False) -> Merge:
    """Merge ``snippet`` (a chat answer's code for ``path``) into ``old`` (the file's text)."""
    old = old.replace("\r\n", "\n")
    snippet = snippet.replace("\r\n", "\n")
    marks = find_placeholders(snippet)
    lang = language_for(path)
    if lang is None or (not lang.definitions and lang.name not in ("css",)):
        if marks:
            return Merge("lazy", None, (
                f"`{marks[0].text}` (line {marks[0].line + 1}) stands for code left out, and "
                f"{path} has no grammar to tell which: write the whole file",))
        return Merge("whole", snippet)
    body = textwrap.dedent(snippet)
    fsrc = Source(parse(old, lang), ())
    ssrc = _snippet_source(body, lang)
    shape = _shape(fsrc, ssrc, bool(marks))
    if shape == "whole" or shape_only:
        return Merge(shape, snippet if shape == "whole" else None)
    ctx = _Ctx(fsrc, ssrc)
    if ssrc.parsed.root.has_error:
        ctx.ask("the answer's code does not parse: its pieces cannot be placed with certainty")
    elif ssrc.wrapped and not _top(ssrc):
        ctx.ask("the answer's code is no definition of the file")
    text = _merge_file(ctx)
    _verify(ctx, old, ctx.ssrc.parsed, text, lang)
    return Merge(shape, text, tuple(ctx.problems), tuple(ctx.fatal))


#: Languages whose methods, given alone, parse only inside a class: an answer that does not
#: parse is read again wrapped in one (its methods then match the file's by name).
_CLASS_WRAPPED = frozenset({"javascript", "typescript", "tsx", "java", "csharp", "kotlin", "php-only"})
_WRAPPER = "class __AnswerWrapper__ {\n"


def _snippet_source(body: str, lang: Lang) -> Source:
    lines = {p.line for p in find_placeholders(body)}
    lang = lang.for_snippet(body)  # PHP without `<?php` is code
    parsed = parse(body, lang)
    if parsed.root.has_error and lang.name in _CLASS_WRAPPED:
        wrapped = parse(f"{_WRAPPER}{body}}}\n", lang)
        if not wrapped.root.has_error:
            return Source(wrapped, {n + 1 for n in lines}, wrapped=True)
    if parsed.root.has_error and lang.name == "python" and lines:
        # `def f():` followed only by `# ... existing code ...` is no block for the grammar:
        # an `...` statement holds the placeholder's place (same lines, same indentation).
        out = body.split("\n")
        for n in lines:
            indent = out[n][: len(out[n]) - len(out[n].lstrip())]
            out[n] = f"{indent}...  #{out[n].strip().lstrip('#')}"
        retry = parse("\n".join(out), lang)
        if not retry.root.has_error:
            src = Source(retry, lines)
            return src
    return Source(parsed, lines)


def _top(src: Source) -> list[Unit]:
    root = src.parsed.root
    found = units(src, root, 0, len(src.text))
    if src.wrapped:  # the answer's methods, inside the class wrapped around them
        return _body_units(src, next(u for u in found if u.body is not None))
    return found


def _shape(fsrc: Source, ssrc: Source, lazy: bool) -> Shape:
    """``whole`` when the answer holds every definition of the file (top-level and inside
    classes, by qualified name), every top-level declaration and statement of several lines
    and every import of it; else ``fragment``."""
    if lazy:
        return "lazy"
    lang = fsrc.lang

    def keys(src: Source) -> set[tuple[str, str]]:
        # definitions, declarations and the statements of several lines (a route, a main guard)
        return {u.key for u in _top(src) if u.key is not None
                and (u.defines or u.key[0] == "block")}

    have = set(qualified_definitions(fsrc.text, lang)) | keys(fsrc)
    shown = set(qualified_definitions(ssrc.text, lang)) | keys(ssrc)
    if not have <= shown:
        return "fragment"
    said = set().union(*(_words(ssrc.text[u.start : u.end]) for u in _top(ssrc) if u.kind == "import"))
    kept = all(_words(fsrc.text[u.start : u.end]) <= said for u in _top(fsrc) if u.kind == "import")
    return "whole" if kept else "fragment"


# -- the file level ----------------------------------------------------------------------

def _merge_file(ctx: _Ctx) -> str:
    """The merged file: nested matches first (a method given alone, a Markdown subsection),
    then the top level."""
    S = _top(ctx.ssrc)
    F = _top(ctx.fsrc)
    top_keys = {u.key for u in F if u.key is not None}
    remote: list[tuple[Unit, Unit]] = []
    for su in S:
        if su.kind != "def" or su.key in top_keys or su.key is None:
            continue
        found = _nested(ctx.fsrc, F, su.key)
        if len(found) == 1:
            remote.append((found[0], su))
        elif len(found) > 1:
            ctx.ask(f"`{su.key[1]}` is defined {len(found)} times inside the file's definitions: "
                    "which one the answer changes is not certain")
    if remote:
        text = ctx.fsrc.text
        for fu, su in sorted(remote, key=lambda p: -p[0].start):
            text = text[: fu.start] + _anchor(ctx, fu, su) + text[fu.end :]
        used = {id(su) for _, su in remote}
        S = [u for u in S if id(u) not in used]
    if ctx.ssrc.wrapped:
        # members given alone: each must be one of a class's, found above
        for su in S:
            if su.kind not in ("placeholder", "comment"):
                ctx.ask(f"`{_said(su)}` is given outside its class, and no class of the file "
                        "has one of that name: cannot tell where it goes")
        S = [u for u in S if u.kind in ("placeholder", "comment")]
    if remote:
        ctx.fsrc = Source(parse(text, ctx.fsrc.lang), ())
        F = _top(ctx.fsrc)
        if not [u for u in S if u.kind not in ("placeholder", "comment")]:
            return text
    if not F:
        return ctx.ssrc.text
    items = _level(ctx, F, S, top=True)
    fsrc = ctx.fsrc
    return fsrc.text[: F[0].start] + _render(fsrc, F, items, _typical(fsrc, F, "\n\n")) + fsrc.text[F[-1].end :]


def _nested(src: Source, F: Sequence[Unit], key: tuple[str, str], depth: int = 0) -> list[Unit]:
    out: list[Unit] = []
    if depth > 3:
        return out
    for u in F:
        if u.body is None or u.node is None or (u.key is not None and u.key[0] == "function"):
            continue  # (a method given alone belongs to a class, not to a function's body)
        inner = _body_units(src, u)
        out.extend(x for x in inner if x.key == key and x.kind == "def")
        out.extend(_nested(src, inner, key, depth + 1))
    return out


def _body_units(src: Source, u: Unit) -> list[Unit]:
    body = u.body
    assert body is not None
    if body.type == "section":
        heading = body.named_children[0] if body.named_children else None
        lo = src.parsed.end(heading) if heading is not None else src.parsed.start(body)
        return units(src, body, lo, u.end, skip_first=True)
    prev = body.prev_sibling
    while prev is not None and (prev.type in src.lang.comments or prev.type == "comment"):
        prev = prev.prev_sibling
    lo = src.parsed.end(prev) if prev is not None else src.parsed.start(body)
    return units(src, body, lo, u.end)


# -- one level ---------------------------------------------------------------------------

def _level(ctx: _Ctx, F: list[Unit], S: list[Unit], *, top: bool, section: bool = False) -> list[_Item]:
    """The items of a merged level: the file's units ``F`` and the answer's ``S``."""
    fsrc, ssrc = ctx.fsrc, ctx.ssrc
    lazy = any(u.kind == "placeholder" for u in S)
    level_indent = F[0].indent if F else (S[0].indent if S else "")

    def stext(u: Unit) -> str:
        return _reindent(ssrc.text[u.start : u.end], u.indent, level_indent)

    def ftext(i: int) -> str:
        return fsrc.text[F[i].start : F[i].end]

    # 1. imports, as a set
    replaced: dict[int, str] = {}
    new_imports: list[str] = []
    f_imports = [i for i, u in enumerate(F) if u.kind == "import"]
    known: set[int] = set()  # the answer's imports the file has as they are: anchors
    for su in (u for u in S if u.kind == "import"):
        said = normalized(ssrc.text[su.start : su.end])
        if any(normalized(ftext(i)) == said for i in f_imports):
            known.add(id(su))
            continue
        wider = [i for i in f_imports if _same_module(ftext(i), said)
                 and _words(ftext(i)) <= _words(said)]
        if len(wider) == 1:
            replaced[wider[0]] = stext(su)
        else:
            new_imports.append(stext(su))
    S = [u for u in S if u.kind != "import" or id(u) in known]

    # 2. anchors
    keyed: dict[tuple[str, str], list[int]] = {}
    for i, u in enumerate(F):
        if u.key is not None and u.kind != "placeholder":
            keyed.setdefault(u.key, []).append(i)
        elif u.kind == "comment":
            keyed.setdefault(("comment", normalized(ftext(i))), []).append(i)
    anchor: dict[int, int] = {}  # S index -> F index
    unplaced: set[int] = set()
    taken: dict[int, int] = {}
    for k, su in enumerate(S):
        if su.kind == "placeholder":
            continue
        key = su.key if su.kind != "comment" else ("comment", normalized(ssrc.text[su.start : su.end]))
        if key is None:
            continue
        found = keyed.get(key, [])
        if len(found) > 1:
            found = [i for i in found if F[i].first == su.first]
        if len(found) == 1:
            if found[0] in taken:
                ctx.ask(f"`{_said(su)}` stands twice in the answer")
                unplaced.add(k)
                continue
            anchor[k] = found[0]
            taken[found[0]] = k
        elif len(found) > 1 or len(keyed.get(key, [])) > 1:
            if su.kind in ("comment", "import"):
                unplaced.add(k)  # one the file has more than once: it has it, nothing to add
                continue
            ctx.ask(f"`{_said(su)}` is in the file {len(keyed[key])} times: which one the "
                    "answer changes is not certain")
            unplaced.add(k)

    # anchors in the file's order; one out of order is replaced where it stands (asked)
    kept: list[int] = []
    last = -1
    for k in sorted(anchor):
        if anchor[k] > last:
            kept.append(k)
            last = anchor[k]
        elif S[k].kind == "import":
            unplaced.add(k)  # an import the file has elsewhere: nothing to place
        else:
            ctx.ask(f"`{_said(S[k])}` stands elsewhere in the answer than in the file (moved?)")
    moved = {anchor[k]: k for k in anchor if k not in kept and k not in unplaced}
    if top and not lazy:
        # An answer that starts where the file starts, leaves definitions out and brings new
        # ones looks like the whole file with something renamed: not a fragment to merge.
        head = next((i for i, u in enumerate(F) if u.kind != "comment"), None)
        shown = set(anchor.values())
        new = [S[k] for k in range(len(S)) if k not in anchor and k not in unplaced and S[k].defines]
        left = [F[i] for i in range(len(F)) if F[i].defines and i not in shown]
        if head is not None and head in shown and new and left:
            ctx.ask(f"the answer starts as the file does but has no `{_said(left[0])}` and a new "
                    f"`{_said(new[0])}`: renamed, removed, or left out?")

    # 3. segments between kept anchors
    out: list[_Item] = []

    def keep(i: int) -> None:
        if i in moved:
            out.append(_Item(_anchor(ctx, F[i], S[moved[i]]), i))
        elif i in replaced:
            out.append(_Item(replaced[i], i, True))
        else:
            out.append(_Item(ftext(i), i, F[i].kind == "import"))

    bounds = [(-1, -1), *((k, anchor[k]) for k in kept), (len(S), len(F))]
    for (k0, f0), (k1, f1) in itertools.pairwise(bounds):
        first, last_seg = k0 < 0, k1 >= len(S)
        seq: list[Unit | None] = []  # None: a placeholder
        for k in range(k0 + 1, k1):
            if k in anchor or k in unplaced:
                continue
            su = S[k]
            if su.kind == "placeholder":
                if not seq or seq[-1] is not None:
                    seq.append(None)
            else:
                seq.append(su)
        gap = list(range(f0 + 1, f1))
        _segment(ctx, F, gap, seq, lazy=lazy, first=first, last=last_seg, top=top,
                 section=section, keep=keep, out=out, stext=stext, neighbours=(
                     S[k0] if k0 >= 0 else None, S[k1] if k1 < len(S) else None))
        if k1 < len(S):
            out.append(_Item(_anchor(ctx, F[f1], S[k1]), f1))

    # 4. new imports after the file's last import, else before its first definition
    if new_imports:
        at = max((n for n, item in enumerate(out) if item.fpos in f_imports), default=None)
        if at is None:
            at = next((n - 1 for n, item in enumerate(out) if item.fpos is not None
                       and F[item.fpos].kind in ("def", "var", "stmt")
                       and not _header(fsrc, F[item.fpos])), len(out) - 1)
        for text in reversed(new_imports):
            out.insert(at + 1, _Item(text, None, True))
    return out


def _segment(ctx: _Ctx, F: list[Unit], gap: list[int], seq: list[Unit | None], *, lazy: bool,
             first: bool, last: bool, top: bool, section: bool, keep: Callable[[int], None],
             out: list[_Item], stext: Callable[[Unit], str],
             neighbours: tuple[Unit | None, Unit | None]) -> None:
    """Place one run of the answer (its placeholders, None, and new units) between two anchors
    (or a level's edge), over ``gap``, the file's units between their matches."""
    news = [u for u in seq if u is not None]
    if not news and not gap:
        return
    if lazy:
        # A level's edge stands for the file's units beyond the answer's first and last
        # piece only when no placeholder of the answer does.
        if None not in seq and first:
            seq = [None, *seq]
        elif None not in seq and last:
            seq = [*seq, None]
        holes = seq.count(None)
        if holes == 0:
            # The answer shows this run whole: a statement of the file like one of its new
            # ones (same first name) was changed; anything else it leaves out is a question.
            heads = {_head(u.first) for u in news if u.kind == "stmt"}
            for i in gap:
                if F[i].kind in ("comment", "import"):
                    keep(i)
                elif F[i].kind == "stmt" and _head(F[i].first) in heads:
                    continue  # replaced by the answer's
                else:
                    ctx.ask(f"`{_said(F[i])}` is not in the answer{_between(neighbours)}, with "
                            "no placeholder for it: removed, or left out?")
                    keep(i)
            for u in news:
                out.append(_Item(stext(u), None))
            return
        at = seq.index(None)
        before = [u for u in seq[:at] if u is not None]
        after = [u for u in seq[at + 1 :] if u is not None]
        inner = [u for u in seq[at + 1 : len(seq) - seq[::-1].index(None) - 1] if u is not None]
        if holes > 1 and inner:
            ctx.ask(f"cannot tell where in the unchanged code `{_said(inner[0])}` goes: "
                    "there are placeholders on both sides of it")
        heads = {_head(F[i].first) for i in gap if F[i].kind == "stmt"}
        for u in before + after:
            if u.kind == "stmt" and u.key is not None and u.key[0] == "stmt" and _head(u.first) in heads:
                ctx.ask(f"`{_said(u)}` is new next to code a placeholder stands for, which has a "
                        "statement like it: changed, or added?")
        for u in before:
            out.append(_Item(stext(u), None))
        for i in gap:
            keep(i)
        for u in after:
            out.append(_Item(stext(u), None))
        return
    # a fragment: the file's units between anchors are kept
    anonymous = [u for u in news if not u.defines and u.kind != "comment"]
    if section and anonymous and first:
        # a Markdown section's own text (before its first subsection) is the answer's
        lead = [i for i in gap if not F[i].defines]
        if lead and all(not F[i].defines for i in gap[: len(lead)]):
            for u in news:
                out.append(_Item(stext(u), None))
            for i in gap:
                if F[i].defines:
                    keep(i)
            return
    if anonymous and any(F[i].kind == "stmt" for i in gap):
        ctx.ask(f"`{_said(anonymous[0])}` is new: it may replace a statement of the file or "
                "add one (the answer has no placeholder to tell)")
    if first and last:  # no anchor: new units at the end of the level
        if top and gap and not (F[gap[-1]].defines or F[gap[-1]].kind == "import"):
            ctx.ask(f"`{_said(news[0])}` is new and the answer shows nothing of the file next "
                    f"to it: it would go after `{_said(F[gap[-1]])}`")
        for i in gap:
            keep(i)
        for u in news:
            out.append(_Item(stext(u), None))
        return
    if first:
        for i in gap:
            keep(i)
        for u in news:
            out.append(_Item(stext(u), None))
        return
    if not last and news and gap:
        ctx.ask(f"cannot tell where `{_said(news[0])}` goes{_between(neighbours)}: the file "
                "has other code there")
    for u in news:
        out.append(_Item(stext(u), None))
    for i in gap:
        keep(i)


def _between(neighbours: tuple[Unit | None, Unit | None]) -> str:
    a, b = neighbours
    if a is not None and b is not None:
        return f" between `{_said(a)}` and `{_said(b)}`"
    if a is not None:
        return f" after `{_said(a)}`"
    if b is not None:
        return f" before `{_said(b)}`"
    return ""


def _anchor(ctx: _Ctx, fu: Unit, su: Unit) -> str:
    """The merged text of a file unit ``fu`` the answer's ``su`` matches, in the file's frame
    (``fu``'s indentation)."""
    fsrc, ssrc = ctx.fsrc, ctx.ssrc
    ftext = fsrc.text[fu.start : fu.end]
    stext = ssrc.text[su.start : su.end]
    if normalized(stext) == normalized(ftext):
        return ftext
    holes = any(su.start <= ssrc.line_starts[n] < su.end for n in ssrc.placeholder_lines
                if n < len(ssrc.line_starts))
    if fu.body is not None and su.body is not None and fu.node is not None:
        Fb = _body_units(fsrc, fu)
        Sb = _body_units(ssrc, su)
        if Fb and fsrc.lang.name == "python":  # `pass` / `...` hold an empty body's place
            Sb = [u for u in Sb if u.first not in ("pass", "...")]
        missing = fu.container and any(
            u.defines and u.key not in {x.key for x in Sb} for u in Fb)
        if (holes or missing) and not Sb:
            # an empty body shown (`class Zeta {}`): the file's members stay
            if normalized(stext.split("{", 1)[0].split(":", 1)[0]) != normalized(
                    ftext.split("{", 1)[0].split(":", 1)[0]):
                ctx.ask(f"`{_said(su)}` is shown with an empty body and another header: "
                        "its members are kept, the header is not changed")
            return ftext
        if (holes or missing) and Sb:
            items = _level(ctx, Fb, Sb, top=False, section=su.body.type == "section")
            head = _reindent(ssrc.text[su.start : Sb[0].start], su.indent, fu.indent)
            tail = _reindent(ssrc.text[Sb[-1].end : su.end], su.indent, fu.indent)
            body = _render(fsrc, Fb, items, _typical(fsrc, Fb, "\n")) if Fb else "".join(
                i.text for i in items)
            return head + body + tail
    if holes:
        ctx.ask(f"a placeholder inside `{_said(su)}` stands for code that cannot be placed")
        return ftext
    return _reindent(stext, su.indent, fu.indent)


def _render(fsrc: Source, F: list[Unit], items: list[_Item], typical: str) -> str:
    parts: list[str] = []
    prev: _Item | None = None
    for item in items:
        if prev is not None:
            if prev.fpos is not None and item.fpos == prev.fpos + 1:
                parts.append(fsrc.text[F[prev.fpos].end : F[item.fpos].start])
            elif prev.imports and item.imports:
                parts.append("\n")
            elif prev.imports or item.imports:
                parts.append(_after_imports(fsrc, F, typical))
            else:
                parts.append(typical)
        parts.append(item.text)
        prev = item
    return "".join(parts)


def _after_imports(src: Source, F: list[Unit], typical: str) -> str:
    """The separator after the file's last import."""
    for a, b in itertools.pairwise(F):
        if a.kind == "import" and b.kind != "import":
            return "\n" * max(1, src.text.count("\n", a.end, b.start))
    return typical


def _typical(src: Source, F: list[Unit], default: str) -> str:
    """The separator the level's units most often have (line breaks and blank lines)."""
    seps = Counter(
        "\n" * max(1, src.text.count("\n", a.end, b.start)) for a, b in itertools.pairwise(F))
    if not seps:
        return default
    return seps.most_common(1)[0][0]


def _reindent(text: str, have: str, want: str) -> str:
    if have == want:
        return text
    out = []
    for line in text.split("\n"):
        if line.startswith(have) and line.strip():
            out.append(want + line[len(have) :])
        else:
            out.append(line)
    return "\n".join(out)


def _said(u: Unit) -> str:
    if u.key is not None and u.key[0] not in ("stmt", "block", "import"):
        return u.key[1]
    return u.first[:60]


def _head(line: str) -> str:
    """The name a statement starts with (``print``, ``s.mux.HandleFunc``, ``return``)."""
    import re

    m = re.match(r"\s*(?:await\s+)?([\w.$]+)", line)
    return m.group(1) if m else line


def _words(text: str) -> set[str]:
    import re

    return set(re.findall(r"[A-Za-z_][\w.]*", text))


def _same_module(a: str, b: str) -> bool:
    import re

    def module(t: str) -> str:
        if re.match(r"\s*import\s*\(", t):
            return "import (...)"  # Go: the import block
        m = re.search(r"\bfrom\s+(['\"]?)([\w./@-]+)\1", t) or re.search(r"^\s*(import|use|using)\s+([\w.:]+)", t)
        return m.group(2) if m else ""

    ma, mb = module(a), module(b)
    return bool(ma) and ma == mb


def _header(src: Source, u: Unit) -> bool:
    """A unit that opens a file before its imports: Go's ``package``, a docstring, a
    directive (``'use strict'``), PHP's ``<?php``."""
    node = u.node
    if node is None:
        return True
    if node.type in ("package_clause", "package_declaration", "php_tag", "shebang"):
        return True
    if node.type == "expression_statement" and node.named_child_count == 1:
        return node.named_children[0].type in ("string", "string_literal")
    return False


# -- what must hold ----------------------------------------------------------------------

def qualified_definitions(code: str | Parsed, lang: Lang) -> Counter[tuple[str, str]]:
    """Each definition of ``code`` by kind (function and method as one) and qualified name
    (``Foo.save``), counted: what ``syntax.definitions`` finds, through a tree-sitter query."""
    parsed = code if isinstance(code, Parsed) else parse(code, lang)
    found = []
    for node in nodes_of(parsed, lang.definitions):
        d = _definition(parsed, node, lang.definitions[node.type], None)
        if d is not None:
            found.append(d)
    found.sort(key=lambda d: (d.start, -d.end))
    out: Counter[tuple[str, str]] = Counter()
    stack: list[tuple[int, str]] = []  # (end, qualified name)
    for d in found:
        while stack and stack[-1][0] <= d.start:
            stack.pop()
        name = f"{stack[-1][1]}.{d.name}" if stack else d.name
        kind = "function" if d.kind in ("function", "method") else d.kind
        out[(kind, name)] += 1
        stack.append((d.end, name))
    return out


def _pieces(src: Source, level: list[Unit], depth: int = 0) -> list[str]:
    """The answer's units that hold no placeholder, whitespace collapsed (those that do, and
    classes, are looked into, down to their members)."""
    out: list[str] = []
    for u in level:
        if u.kind in ("placeholder", "comment") or (u.kind == "import" and depth == 0):
            continue  # (an import may be merged into a wider one of the file's)
        holes = any(u.start <= src.line_starts[n] < u.end for n in src.placeholder_lines
                    if n < len(src.line_starts))
        if (holes or u.container) and u.body is not None and depth < 4:
            out.extend(_pieces(src, _body_units(src, u), depth + 1))  # a class: its members
        elif not holes:
            out.append(normalized(src.text[u.start : u.end]))
    return out


def _parse_after(was: Parsed, text: str) -> Parsed:
    """The parse of ``text``, a merge into ``was.code``: tree-sitter told what changed (one
    edit from the first to the last character that differ) re-reads only around it."""
    lang, old = was.lang, was.code
    if lang.prepare is not None or old == text:
        return parse(text, lang)
    start = 0
    limit = min(len(old), len(text))
    while start < limit and old[start] == text[start]:
        start += 1
    tail = 0
    while tail < limit - start and old[-1 - tail] == text[-1 - tail]:
        tail += 1
    old_end, new_end = len(old) - tail, len(text) - tail
    tree = was.tree.copy()
    start_byte, start_point = _point(old, start)
    old_end_byte, old_end_point = _point(old, old_end)
    new_end_byte, new_end_point = _point(text, new_end)
    tree.edit(start_byte, old_end_byte, new_end_byte, start_point, old_end_point, new_end_point)
    data = text.encode("utf-8", "surrogatepass")
    return Parsed(text, lang, data, lang.parser().parse(data, tree), Offsets(text))


def _verify(ctx: _Ctx, old: str, snippet: Parsed, text: str, lang: Lang) -> None:
    """Never a merge that drops a definition of the file, doubles one, or does not parse."""
    was = parse(old, lang)
    merged = _parse_after(was, text)
    before = qualified_definitions(was, lang)
    after = qualified_definitions(merged, lang)
    # the answer's definitions by kind and own name: where they land is the merge's to say
    shown: Counter[tuple[str, str]] = Counter()
    for (kind, name), n in qualified_definitions(snippet, snippet.lang).items():
        shown[(kind, name.rsplit(".", 1)[-1])] += n
    for key, n in before.items():
        if after[key] < n:
            ctx.refuse(f"`{key[1]}` would be dropped by the merge")
    for key, n in after.items():
        if n > max(before[key], shown[(key[0], key[1].rsplit(".", 1)[-1])]):
            ctx.refuse(f"`{key[1]}` would be defined {n} times by the merge")
    # every piece the answer shows whole (no placeholder in it) is in the result
    said = normalized(text)
    for piece in _pieces(ctx.ssrc, _top(ctx.ssrc)):
        if piece not in said:
            ctx.refuse(f"the answer's `{piece[:60]}` would not be in the merged file")
    if merged.root.has_error and not was.root.has_error:
        ctx.refuse("the merged file would not parse")
    elif was.root.has_error and lang.judged != "off":
        ctx.ask("the file does not parse as it is: a merge into it cannot be certain")

