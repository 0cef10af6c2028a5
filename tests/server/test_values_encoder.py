"""``wire.values_encoder`` (msgspec) writes the values the standard encoder writes: a long
outline read back by a client is the same, whatever its strings and numbers hold."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.server.wire import Later, values_encoder

_dumps = json.JSONEncoder(separators=(",", ":"), default=lambda o: o.make(o.arg)).encode

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**80), max_value=2**80),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF)),  # (lone surrogates too)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(values, st.booleans()), max_size=8))
def test_the_values_read_back_as_the_standard_encoder_writes_them(items: list[tuple[Any, bool]]) -> None:
    batch = [Later(lambda v: v, v) if later and type(v) in (dict, list, str, int) else v for v, later in items]
    written = values_encoder(_dumps)(batch)
    assert json.loads(written) == json.loads(_dumps(batch))


def test_a_later_item_that_makes_an_object_is_written_by_the_standard_encoder() -> None:
    class Thing:
        pass

    dumps = json.JSONEncoder(separators=(",", ":"), default=lambda o: o.make(o.arg) if isinstance(o, Later) else "thing").encode
    batch = [Later(lambda _: Thing(), 0), {"a": "é"}]
    assert json.loads(values_encoder(dumps)(batch)) == ["thing", {"a": "é"}]
