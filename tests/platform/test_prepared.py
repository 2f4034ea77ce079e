"""Queries compiled once (platform.prepared): the ORM's answers, for any values, as parameters."""

import pytest
from django.db import connection
from django.db.models import Count, Q
from django.test.utils import CaptureQueriesContext

from hermes_ui.platform.prepared import Prepared
from hermes_ui.tags.models import SessionTag, Tag


@pytest.fixture
def tagged(db, mock_endpoint):
    red, blue = Tag.objects.create(name="red"), Tag.objects.create(name="blue")
    for sid, tags in (("a", [red, blue]), ("b", [red]), ("it's; --", [blue])):
        for tag in tags:
            SessionTag.objects.create(**mock_endpoint.scope(), session_id=sid, tag=tag)
    return red, blue


def _orm(ep, sids, tag_id):
    return sorted(
        SessionTag.objects.filter(**ep.scope(), session_id__in=sids, tag_id=tag_id).values_list(
            "session_id", "tag__name"
        )
    )


def test_the_rows_are_the_orms_for_every_call_and_the_sql_is_built_once(tagged, mock_endpoint):
    built = []

    def build(ep, fp, sids, tag_id):
        built.append(1)
        return SessionTag.objects.filter(
            endpoint=ep, endpoint_fp=fp, session_id__in=sids, tag_id=tag_id
        ).values_list("session_id", "tag__name")

    prepared = Prepared(build)
    ep = mock_endpoint
    for sids, tag in ((["a"], 0), (["b"], 0), (["a", "b"], 0), (["a", "b"], 1), (["zz"], 1)):
        tag_id = tagged[tag].pk
        found = prepared.rows(ep.id, ep.fingerprint, sids, tag_id)
        assert sorted(found) == _orm(ep, sids, tag_id), (sids, tag)
    assert len(built) == 2  # one list of one id, one of two


def test_values_are_parameters_never_sql(tagged, mock_endpoint):
    prepared = Prepared(
        lambda sid: SessionTag.objects.filter(session_id=sid).values_list("session_id")
    )
    assert prepared.rows("it's; --") == [("it's; --",)]
    assert prepared.rows("a' OR '1'='1") == []


def test_constants_of_the_query_and_an_aggregate_keep_their_place(tagged, mock_endpoint):
    prepared = Prepared(
        lambda sid: (
            SessionTag.objects.filter(Q(session_id=sid) & ~Q(tag__name="red"))
            .values("session_id")
            .annotate(n=Count("id"))
            .values_list("n")
            .order_by()
        )
    )
    assert prepared.first("a") == (1,)
    assert prepared.first("b") is None


def test_a_placeholder_the_orm_transforms_is_refused(db):
    prepared = Prepared(lambda name: Tag.objects.filter(name__contains=name).values_list("pk"))
    with pytest.raises(ValueError, match="transformed"):
        prepared.rows("re")


def test_a_prepared_query_is_counted_like_any_other(tagged):
    prepared = Prepared(lambda sid: SessionTag.objects.filter(session_id=sid).values_list("pk"))
    prepared.rows("a")
    with CaptureQueriesContext(connection) as captured:
        assert len(prepared.rows("a")) == 2
    assert len(captured) == 1


def test_a_value_the_query_does_not_use_is_refused(db):
    prepared = Prepared(lambda name, unused: Tag.objects.filter(name=name).values_list("pk"))
    with pytest.raises(ValueError, match="not in its SQL"):
        prepared.rows("red", "blue")


def test_instances_are_the_orms_objects_with_every_field_converted(db):
    from django.utils import timezone

    from hermes_ui.endpoint_status.models import EndpointProbe

    checked = timezone.now().replace(microsecond=123000)
    EndpointProbe.objects.create(
        endpoint="one", endpoint_fp="f1", checked_at=checked, reachable=True,
        key_accepted=None, features={"sessions": True}, operations=["list"],
    )  # fmt: skip
    EndpointProbe.objects.create(endpoint="two", endpoint_fp="f2", checked_at=checked)
    prepared = Prepared(lambda eps: EndpointProbe.objects.filter(endpoint__in=eps))
    [one] = prepared.instances(["one"])
    orm = EndpointProbe.objects.get(endpoint="one")
    fields = ("pk", "endpoint", "checked_at", "reachable", "key_accepted", "features", "operations")
    assert [getattr(one, f) for f in fields] == [getattr(orm, f) for f in fields]
    assert one.checked_at == checked and one.reachable is True
    assert one.features == {"sessions": True}
    assert sorted(p.endpoint for p in prepared.instances(["one", "two", "three"])) == ["one", "two"]
    assert prepared.instances(["x' OR '1'='1"]) == []


def test_a_number_placeholder_fits_a_32_bit_id_column(db):
    """PostgreSQL's ``integer`` (``auth_user.id``): Django answers a value out of its range
    with "no row" and no SQL, which would drop the placeholder from the compiled query."""
    from django.contrib.auth import get_user_model
    from django.db.backends.base.operations import BaseDatabaseOperations

    from hermes_ui.platform import prepared as module

    low, high = BaseDatabaseOperations.integer_field_ranges["IntegerField"]
    assert low <= module._INT_MARK - 1000 <= module._INT_MARK <= high
    user = get_user_model().objects.create_user("someone")
    found = Prepared(lambda pk: get_user_model().objects.filter(pk=pk)).instances(user.pk)
    assert [u.username for u in found] == ["someone"]
