"""A request's memo: asked once inside a request, every time outside one."""

from hermes_ui.platform import request_memo


def test_a_request_asks_once_and_again_after_forget():
    calls = []

    def compute():
        calls.append(1)
        return len(calls)

    with request_memo.scope():
        assert request_memo.remember("k", compute) == 1
        assert request_memo.remember("k", compute) == 1
        request_memo.forget("k")
        assert request_memo.remember("k", compute) == 2
    with request_memo.scope():  # the next request starts empty
        assert request_memo.remember("k", compute) == 3


def test_outside_a_request_every_question_is_asked():
    calls = []
    assert request_memo.remember("k", lambda: calls.append(1) or len(calls)) == 1
    assert request_memo.remember("k", lambda: calls.append(1) or len(calls)) == 2
    request_memo.forget("k")  # nothing to forget: no error
