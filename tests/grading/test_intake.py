"""Submissions are collected in three layouts, only the chapter's module files are taken, nobody
is dropped silently, and only a real submission time (nbgrader's) is a timestamp."""

import os
import stat
import zipfile
from datetime import UTC, datetime, timedelta, timezone

import pytest

from graders.grading import intake, timestamps

STUB = b"def ring_shift(tensor, group=None):\n    return tensor.clone()\n"


def _zip(path, entries):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            zf.writestr(info, data)


def test_folder_per_student_in_any_of_the_usual_places(tmp_path):
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "collectives.py").write_bytes(STUB)
    (tmp_path / "ben" / "ch2").mkdir(parents=True)
    (tmp_path / "ben" / "ch2" / "cost_model.py").write_bytes(b"x = 1\n")
    (tmp_path / "cid" / "exercises" / "ch2").mkdir(parents=True)
    (tmp_path / "cid" / "exercises" / "ch2" / "collectives.py").write_bytes(STUB)
    staged = {s.student_id: s for s in intake.discover(tmp_path, "ch2").staged}
    assert set(staged) == {"ann", "ben", "cid"}
    assert set(staged["ann"].files) == {"collectives.py"}
    assert set(staged["ben"].files) == {"cost_model.py"}
    assert staged["cid"].files["collectives.py"] == STUB
    assert "cost_model.py is missing from the submission" in staged["ann"].notes


def test_folders_and_zips_have_no_submission_time_unless_mtimes_are_asked_for(tmp_path):
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "collectives.py").write_bytes(STUB)
    os.utime(tmp_path / "ann" / "collectives.py", (1_700_000_000, 1_700_000_000))
    _zip(tmp_path / "ben.zip", [("collectives.py", STUB, stat.S_IFREG | 0o644)])
    os.utime(tmp_path / "ben.zip", (1_700_000_100, 1_700_000_100))
    assert [s.timestamp for s in intake.discover(tmp_path, "ch2").staged] == ["", ""]  # a copy's times
    ann, ben = intake.discover(tmp_path, "ch2", mtimes=True).staged
    assert ann.timestamp == "2023-11-14T22:13:20+00:00" and ben.timestamp == "2023-11-14T22:15:00+00:00"


def test_a_mixed_layout_is_refused_with_what_would_be_left_out(tmp_path):
    (tmp_path / "submitted" / "amy" / "ch2").mkdir(parents=True)
    (tmp_path / "bo").mkdir()
    _zip(tmp_path / "cy.zip", [("collectives.py", STUB, stat.S_IFREG | 0o644)])
    with pytest.raises(ValueError, match=r"would not be graded: bo/, cy\.zip"):
        intake.discover(tmp_path, "ch2")


def test_an_nbgrader_course_folder_is_one_layout_and_its_own_files_are_not_noted(tmp_path):
    for folder in ("source/ch2", "release/ch2", "autograded/amy/ch2", "feedback/amy/ch2", "dtlab/ch2"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "gradebook.db").write_bytes(b"")
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    folder = tmp_path / "submitted" / "amy" / "ch2"
    folder.mkdir(parents=True)
    for name, data in (("collectives.py", STUB), ("cost_model.py", b"x = 1\n"), ("ch2.ipynb", b"{}")):
        (folder / name).write_bytes(data)
    (folder / "README.md").write_text("# ch2")
    (folder / "timestamp.txt").write_text("2026-03-02 09:15:00.000000 UTC")
    (amy,) = intake.discover(tmp_path, "ch2").staged
    assert amy.notes == []  # timestamp.txt, the notebook and the README are nbgrader's


def test_what_looks_like_a_submission_but_is_not_graded_is_listed(tmp_path):
    (tmp_path / "ann").mkdir()
    (tmp_path / "bob.tar.gz").write_bytes(b"\x1f\x8b")
    (tmp_path / "cid").symlink_to(tmp_path / "ann")
    collection = intake.discover(tmp_path, "ch2")
    assert [s.student_id for s in collection.staged] == ["ann"]
    assert collection.skipped == ["bob.tar.gz: not a folder or a .zip archive", "cid: a symbolic link"]
    (tmp_path / "submitted" / "dee" / "ch3").mkdir(parents=True)
    assert intake.discover(tmp_path / "submitted", "ch2").skipped == ["submitted/dee: no ch2/ folder"]


def test_files_that_would_change_how_pytest_or_python_start_are_ignored_and_noted(tmp_path):
    folder = tmp_path / "eve"
    folder.mkdir()
    (folder / "collectives.py").write_bytes(STUB)
    for name in ("conftest.py", "pytest.ini", "sitecustomize.py", "evil.pth", "notes.txt"):
        (folder / name).write_text("boom")
    (folder / "cost_model.py").symlink_to("/etc/passwd")
    (staged,) = intake.discover(tmp_path, "ch2").staged
    assert set(staged.files) == {"collectives.py"}
    notes = "\n".join(staged.notes)
    for name in ("conftest.py", "pytest.ini", "sitecustomize.py", "evil.pth"):
        assert f"ignored {name}" in notes
    assert "ignored cost_model.py: a symbolic link" in notes
    assert "1 other file(s) ignored" in notes


