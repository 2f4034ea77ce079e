"""Small queries whose SQL is compiled once per process, then run with each call's values.

Kept because the session page runs a dozen such queries and building them
through the ORM measured a third of its CPU time (docs/development/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import connections
from django.db.models import QuerySet


class Prepared:
    def __init__(self, build: Callable[..., QuerySet]):
        self._build = build
        self._compiled: dict[tuple, tuple[str, str, list, type]] = {}

    def rows(self, *values) -> list[tuple]:
        """The query's rows for these values (a list or tuple of text fills an ``__in``)."""
        alias, sql, params, _ = self._ready(values)
        with connections[alias].cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def instances(self, *values) -> list:
        """The query's model objects for these values, each field converted as the ORM does."""
        alias, sql, params, model = self._ready(values)
        return list(model._default_manager.raw(sql, params, using=alias))  # type: ignore[attr-defined]

    def _ready(self, values) -> tuple[str, str, list, type]:
        shape = tuple(_shape(v) for v in values)
        compiled = self._compiled.get(shape)
        if compiled is None:
            compiled = self._compiled[shape] = self._compile(shape)
        alias, sql, slots, model = compiled
        return alias, sql, [_fill(slot, values) for slot in slots], model

    def first(self, *values) -> tuple | None:
        found = self.rows(*values)
        return found[0] if found else None

    @classmethod
    def any_row(cls, build: Callable[..., QuerySet]) -> Prepared:
        """Whether ``build``'s queryset has a row (``found``): one id, and no ordering (a
        model's default ordering can join other tables for nothing)."""
        return cls(lambda *marks: build(*marks).values_list("pk").order_by()[:1])

    def found(self, *values) -> bool:
        return self.first(*values) is not None

    def _compile(self, shape: tuple) -> tuple[str, str, list, type]:
        marks = [_placeholder(i, kind) for i, kind in enumerate(shape)]
        query = self._build(*marks)
        sql, params = query.query.get_compiler(query.db).as_sql()
        where = {}
        for i, mark in enumerate(marks):
            for j, one in enumerate(mark) if isinstance(mark, list) else [(None, mark)]:
                where[one] = (i, j)
        slots = []
        for param in params:
            if isinstance(param, (str, int)) and not isinstance(param, bool) and param in where:
                slots.append(where[param])
            elif _looks_like_mark(param):
                raise ValueError(f"prepared query: a placeholder was transformed: {param!r}")
            else:
                slots.append(_Constant(param))  # type: ignore[arg-type]  # part of the query itself (rejected=False)
        missing = set(where.values()) - set(slots)
        if missing:
            unused = sorted(missing, key=repr)
            raise ValueError(f"prepared query: placeholders {unused} not in its SQL")
        return query.db, sql, slots, query.model


class _Constant:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _fill(slot, values):
    if isinstance(slot, _Constant):
        return slot.value
    i, j = slot
    return values[i] if j is None else values[i][j]


_STR_MARK = "\x1fprepared-{}-{}\x1f"
# Far from any id or count a query is asked with, and inside a 32-bit integer column's
# range: Django answers "no row" without SQL for a value out of it (PostgreSQL's ``integer``,
# as ``auth_user.id``), which would leave the placeholder out of the compiled query.
_INT_MARK = -2_000_000_000


def _shape(value):
    if isinstance(value, bool):
        raise TypeError("prepared query: a boolean is part of the query, not a value")
    if isinstance(value, (list, tuple)):
        if not value or not all(isinstance(v, str) for v in value):
            raise TypeError("prepared query: a list value holds text, at least one")
        return ("list", len(value))
    if isinstance(value, (str, int)):
        return type(value).__name__
    raise TypeError(f"prepared query: unsupported value {type(value).__name__}")


def _placeholder(i: int, kind):
    if isinstance(kind, tuple):
        return [_STR_MARK.format(i, j) for j in range(kind[1])]
    return _STR_MARK.format(i, "") if kind == "str" else _INT_MARK - i


def _looks_like_mark(param) -> bool:
    if isinstance(param, str):
        return "\x1fprepared-" in param
    if isinstance(param, int) and not isinstance(param, bool):
        return _INT_MARK - 1000 < param <= _INT_MARK
    return False
