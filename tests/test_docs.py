"""The manual: its settings reference matches the code, and README stays a front page."""

from pathlib import Path

from devtools import settings_reference

REPO = Path(__file__).resolve().parent.parent


def test_every_setting_the_code_reads_is_described_and_nothing_else():
    assert settings_reference.problems() == []


def test_the_reference_finds_readers_with_their_defaults_and_bounds():
    by_name = {s.name: s for s in settings_reference.settings()}
    page_size = by_name["HERMES_LIST_PAGE_SIZE"]
    assert (page_size.kind, page_size.default, page_size.bounds) == (
        "integer",
        "`50`",
        "≥ 1, ≤ 200",
    )
    assert "`HERMES_LIST_PAGE_SIZE` | Rows per list page." in settings_reference.markdown_table()


def test_a_variable_without_a_sentence_is_reported(tmp_path):
    (tmp_path / "hermes_ui").mkdir()
    (tmp_path / "hermes_ui" / "settings.py").write_text('X = env_int("HERMES_NEW_KNOB", 3)\n')
    (tmp_path / "docs" / "operating").mkdir(parents=True)
    (tmp_path / "docs" / "operating" / "settings.yml").write_text("HERMES_OLD_KNOB: gone\n")
    assert settings_reference.problems(tmp_path) == [
        "HERMES_NEW_KNOB is read by the code but has no sentence in settings.yml",
        "HERMES_OLD_KNOB is described in settings.yml but nothing reads it",
    ]


def test_readme_is_a_short_front_page_linking_the_manual():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    assert "make run" in readme and "make test" in readme
    for page in ("docs/index.md", "docs/operating/configuration.md"):
        assert (REPO / page).exists()
        assert page.removeprefix("docs/") in readme or page in readme


def test_every_guide_page_shows_a_picture_that_make_screenshots_takes():
    import re

    from devtools.screenshot_specs import JOURNEY_SHOTS, SHOTS

    taken = {f"{shot.name}.png" for shot in SHOTS}
    taken |= {f"{name}.png" for names in JOURNEY_SHOTS.values() for name in names}
    for page in sorted((REPO / "docs").glob("*/*.md")):
        if page.parent.name not in {"support", "reviewers", "admins"}:
            continue
        pictures = re.findall(r"!\[[^\]]*\]\(\.\./images/([^)]+)\)", page.read_text())
        assert pictures, f"{page.relative_to(REPO)} has no screenshot"
        assert set(pictures) <= taken, page
