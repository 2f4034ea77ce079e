"""The rubric form of one item, and saving a reviewer's labels from it.

Session fields are named ``s-<key>``; message fields ``m<id>-<key>`` for each
message shown. Session fields render through the field template; message fields
(one group per message, up to a page of messages) render from plain dicts in
``review/_message_fields.html``, which keeps a long page cheap.
"""

from __future__ import annotations

from django import forms
from django.db import transaction
from django.utils import timezone

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.review import items, rubrics
from hermes_ui.review.forms import TEXT_MAX
from hermes_ui.review.models import Item, Label, Queue, Review, RubricVersion


class Refused(Exception):
    """The labels cannot be saved: the message says why (reserved, completed, gone)."""


def _django_field(field: dict) -> forms.Field:
    label, kind = field["label"], field["type"]
    if kind == rubrics.CHOICE:
        options = [(c, c) for c in field["choices"]]
        return forms.ChoiceField(
            label=label, choices=options, required=False, widget=forms.RadioSelect
        )
    if kind == rubrics.BOOL:
        options = [(rubrics.YES, "yes"), (rubrics.NO, "no")]
        return forms.ChoiceField(
            label=label, choices=options, required=False, widget=forms.RadioSelect
        )
    if kind == rubrics.NUMBER:
        # Numbers only: the field template marks help text safe, and a rubric is
        # stored JSON, so nothing typed reaches it as text.
        low, high = int(field["min"]), int(field["max"])
        return forms.IntegerField(
            label=label,
            min_value=low,
            max_value=high,
            required=False,
            help_text=f"{low} to {high}",
            widget=forms.NumberInput({"min": low, "max": high}),
        )
    return forms.CharField(
        label=label, required=False, max_length=TEXT_MAX, widget=forms.Textarea({"rows": 3})
    )


def session_name(key: str) -> str:
    return f"s-{key}"


def message_name(message_id, key: str) -> str:
    return f"m{message_id}-{key}"


