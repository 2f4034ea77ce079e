"""{% static %} and {% url %} worked out once per process: the same answers as Django's."""

import pytest
from django.template import engines
from django.templatetags.static import static
from django.urls import NoReverseMatch, reverse


def _render(text: str, **context) -> str:
    return engines["django"].from_string(text).render(context)


def test_static_is_djangos_url_and_follows_a_changed_static_url(settings):
    assert _render("{% load static_urls %}{% static 'css/app.css' %}") == static("css/app.css")
    settings.STATIC_URL = "/assets/"
    assert _render("{% load static_urls %}{% static 'css/app.css' %}") == "/assets/css/app.css"
    named = _render("{% load static_urls %}{% static 'a b.css' as u %}[{{ u }}]")
    assert named == "[/assets/a%20b.css]"


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


def test_the_projects_templates_load_the_memo_not_djangos_static():
    import re
    from pathlib import Path

    from django.conf import settings

    loads = re.compile(r"\{%\s*load\s+([^%]*)%\}")
    plain = [
        str(path.relative_to(settings.BASE_DIR))
        for path in (settings.BASE_DIR / "templates").rglob("*.html")
        for found in loads.findall(Path(path).read_text())
        if "static" in found.split()
    ]
    assert plain == []
