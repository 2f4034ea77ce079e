"""``bench --against``: which suites it compares, and how it reports noise."""

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from devtools.bench.against import _spread


def test_against_needs_a_suite_it_can_compare():
    with pytest.raises(CommandError, match="--only session or search"):
        call_command("bench", against=Path("/nonexistent"))
    with pytest.raises(CommandError, match="--only session or search"):
        call_command("bench", against=Path("/nonexistent"), only="lineage")


def test_spread_is_half_the_interquartile_range_over_the_median():
    assert _spread([10.0, 10.0, 10.0, 10.0]) == "±0 %"
    assert _spread([8.0, 9.0, 10.0, 11.0, 12.0]) == "±15 %"
