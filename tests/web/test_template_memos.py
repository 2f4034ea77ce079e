"""{% url %} worked out once per process: the same answers as Django's."""

import pytest
from django.template import engines
from django.urls import NoReverseMatch, reverse


def _render(text: str, **context) -> str:
    return engines["django"].from_string(text).render(context)


def test_url_is_djangos_reverse_for_every_value(db):
    text = (
        "{% url 'session_list' endpoint=ep %}|{% url 'deletion_detail' pk=n %}|{% url 'mentions' %}"
    )
    for ep, n in (("one", 1), ("two", 22), ("one", 3)):
        expected = "|".join(
            [
                reverse("session_list", kwargs={"endpoint": ep}),
                reverse("deletion_detail", kwargs={"pk": n}),
                reverse("mentions"),
            ]
        )
        assert _render(text, ep=ep, n=n) == expected


def test_url_of_an_object_or_a_missing_name_is_djangos(db):
    class Pk:  # not plain text or a number: reversed every time, as Django does
        def __str__(self):
            return "7"

    assert _render("{% url 'deletion_detail' pk=n %}", n=Pk()) == "/deletions/7/"
    with pytest.raises(NoReverseMatch):
        _render("{% url 'no-such-view' %}")
    assert _render("{% url 'no-such-view' as u %}[{{ u }}]") == "[]"
    assert _render("{% url 'session_list' endpoint=e %}", e="a&b") == "/e/a&amp;b/sessions/"
