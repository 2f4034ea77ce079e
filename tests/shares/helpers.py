"""Walking the share pages as a person would: the form, its POST, the link."""

import re
from urllib.parse import urlsplit

from hermes_ui.shares.models import Share
from hermes_ui.web.links import session_url
from tests.shares.conftest import SID


def form_url(session_id: str = SID, endpoint: str = "local") -> str:
    return session_url(endpoint, session_id, "share_new")


def preview_digest(client, session_id: str = SID) -> str:
    page = client.get(form_url(session_id))
    assert page.status_code == 200, page.content.decode()[:2000]
    return re.search(r'name="preview" value="([0-9a-f]+)"', page.content.decode()).group(1)


def share(client, kind="inside", days=7, max_views="", session_id: str = SID, **extra):
    """POST the form after its preview; returns (answer, the link's path or None)."""
    data = {
        "kind": kind,
        "days": days,
        "max_views": max_views,
        "preview": extra.pop("preview", None) or preview_digest(client, session_id),
        **extra,
    }
    answer = client.post(form_url(session_id), data)
    found = re.search(r'id="share-url"[^>]*value="([^"]+)"', answer.content.decode())
    found = found or re.search(r'value="([^"]+)" id="share-url"', answer.content.decode())
    path = urlsplit(found.group(1)).path if found else None
    return answer, path


def newest() -> Share:
    return Share.objects.order_by("-id").first()
