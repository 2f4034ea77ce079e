"""The opt-in timeline: the conftest hooks write it, devtools/timeline.py reads it, and
tests/support/ordering.py schedules by the durations it writes."""

import pytest

from devtools import timeline
from tests import conftest
from tests.support import cpu, ordering


def test_the_hooks_append_one_line_per_test(tmp_path, monkeypatch):
    path = tmp_path / "timeline.txt"
    monkeypatch.setenv("HERMES_UI_TIMELINE", str(path))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setattr(conftest, "cpu_seconds", iter([10.0, 12.5]).__next__)
    conftest.pytest_runtest_logstart("tests/a.py::test_x", None)
    conftest.pytest_runtest_logfinish("tests/a.py::test_x", None)

    worker, start, end, seconds, nodeid = path.read_text().splitlines()[0].split(" ", 4)
    assert (worker, seconds, nodeid) == ("gw1", "2.500", "tests/a.py::test_x")
    assert float(start) <= float(end)


def test_without_cgroups_the_cpu_column_is_a_dash(tmp_path, monkeypatch):
    path = tmp_path / "timeline.txt"
    monkeypatch.setenv("HERMES_UI_TIMELINE", str(path))
    monkeypatch.setattr(cpu, "CPUACCT", tmp_path / "no-such-hierarchy" / "cpuacct")
    cpu._usage_file.cache_clear()
    try:
        assert cpu.cpu_seconds() is None
        monkeypatch.setattr(conftest, "cpu_seconds", cpu.cpu_seconds)
        conftest.pytest_runtest_logstart("tests/a.py::test_x", None)
        conftest.pytest_runtest_logfinish("tests/a.py::test_x", None)
    finally:
        cpu._usage_file.cache_clear()
    assert path.read_text().split(" ")[3] == "-"


def test_nothing_is_written_unless_asked(tmp_path, monkeypatch):
    monkeypatch.delenv("HERMES_UI_TIMELINE", raising=False)
    monkeypatch.chdir(tmp_path)
    conftest.pytest_runtest_logstart("tests/a.py::test_x", None)
    conftest.pytest_runtest_logfinish("tests/a.py::test_x", None)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def four_tests(tmp_path):
    path = tmp_path / "timeline.txt"
    path.write_text(
        "gw0 100 110 9.5 tests/a.py::one\n"
        "gw1 100 101 0.5 tests/b.py::two\n"
        "gw1 120 122 - tests/b.py::three\n"
        "gw0 110 160 20.0 tests/a.py::four\n"
    )
    return path


def test_the_summary_shows_busy_time_cpu_gaps_idle_end_and_last_tests(four_tests):
    text = timeline.summary(timeline.read(four_tests), gap=5)

    assert "run: 60.0 s wall, 2 worker(s)" in text
    assert "gw0: 2 tests, busy 60.0 s, CPU 29.5 s, idle at the end 0.0 s" in text
    assert "gw1: 2 tests, busy 3.0 s, CPU 0.5 s, idle at the end 38.0 s" in text
    assert "gap   19.0 s at +1.0 s before tests/b.py::three" in text
    assert text.rindex("tests/b.py::two") < text.rindex("tests/b.py::three")  # last 10, in order


def test_durations_are_written_per_file_longest_first_and_read_back(four_tests, tmp_path):
    out = tmp_path / "durations.txt"
    timeline.main([str(four_tests), "--durations", str(out)])
    assert out.read_text() == "60.0 tests/a.py\n3.0 tests/b.py\n"
    assert ordering.read_durations(out) == {"tests/a.py": 60.0, "tests/b.py": 3.0}
    assert ordering.read_durations(tmp_path / "missing.txt") == {}


class Item:
    """Enough of a pytest item for the ordering: a node id and its xdist group."""

    def __init__(self, nodeid: str, group: str):
        self.nodeid, self.group = nodeid, group

    def get_closest_marker(self, name):
        assert name == "xdist_group"
        return pytest.mark.xdist_group(self.group).mark


def test_groups_go_out_longest_first_browser_last_each_kept_in_its_order(monkeypatch):
    seconds = {"tests/short.py": 2.0, "tests/long.py": 50.0, "tests/ui.py": 90.0}
    monkeypatch.setattr(ordering, "read_durations", lambda: seconds)
    items = [
        Item("tests/short.py::a", "tests/short.py"),
        Item("tests/ui.py::b", "tests/ui.py browser"),
        Item("tests/long.py::c", "tests/long.py"),
        Item("tests/unknown.py::d", "tests/unknown.py"),  # 0.1 s a test: after short
        Item("tests/long.py::e", "tests/long.py"),
        Item("tests/short.py::f", "tests/short.py"),
    ]
    ordering.Ordering().pytest_collection_modifyitems(items)
    assert [i.nodeid.split("::")[1] for i in items] == ["c", "e", "a", "f", "d", "b"]
