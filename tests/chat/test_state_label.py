"""Turn-state words come from one table (``chat.models``), on every page that shows a turn."""

import pytest

from hermes_ui.chat import frames
from hermes_ui.chat.models import REFUSED_LABEL, TurnState, state_label
from hermes_ui.chat.progress import TurnView


def view(state: str, *, rejected: bool = False) -> TurnView:
    return TurnView(
        turn_id=7,
        endpoint_id="local",
        requested_session_id="s",
        target_session_id="s",
        message="hi",
        state=state,
        rejected=rejected,
    )


@pytest.mark.parametrize("state", list(TurnState))
def test_the_turn_header_shows_the_models_label(state):
    html = frames.render("body", view(state.value))
    assert f'data-state="{state.value}">{state.label}</span>' in html


def test_a_turn_hermes_refused_reads_refused():
    assert state_label("failed", rejected=True) == REFUSED_LABEL
    html = frames.render("body", view("failed", rejected=True))
    assert f'data-state="failed">{REFUSED_LABEL}</span>' in html


def test_an_unknown_state_reads_as_uncertain():
    assert state_label("weird") == TurnState.UNCERTAIN.label
