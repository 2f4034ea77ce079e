"""Folding captured provider streams into what a turn shows (pure, no peer)."""

from hermes_ui.chat.frames import render
from hermes_ui.chat.progress import TurnView, classify_end
from hermes_ui.hermes.sse import SseParser
from tests.support.samples import raw_stream


def fold(name: str) -> TurnView:
    view = TurnView(1, "local", "s", "s", "hello")
    parser = SseParser()
    seq = 0
    for line in raw_stream(name).decode().splitlines():
        event = parser.feed_line(line)
        if event is not None and not event.is_keepalive:
            seq += 1
            view.apply(seq, event.name, event.data)
    return view


def test_a_plain_stream_completes_and_the_thinking_preview_is_not_appended():
    view = fold("080_stream")
    assert view.answer == "Echo: stream these words please"
    assert view.thinking_previews == 1  # the _thinking tool.progress was seen and skipped
    assert view.shown_answer == "Echo: stream these words please"
    assert view.usage == {"input_tokens": 501, "output_tokens": 5, "total_tokens": 506}
    assert classify_end(view).state == "completed"


def test_an_error_event_is_a_failure_not_a_success():
    ending = classify_end(fold("152_stream_error"))
    assert (ending.state, ending.code) == ("failed", "hermes_error")
    assert "No Anthropic credentials" in ending.message


def test_a_model_failure_answer_is_a_failure_not_an_answer():
    view = fold("150_stream_llm_down")
    assert view.model_failed
    ending = classify_end(view)
    assert (ending.state, ending.code) == ("failed", "model_failed")
    assert ending.message.startswith("API call failed after 3 retries")


def test_tool_activity_is_tracked_with_collapsed_arguments():
    view = fold("160_stream_tool")
    assert [(t.name, t.status) for t in view.tools] == [("todo", "completed")]
    assert '"stub task"' in view.tools[0].args


def test_rotation_takes_the_new_id_from_completed_not_from_done():
    # Captured from the real compressor: sent to ..._ab2a16, rotated to ..._ab8eda,
    # and ``done`` still carries the old id.
    view = fold("181_cmp_stream")
    view.target_session_id = "20261202_114852_ab2a16"
    assert view.effective_session_id == "20261202_114853_ab8eda"
    assert view.rotated and view.next_session_id == "20261202_114853_ab8eda"


def test_a_stream_cut_before_the_answer_is_uncertain():
    view = TurnView(1, "local", "s", "s", "hello")
    view.apply(1, "run.started", {"run_id": "r"})
    view.apply(2, "assistant.delta", {"delta": "Echo"})
    ending = classify_end(view)
    assert ending.state == "uncertain" and ending.code == "stream_ended_early"


# -- events of Hermes after 0.19 (not sent by 0.19.0; their names from its api_server.py) --


def folded(*events) -> TurnView:
    view = TurnView(1, "local", "s", "s", "hello")
    for seq, (name, data) in enumerate(events, start=1):
        view.apply(seq, name, data)
    return view


def test_commentary_is_kept_in_order_and_redraws_the_tools_region():
    view = TurnView(1, "local", "s", "s", "hello")
    assert view.apply(1, "assistant.commentary", {"content": "Looking at the logs."}) == "tools"
    view.apply(2, "assistant.commentary", {"text": "Now the config."})
    assert view.commentary == ["Looking at the logs.", "Now the config."]
    assert view.answer == ""  # commentary is not the answer
    html = render("tools", view)
    assert "Looking at the logs." in html and "Now the config." in html


def test_an_approval_request_says_what_hermes_waits_for_until_the_run_ends():
    view = folded(("run.started", {}), ("approval.request", {"command": "rm -rf <build>"}))
    view.state = "streaming"
    html = render("status", view)
    assert "Hermes waits for an approval of: <code>rm -rf &lt;build&gt;</code>" in html
    view.apply(3, "run.cancelled", {})
    assert view.awaiting_approval == ""


def test_a_run_hermes_cancelled_is_cancelled_and_one_it_failed_is_failed():
    ending = classify_end(folded(("run.started", {}), ("run.cancelled", {})))
    assert (ending.state, ending.code) == ("cancelled", "run_cancelled")
    ending = classify_end(folded(("run.started", {}), ("run.failed", {"message": "Budget hit"})))
    assert (ending.state, ending.code, ending.message) == ("failed", "hermes_error", "Budget hit")


def test_unknown_events_are_ignored_not_errors():
    view = folded(
        ("run.started", {}),
        ("run.queued", {"position": 2}),
        ("something.new", {"x": 1}),
        ("assistant.delta", {"delta": "Hi"}),
        ("assistant.completed", {"content": "Hi"}),
        ("run.completed", {"messages": [{}, {}]}),
    )
    assert classify_end(view).state == "completed" and view.shown_answer == "Hi"
