"""Hostile text for notes, corrections and mentions (as tests/web/test_browser_hostile.py)."""

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
    assert "<img src=x onerror" not in page
    assert 'href="javascript:' not in page
    assert "&lt;script&gt;alert(&#x27;note&#x27;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(8)&gt;" in page
    assert "{{ request.user }}" in page  # not evaluated as a template
