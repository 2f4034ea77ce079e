"""The opt-in timeline: the conftest hooks write it, devtools/timeline.py reads it."""

from devtools import timeline
from tests import conftest


def test_the_hooks_append_one_line_per_test(tmp_path, monkeypatch):
    path = tmp_path / "timeline.txt"
    monkeypatch.setenv("HERMES_UI_TIMELINE", str(path))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    conftest.pytest_runtest_logstart("tests/a.py::test_x", None)
    conftest.pytest_runtest_logfinish("tests/a.py::test_x", None)

    worker, start, end, nodeid = path.read_text().splitlines()[0].split(" ", 3)
    assert (worker, nodeid) == ("gw1", "tests/a.py::test_x")
    assert float(start) <= float(end)


def test_nothing_is_written_unless_asked(tmp_path, monkeypatch):
    monkeypatch.delenv("HERMES_UI_TIMELINE", raising=False)
    monkeypatch.chdir(tmp_path)
    conftest.pytest_runtest_logstart("tests/a.py::test_x", None)
    conftest.pytest_runtest_logfinish("tests/a.py::test_x", None)
    assert list(tmp_path.iterdir()) == []


def test_the_summary_shows_busy_time_gaps_idle_end_and_last_tests(tmp_path):
    path = tmp_path / "timeline.txt"
    path.write_text(
        "gw0 100 110 tests/a.py::one\n"
        "gw1 100 101 tests/b.py::two\n"
        "gw1 120 122 tests/b.py::three\n"
        "gw0 110 160 tests/a.py::four\n"
    )
    text = timeline.summary(timeline.read(path), gap=5)

    assert "run: 60.0 s wall, 2 worker(s)" in text
    assert "gw0: 2 tests, busy 60.0 s, idle at the end 0.0 s" in text
    assert "gw1: 2 tests, busy 3.0 s, idle at the end 38.0 s" in text
    assert "gap   19.0 s at +1.0 s before tests/b.py::three" in text
    assert text.rindex("tests/b.py::two") < text.rindex("tests/b.py::three")  # last 10, in order
