"""What the session page shows of reviews: labels of finished reviews, and where to add it.

A completed item's authoritative review speaks for it when an admin picked one;
otherwise every completed review of it is shown, each with its reviewer. A cheap
query whether the session is in any queue, one for its items, one for the labels,
whatever the number of messages; the items' query is skipped when it is in none
(most sessions), the labels' when the items already say there are none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.prepared import Prepared
from hermes_ui.review import queues
from hermes_ui.review.models import Item, Label
from hermes_ui.web.roles import REVIEWER, has_role


@dataclass
class Shown:
    session: list[Label] = field(default_factory=list)  # labels about the whole session
    messages: list[Label] = field(default_factory=list)  # labels about one message
    queues: list = field(default_factory=list)  # where this user may add the session
    items: list[Item] = field(default_factory=list)  # the session's items, for their states


def labels(ep: Endpoint, session_id: str) -> list[Label]:
    found = (
        Label.objects.filter(
            **ep.scope(),
            session_id=session_id,
            review__done=True,
            review__item__state=Item.COMPLETED,
        )
        .select_related("review", "review__item", "review__item__queue")
        .order_by("message_id", "field", "review_id")
    )
    found = list(found[:500])  # type: ignore[assignment]
    picked = {label.review.item_id for label in found if label.review.authoritative}
    return [lab for lab in found if lab.review.item_id not in picked or lab.review.authoritative]


_ITEMS_SHOWN = 50


# Whether the session is in any queue, compiled once (platform.prepared): most are in
# none, and this answer costs a tenth of reading the items through the ORM.
_ANY_ITEM = Prepared.any_row(
    lambda ep, fp, sid: Item.objects.filter(endpoint=ep, endpoint_fp=fp, session_id=sid)
)


def for_session(ep: Endpoint, session_id: str, user) -> Shown:
    shown = Shown()
    if _ANY_ITEM.found(ep.id, ep.fingerprint, session_id):
        # What the page and the API show of an item, and no more: the row and its
        # queue in full made this the page's dearest query to build.
        shown.items = list(
            Item.objects.filter(**ep.scope(), session_id=session_id)
            .select_related("queue")
            .only("id", "queue_id", "message_id", "state", "queue__name")
            .order_by("queue__name", "message_id")[:_ITEMS_SHOWN]
        )
    # A label belongs to a completed item of its own session (labelling copies the
    # item's session id): when every item of the session is listed and none is
    # completed, there is no label to read.
    if len(shown.items) >= _ITEMS_SHOWN or any(i.state == Item.COMPLETED for i in shown.items):
        for label in labels(ep, session_id):
            (shown.session if label.message_id is None else shown.messages).append(label)
    if has_role(user, REVIEWER, ep.id):
        shown.queues = queues.workable(user, list(queues.of_endpoint(ep)))
    return shown