class LabelForm(forms.Form):
    def __init__(self, version: RubricVersion, message_ids: list, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.version = version
        self.session_fields, self.message_fields = rubrics.split(version)
        self.message_ids = message_ids
        for field in self.session_fields:
            django_field = _django_field(field)
            django_field.widget.attrs.update({"form": "rv-form", "data-rv-key": field["key"]})
            self.fields[session_name(field["key"])] = django_field
        for message_id in message_ids:
            for field in self.message_fields:
                self.fields[message_name(message_id, field["key"])] = _django_field(field)

    def session_bound(self):
        """``(field, bound field)`` of each session field, in the rubric's order."""
        return [(f, self[session_name(f["key"])]) for f in self.session_fields]

    def freeze(self) -> None:
        """Show the values without letting them be changed (not the reviewer's turn)."""
        for field in self.fields.values():
            field.disabled = True

    def message_groups(self) -> dict:
        """Per message id, its fields as dicts for ``review/_message_fields.html``."""
        groups = {}
        for message_id in self.message_ids:
            groups[message_id] = [self._plain(message_id, f) for f in self.message_fields]
        return groups

    def _plain(self, message_id, field: dict) -> dict:
        name = message_name(message_id, field["key"])
        value = self.data.get(name, "") if self.is_bound else self.initial.get(name, "")
        value = "" if value is None else str(value)
        options = []
        if field["type"] == rubrics.CHOICE:
            options = field["choices"]
        elif field["type"] == rubrics.BOOL:
            options = [rubrics.YES, rubrics.NO]
        return {
            "name": name,
            "field": field,
            "value": value,
            "options": [(n, o, o == value) for n, o in enumerate(options, start=1)],
            "errors": self.errors.get(name) if self.is_bound else None,
        }

    def labels(self) -> list[tuple[int | None, str, str]]:
        """``(message id or None, field key, value text)`` for every answered field."""
        found = []
        for field in self.session_fields:
            text = rubrics.value_text(field, self.cleaned_data.get(session_name(field["key"])))
            if text:
                found.append((None, field["key"], text))
        for message_id in self.message_ids:
            for field in self.message_fields:
                raw = self.cleaned_data.get(message_name(message_id, field["key"]))
                text = rubrics.value_text(field, raw)
                if text:
                    found.append((message_id, field["key"], text))
        return found  # type: ignore[return-value]


def initial_for(review: Review | None) -> dict:
    """The reviewer's own labels as the form's initial values."""
    if review is None:
        return {}
    kinds = {f["key"]: f for f in review.version.fields}
    initial = {}
    for label in review.labels.all():
        field = kinds.get(label.field)
        if field is None:
            continue
        if label.message_id is None:
            name = session_name(label.field)
        else:
            name = message_name(label.message_id, label.field)
        initial[name] = rubrics.form_initial(field, label.value)
    return initial


def version_for(item: Item, own: Review | None):
    """The rubric version a reviewer labels with: their review's, else the queue's current."""
    return own.version if own else rubrics.current(item.queue.rubric)


def own_review(item: Item, user) -> Review | None:
    return item.reviews.select_related("version").filter(reviewer=user).first()


def refused(user, ep: Endpoint, item: Item, complete: bool) -> None:
    """Audit a save that came too late (ids only)."""
    trail.record(
        user,
        capability="review.complete" if complete else "review.label",
        endpoint=ep.id,
        outcome=Outcome.REFUSED,
        session_id=item.session_id,
        error_code="stale",
        evidence={"queue_id": item.queue_id, "item_id": item.pk, "state": item.state},
    )


def refusal(user, item: Item) -> str:
    """Why ``user`` may not label the item now (its reservation could not be renewed)."""
    item.refresh_from_db()
    if item.state == Item.COMPLETED:
        return "This item was completed meanwhile; your changes were not saved."
    if item.state == Item.SKIPPED:
        return "This item was skipped meanwhile; your changes were not saved."
    other = items.holder(item)
    if other is not None and other.pk != user.pk:
        return (
            f"Your reservation expired and {other.get_username()} is reviewing this item now; "
            "your changes were not saved."
        )
    return "This item could not be reserved for you; your changes were not saved."


def save(user, ep: Endpoint, queue: Queue, item: Item, version, form, own, *, complete: bool):
    """Store the reviewer's labels (replacing their earlier ones for what the form showed)
    and, with ``complete``, finish their review and move the item on. Audited, counts only.
    Raises ``Refused`` when the item is no longer theirs to label: the reservation is
    renewed first, in the same transaction, by the conditional UPDATE of ``items.reserve``."""
    with transaction.atomic():
        if items.reserve(user, item.pk) is None:
            raise Refused(refusal(user, item))
        review = (
            own
            or Review.objects.get_or_create(
                item=item,
                reviewer=user,
                defaults={"reviewer_name": user.get_username(), "version": version},
            )[0]
        )
        shown = review.labels.filter(message_id__isnull=True) | review.labels.filter(
            message_id__in=form.message_ids
        )
        shown.delete()
        Label.objects.bulk_create(
            Label(
                endpoint=item.endpoint,
                endpoint_fp=item.endpoint_fp,
                session_id=item.session_id,
                message_id=message_id,
                review=review,
                field=key,
                value=value,
            )
            for message_id, key, value in form.labels()
        )
        if complete and not review.done:
            review.done, review.completed_at = True, timezone.now()
            review.save(update_fields=["done", "completed_at", "updated_at"])
        elif own is not None:
            review.save(update_fields=["updated_at"])
        item_was_open = item.state in items.OPEN
        state = items.finish(item, queue) if complete else item.state
        trail.record(
            user,
            capability="review.complete" if complete else "review.label",
            endpoint=ep.id,
            outcome=Outcome.SUCCESS,
            session_id=item.session_id,
            evidence={
                "queue_id": queue.pk,
                "item_id": item.pk,
                "review_id": review.pk,
                "count": len(form.labels()),
                "state": state,
                "version": version.number,
            },
        )
        if state == Item.COMPLETED and item_was_open:
            _announce_completed(ep, user, queue, item)
        else:  # labelled, or reviewed while the item waits for others: its progress moved
            ids = {"queue_id": queue.pk, "item_id": item.pk, "session_id": item.session_id}
            events.emit(events.REVIEW_QUEUE_CHANGED, endpoint=ep.id, actor=user, ids=ids)
    return review


def _announce_completed(ep: Endpoint, user, queue: Queue, item: Item) -> None:
    ids = {"queue_id": queue.pk, "item_id": item.pk, "session_id": item.session_id}
    events.emit(events.REVIEW_ITEM_COMPLETED, endpoint=ep.id, actor=user, ids=ids)
    if not queue.items.filter(state__in=items.OPEN).exists():
        events.emit(
            events.REVIEW_QUEUE_COMPLETED,
            endpoint=ep.id,
            actor=user,
            users=[queue.owner_id] if queue.owner_id else [],
            ids={"queue_id": queue.pk},
            counts={"items": queue.items.count()},
        )
