"""Webhooks, failed mails and the tag list are instance administration (issue 48).

They are about every endpoint (a webhook hears all of them; a tag is on
sessions of each), so an admin of one endpoint neither sees nor changes them.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from hermes_ui.tags.models import Tag
from hermes_ui.webhooks.models import Webhook

pytestmark = pytest.mark.django_db


def test_an_endpoint_admin_gets_403_on_every_instance_page(review_world):
    hook = Webhook.objects.create(url="https://hooks.example.test/x", secret="s" * 32, events=[])
    tag = Tag.objects.create(name="keep")
    reads = [
        reverse("webhook_list"),
        reverse("webhook_detail", kwargs={"pk": hook.pk}),
        reverse("notification_mail"),
        reverse("tag_list"),
    ]
    writes = [
        (reverse("webhook_list"), {"url": "https://evil.example.test/", "events": []}),
        (reverse("webhook_delete", kwargs={"pk": hook.pk}), {}),
        (reverse("tag_delete", kwargs={"pk": tag.pk}), {}),
    ]
    euadmin, root = review_world.client("euadmin"), review_world.client("root")
    for url in reads:
        assert euadmin.get(url).status_code == 403, url
        assert root.get(url).status_code == 200, url
    for url, data in writes:
        assert euadmin.post(url, data).status_code == 403, url
    assert Webhook.objects.filter(pk=hook.pk).exists() and Tag.objects.filter(pk=tag.pk).exists()
    assert Webhook.objects.count() == 1
    nav = euadmin.get(reverse("mentions")).content.decode()
    assert reverse("webhook_list") not in nav and reverse("tag_list") not in nav
    assert reverse("webhook_list") in root.get(reverse("mentions")).content.decode()
