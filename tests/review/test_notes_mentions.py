"""@mentions: what counts as one, and who can be mentioned."""

import pytest

from hermes_ui.access.grants import set_role
from hermes_ui.review import mentions


def test_names_in_order_each_once():
    assert mentions.names("@bob and @carol, then @bob again") == ["bob", "carol"]


@pytest.mark.parametrize(
    "text",
    [
        "write to a@b.com",  # an e-mail address
        "@@bob",  # an escaped at sign
        "bob@",
        "@ bob",
        "x.@bob",
        "",
    ],
)
def test_what_is_not_a_mention(text):
    assert mentions.names(text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("thanks @bob.", "bob"),  # the full stop ends the sentence, not the name
        ("(@bob)", "bob"),
        ("@jane.doe: look", "jane.doe"),
        ("cc @first_last-2!", "first_last-2"),
        ("line one\n@bob", "bob"),
    ],
)
def test_a_mention_ends_on_a_letter_or_digit(text, name):
    assert mentions.names(text) == [name]


def test_at_most_twenty_names():
    text = " ".join(f"@user{n}" for n in range(30))
    assert mentions.names(text) == [f"user{n}" for n in range(20)]


def test_only_active_users_with_a_role_are_mentioned(users, django_user_model):
    django_user_model.objects.create_user("norole", password="x" * 12)
    gone = django_user_model.objects.create_user("gone", password="x" * 12, is_active=False)
    set_role(gone, "support")
    django_user_model.objects.create_superuser("root", password="x" * 12)
    found = mentions.users("@reviewer @nobody @norole @gone @root @admin @reviewer")
    assert [u.username for u in found] == ["reviewer", "root", "admin"]


def test_the_author_is_not_mentioned_by_their_own_note(users):
    found = mentions.users("@support @reviewer", author=users["support"])
    assert [u.username for u in found] == ["reviewer"]


def test_a_name_is_matched_exactly(users):
    assert mentions.users("@Reviewer @review") == []