def test_zip_slip_symlinks_and_oversized_entries_are_refused(tmp_path):
    regular = stat.S_IFREG | 0o644
    _zip(
        tmp_path / "mallory.zip",
        [
            ("ch2/collectives.py", STUB, regular),
            ("../../../../tmp/collectives.py", b"evil", regular),
            ("/etc/cron.d/evil", b"evil", regular),
            ("ch2/cost_model.py", b"x" * (intake.MAX_FILE_BYTES + 1), regular),
            ("ch2/link.py", b"/etc/shadow", stat.S_IFLNK | 0o777),
            ("ch2/conftest.py", b"evil", regular),
            ("__MACOSX/ch2/._collectives.py", b"junk", regular),
        ],
    )
    (staged,) = intake.discover(tmp_path, "ch2").staged
    assert staged.student_id == "mallory"
    assert staged.files == {"collectives.py": STUB}
    notes = "\n".join(staged.notes)
    assert "zip slip" in notes and "/etc/cron.d/evil" in notes
    assert "ignored ch2/link.py: a symbolic link" in notes
    assert "ignored ch2/cost_model.py: larger than 512 KB" in notes
    assert "ignored ch2/conftest.py" in notes
    assert not (tmp_path.parent / "tmp" / "collectives.py").exists()


def test_a_zip_that_lies_about_its_sizes_is_cut_at_the_limit(tmp_path):
    path = tmp_path / "liar.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("collectives.py", b"#" * (4 * intake.MAX_FILE_BYTES))
    with open(path, "r+b") as fh:  # rewrite the declared sizes in both headers to 10 bytes
        data = bytearray(fh.read())
        size = (4 * intake.MAX_FILE_BYTES).to_bytes(4, "little")
        data = data.replace(size, (10).to_bytes(4, "little"))
        fh.seek(0)
        fh.write(data)
    (staged,) = intake.discover(tmp_path, "ch2").staged
    assert "collectives.py" not in staged.files


def test_nbgrader_submitted_layout_with_its_timestamps(tmp_path):
    for student, stamp in (("amy", "2026-01-15 08:30:00.123456 UTC"), ("bo", "2026-01-15 08:30:00.5 +07")):
        folder = tmp_path / "submitted" / student / "ch2"
        folder.mkdir(parents=True)
        (folder / "collectives.py").write_bytes(STUB)
        (folder / "ch2.ipynb").write_text("{}")
        (folder / "timestamp.txt").write_text(stamp)
    (tmp_path / "submitted" / "cy" / "other").mkdir(parents=True)  # no ch2 submission: listed as skipped
    collection = intake.discover(tmp_path, "ch2")
    staged = collection.staged
    assert [s.student_id for s in staged] == ["amy", "bo"] and collection.skipped
    assert staged[0].timestamp == "2026-01-15T08:30:00.123456+00:00"
    assert staged[1].timestamp == "2026-01-15T08:30:00.500000+07:00"
    assert set(staged[0].files) == {"collectives.py"}


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("2026-03-02 09:15:00.000000 UTC", timedelta(0)),
        ("2026-03-02 09:15:00.000000", timedelta(0)),  # nbgrader reads a time without a zone as UTC
        ("2026-03-02 09:15:00.000000 -0500", timedelta(hours=-5)),
        ("2026-03-02 09:15:00 Asia/Ho_Chi_Minh", timedelta(hours=7)),
        ("2026-03-02T09:15:00+07:00", timedelta(hours=7)),
    ],
)
def test_nbgrader_times_are_aware(text, offset):
    moment = timestamps.nbgrader_time(text)
    assert moment.utcoffset() == offset
    assert moment.replace(tzinfo=None) == datetime(2026, 3, 2, 9, 15)


def test_an_unknown_zone_is_no_timestamp_and_a_note(tmp_path):
    folder = tmp_path / "submitted" / "amy" / "ch2"
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text("2026-03-02 09:15:00 XYZT")
    (amy,) = intake.discover(tmp_path, "ch2").staged
    assert amy.timestamp == "" and any("unknown time zone 'XYZT'" in n for n in amy.notes)


def test_due_dates_compare_as_instants():
    assert timestamps.late("2026-03-01T20:00:00Z", "2026-03-01T23:59:00+07:00") == "yes"  # 4 h late
    assert timestamps.late("2026-03-01T16:00:00+00:00", "2026-03-01T23:59:00+07:00") == "no"
    assert timestamps.late("", "2026-03-01T23:59:00+07:00") == ""
    with pytest.raises(ValueError, match="no time zone"):
        timestamps.parse("2026-03-01T23:59:00")
    assert timestamps.parse("2026-03-01T16:59:00Z") == datetime(
        2026, 3, 1, 23, 59, tzinfo=timezone(timedelta(hours=7))
    )
    assert timestamps.parse("2026-03-01T16:59:00Z").tzinfo == UTC


def test_student_ids_are_safe_and_unique(tmp_path):
    (tmp_path / "Nguyễn Văn A").mkdir()
    (tmp_path / "Nguyễn Văn A" / "collectives.py").write_bytes(STUB)
    (staged,) = intake.discover(tmp_path, "ch2").staged
    assert staged.student_id.isascii() and "/" not in staged.student_id and " " not in staged.student_id
    (tmp_path / "ann").mkdir()
    _zip(tmp_path / "ann.zip", [("collectives.py", STUB, stat.S_IFREG | 0o644)])
    with pytest.raises(ValueError, match="several submissions for ann"):
        intake.discover(tmp_path, "ch2")


def test_the_digest_changes_with_the_graded_files_only(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "collectives.py").write_bytes(STUB)
    first = intake.discover(tmp_path, "ch2").staged[0].digest
    (tmp_path / "a" / "readme.txt").write_text("hello")
    os.utime(tmp_path / "a" / "collectives.py")
    assert intake.discover(tmp_path, "ch2").staged[0].digest == first
    (tmp_path / "a" / "collectives.py").write_bytes(STUB + b"# changed\n")
    assert intake.discover(tmp_path, "ch2").staged[0].digest != first
