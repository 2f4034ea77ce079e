"""Hostile text for notes, corrections and mentions (as tests/web/test_browser_hostile.py)."""

import re

HOSTILE = [
    "<script>alert('note')</script>",
    "<img src=x onerror=alert(8)>",
    '[click](javascript:alert(9)) <a href="javascript:alert(10)">link</a>',
    "{{ request.user }} {% csrf_token %}",
    "\"double\" 'single' `back` &amp; &lt;b&gt;",
]
HOSTILE_TEXT = "\n".join(HOSTILE)


def assert_escaped(page: str) -> None:
    """None of the hostile markup is live in ``page``; it is there as escaped text."""
    assert "<script>alert('note')</script>" not in page
    assert not re.search(r"<img[^>]*onerror", page, re.IGNORECASE)
    assert not re.search(r"<a\s[^>]*href=[\"']?\s*javascript:", page, re.IGNORECASE)
    assert "&lt;script&gt;alert(&#x27;note&#x27;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(8)&gt;" in page
    assert "&lt;a href=&quot;javascript:alert(10)&quot;&gt;" in page
    assert "{{ request.user }}" in page  # shown, not evaluated as a template
    assert "&amp;amp; &amp;lt;b&amp;gt;" in page  # entities shown as typed, not decoded
