"""The chat form's empty fields are rendered once per process; anything filled in is not."""

from django import forms

from hermes_ui.chat.compose import ChatForm
from hermes_ui.platform import form_rendering


def _kept(part: str, name: str) -> bool:
    return any(k[0] == part and k[1] is ChatForm and k[3] == name for k in form_rendering._RENDERED)


class _PlainChatForm(ChatForm):
    bound_field_class = forms.BoundField  # Django's own rendering, to compare with


def test_a_blank_form_renders_exactly_as_django_would():
    mine = ChatForm(initial={"form_key": "k" * 24})
    plain = _PlainChatForm(initial={"form_key": "k" * 24})
    for name in ("message", "system_message", "session_key", "image_urls", "form_key"):
        assert str(mine[name]) == str(plain[name]), name
    # Rendered twice: the second time from the kept copy, still the same.
    assert str(ChatForm(initial={"form_key": "x"})["message"]) == str(plain["message"])
    assert _kept("widget", "message")


def test_the_form_key_and_submitted_values_are_never_kept():
    first = str(ChatForm(initial={"form_key": "first-key-123456789012"})["form_key"])
    second = str(ChatForm(initial={"form_key": "second-key-12345678901"})["form_key"])
    assert "first-key" in first and "second-key" in second
    bound = ChatForm({"message": "<b>typed</b>", "session_key": "a\nb", "form_key": ""})
    assert bound.is_valid() is False
    html = str(bound["message"])
    assert "&lt;b&gt;typed&lt;/b&gt;" in html and "<b>typed" not in html
    assert 'aria-invalid="true"' in str(bound["session_key"])
    assert str(ChatForm(initial={"form_key": "k"})["message"]).count("typed") == 0


def test_a_memory_scope_is_printable_ascii_as_the_header_it_becomes():
    def form(scope):
        return ChatForm({"message": "hi", "session_key": scope, "form_key": "k" * 24})

    assert form("team-eu/ticket 4711").is_valid()
    for scope in ("équipe", "tab\there", "zero\u200bwidth"):
        refused = form(scope)
        assert not refused.is_valid() and "printable ASCII" in str(refused.errors)


def test_the_field_groups_take_labels_and_help_text_from_the_form_class():
    form = ChatForm(initial={"form_key": "k" * 24})
    group = form["session_key"].as_field_group()
    assert '<label for="id_session_key">Memory scope (session key)</label>' in group
    assert 'id="id_session_key_helptext"' in group and "long-term memory" in group
    assert 'aria-describedby="id_session_key_helptext"' in group
    # The empty group is the kept copy the next page draws.
    assert _kept("group", "session_key")
    assert ChatForm(initial={"form_key": "x"})["session_key"].as_field_group() == group


def test_a_refused_field_keeps_its_error_id_and_says_its_codes():
    bound = ChatForm({"message": "hi", "image_urls": "ftp://x/a.png", "form_key": "k" * 24})
    assert bound.is_valid() is False
    group = bound["image_urls"].as_field_group()
    assert 'id="error-image_urls" data-codes="invalid_image_url"' in group
    assert 'aria-describedby="error-image_urls"' in group
    assert "data-codes" not in bound["message"].as_field_group()  # no error, no paragraph


class _Hidden(forms.Form):
    django = forms.CharField(widget=forms.HiddenInput(attrs={"data-x": '<"&>', "hidden": True}))
    plain = forms.CharField(
        widget=form_rendering.PlainHiddenInput(attrs={"data-x": '<"&>', "hidden": True})
    )


def test_the_form_key_input_is_drawn_as_django_draws_a_hidden_input():
    for initial in ({"django": 'k"<&>', "plain": 'k"<&>'}, {}):
        form = _Hidden(initial=initial)
        django, plain = str(form["django"]), str(form["plain"])
        assert plain == django.replace('"django"', '"plain"').replace("id_django", "id_plain")
    valued = str(_Hidden(initial={"plain": 'k"<&>'})["plain"])
    assert 'value="k&quot;&lt;&amp;&gt;"' in valued and 'data-x="&lt;&quot;&amp;&gt;"' in valued
