"""Which URLs a webhook may be sent to, table by table: addresses, then the URL itself."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from hermes_ui.webhooks import addresses, outbox, sending
from hermes_ui.webhooks.models import Delivery, Webhook

# Everything that is not globally routable unicast (with the range it stands for).
REFUSED = [
    "127.0.0.1",  # loopback
    "10.1.2.3",  # private
    "100.64.0.1",  # shared address space (CGNAT)
    "169.254.169.254",  # link-local (cloud metadata)
    "0.0.0.0",  # unspecified  # noqa: S104 (an address to refuse, not to bind)
    "224.0.0.1",  # multicast
    "239.255.255.250",  # multicast (SSDP)
    "240.0.0.1",  # reserved
    "255.255.255.255",  # broadcast
    "192.0.2.1",  # documentation (TEST-NET-1)
    "198.51.100.7",  # documentation (TEST-NET-2)
    "203.0.113.9",  # documentation (TEST-NET-3)
    "192.88.99.1",  # 6to4 relay anycast
    "::1",  # loopback
    "::",  # unspecified
    "fe80::1",  # link-local
    "fec0::1",  # site-local (deprecated)
    "fc00::1",  # unique local
    "ff02::1",  # multicast, link scope
    "ff0e::1",  # multicast, global scope
    "::ffff:8.8.8.8",  # IPv4-mapped
    "::8.8.8.8",  # IPv4-compatible (deprecated)
    "64:ff9b::a00:1",  # NAT64, well-known prefix (10.0.0.1 behind a gateway)
    "64:ff9b:1::a00:1",  # NAT64, local-use prefix
    "2002:a00:1::1",  # 6to4 (10.0.0.1)
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "2001:db8::1",  # documentation
    "3fff::1",  # documentation (RFC 9637)
    "100::1",  # discard-only
    "5f00::1",  # SRv6 SIDs, outside global unicast 2000::/3
]
ALLOWED = ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"]


@pytest.mark.parametrize("address", REFUSED)
def test_what_is_not_global_unicast_is_refused(address, settings):
    settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS = []
    assert not addresses.routable(address)
    literal = f"[{address}]" if ":" in address else address
    with pytest.raises(addresses.Refused) as refused:
        addresses.resolve(f"https://{literal}/hook")
    assert refused.value.code == "refused_address"


@pytest.mark.parametrize("address", ALLOWED)
def test_global_unicast_is_allowed(address, settings):
    settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS = []
    assert addresses.routable(address)
    literal = f"[{address}]" if ":" in address else address
    assert addresses.resolve(f"https://{literal}/hook").address == address


# URLs that can never be delivered to, whatever the address resolves to.
BAD_URLS = [
    ("https://hooks.example.org:99999/hook", "port"),
    ("https://hooks.example.org:0/hook", "port"),
    ("https://hooks.example.org:65536/hook", "port"),
    ("https://user:pass@hooks.example.org/hook", "credentials"),
    ("https://user@hooks.example.org/hook", "credentials"),
    ("https://:@hooks.example.org/hook", "credentials"),
    ("ftp://hooks.example.org/hook", "scheme"),
    ("http://hooks.example.org/hook", "not_https"),
]


@pytest.mark.parametrize(("url", "code"), BAD_URLS)
def test_a_bad_url_is_refused_before_resolving(url, code):
    with pytest.raises(addresses.Refused) as refused:
        addresses.check_form(url)
    assert refused.value.code == code
    assert refused.value.code in addresses.PERMANENT


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["https://hooks.example.org:99999/hook", "https://user:pass@hooks.example.org/hook"]
)
def test_the_form_refuses_a_bad_url_with_a_message(url, login):
    answer = login("admin").post(reverse("webhook_list"), {"url": url, "events": ["endpoint.down"]})
    assert answer.status_code == 400
    text = answer.content.decode()
    assert "port" in text or "credentials" in text
    assert not Webhook.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["https://hooks.example.org:99999/hook", "https://user:pass@hooks.example.org/hook"]
)
def test_a_stored_bad_url_fails_its_delivery_at_once_and_counts_toward_disabling(url):
    fresh = Webhook.objects.create(url=url, secret="s" * 20, events=[])
    delivery = outbox.ping(fresh)
    outcome = sending.attempt(str(delivery.pk))
    assert outcome in addresses.PERMANENT
    delivery.refresh_from_db()
    fresh.refresh_from_db()
    assert delivery.state == Delivery.FAILED and delivery.last_error == outcome
    assert fresh.active and fresh.failing_since is not None  # the streak started

    # A webhook that has failed this way for a day is disabled, as for any failure.
    old = Webhook.objects.create(
        url=url,
        secret="s" * 20,
        events=[],
        failing_since=timezone.now() - timedelta(days=1, minutes=1),
    )
    sending.attempt(str(outbox.ping(old).pk))
    old.refresh_from_db()
    assert not old.active and "a day" in old.disabled_reason
