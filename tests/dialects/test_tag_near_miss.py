"""A tag name no dialect claims is a near miss of the first dialect's tag name it is close to
(``create-file``, ``Write_To_File``): only the names starting as it does are compared, with the
answers of comparing all."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import DialectSet, _near

_DIALECTS = DialectSet.named(None)
_KNOWN = sorted({t for d in _DIALECTS.dialects for t in d.tag_names})


def _plain_owner(ds: DialectSet, name: str) -> tuple[str, str] | None:
    for d in ds.dialects:
        if d.claims_tag(name):
            return d.name, name
    for d in ds.dialects:
        hit = next((t for t in sorted(d.tag_names) if _near(name, t)), None)
        if hit:
            return d.name, hit
    return None


def _mangled(name: str, data: st.DataObject) -> str:
    ops = data.draw(st.lists(st.sampled_from(["upper", "dash", "drop", "swap", "add", "first"]), max_size=3))
    for op in ops:
        if op == "upper":
            name = name.upper()
        elif op == "dash":
            name = name.replace("_", "-")
        elif len(name) > 2 and op == "drop":
            name = name[:-1]
        elif len(name) > 3 and op == "swap":
            name = name[0] + name[2] + name[1] + name[3:]
        elif op == "add":
            name += "s"
        elif op == "first":
            name = "X" + name[1:]
    return name


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_KNOWN), st.data())
def test_near_misses_are_those_of_comparing_every_name(known: str, data: st.DataObject) -> None:
    name = _mangled(known, data)
    if not name[:1].isalpha():
        return
    ds = DialectSet.named(None)
    owner = ds.tag_owner(name)
    assert (None if owner is None else (owner[0].name, owner[1])) == _plain_owner(ds, name)


def _plain_near(written: str, known: str) -> bool:
    """``_near`` as rapidfuzz alone answers it (no lower bounds first)."""
    from rapidfuzz.distance import DamerauLevenshtein

    a, b = written.lower().replace("-", "_"), known.lower().replace("-", "_")
    if a == b:
        return written != known
    if len(b) < 5 or a[0] != b[0]:
        return False
    limit = 1 if len(b) < 8 else 2
    return DamerauLevenshtein.distance(a, b, score_cutoff=limit) <= limit


_LETTERS = st.text(alphabet="abcdeE-_", min_size=1, max_size=12)


@settings(max_examples=1500, deadline=None)
@given(st.one_of(_LETTERS, st.sampled_from(_KNOWN)), st.one_of(_LETTERS, st.sampled_from(_KNOWN)), st.data())
def test_near_is_rapidfuzz_alone(written: str, known: str, data: st.DataObject) -> None:
    """The length and character-count bounds told first never change an answer (random names
    over a few letters, so that transpositions and repeats are frequent, and mangled known ones)."""
    if data.draw(st.booleans()):
        written = _mangled(known, data) or written
    assert _near(written, known) == _plain_near(written, known)
