"""Review data as the review pages leave it: items, and reviews with their labels."""

from hermes_ui.review.models import Item, Label, Review


def item(queue, session_id, message_id=None, state=Item.NEEDS_REVIEW) -> Item:
    return Item.objects.create(
        endpoint=queue.endpoint,
        endpoint_fp=queue.endpoint_fp,
        queue=queue,
        session_id=session_id,
        message_id=message_id,
        state=state,
    )


def review(
    item_, reviewer, version, labels=None, messages=None, *, done=True, authoritative=False
) -> Review:
    """A review of ``item_`` with session ``labels`` ({field: value}) and ``messages``
    ({message id: {field: value}}), as the review page stores them."""
    made = Review.objects.create(
        item=item_,
        reviewer=reviewer,
        reviewer_name=reviewer.get_username(),
        version=version,
        done=done,
        authoritative=authoritative,
    )
    given = [(None, f, v) for f, v in (labels or {}).items()]
    given += [(m, f, v) for m, values in (messages or {}).items() for f, v in values.items()]
    Label.objects.bulk_create(
        Label(
            endpoint=item_.endpoint,
            endpoint_fp=item_.endpoint_fp,
            session_id=item_.session_id,
            message_id=m,
            review=made,
            field=f,
            value=v,
        )
        for m, f, v in given
    )
    return made
