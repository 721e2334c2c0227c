"""Submissions are collected in three layouts, and only the chapter's module files are taken."""

import os
import stat
import zipfile

import pytest

from graders.grading import intake

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
    staged = {s.student_id: s for s in intake.discover(tmp_path, "ch2")}
    assert set(staged) == {"ann", "ben", "cid"}
    assert set(staged["ann"].files) == {"collectives.py"}
    assert set(staged["ben"].files) == {"cost_model.py"}
    assert staged["cid"].files["collectives.py"] == STUB
    assert "cost_model.py is missing from the submission" in staged["ann"].notes
    assert staged["ann"].timestamp


def test_files_that_would_change_how_pytest_or_python_start_are_ignored_and_noted(tmp_path):
    folder = tmp_path / "eve"
    folder.mkdir()
    (folder / "collectives.py").write_bytes(STUB)
    for name in ("conftest.py", "pytest.ini", "sitecustomize.py", "evil.pth", "notes.txt"):
        (folder / name).write_text("boom")
    (folder / "cost_model.py").symlink_to("/etc/passwd")
    (staged,) = intake.discover(tmp_path, "ch2")
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
    (staged,) = intake.discover(tmp_path, "ch2")
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
    (staged,) = intake.discover(tmp_path, "ch2")
    assert "collectives.py" not in staged.files


def test_nbgrader_submitted_layout_with_its_timestamps(tmp_path):
    for student in ("amy", "bo"):
        folder = tmp_path / "submitted" / student / "ch2"
        folder.mkdir(parents=True)
        (folder / "collectives.py").write_bytes(STUB)
        (folder / "ch2.ipynb").write_text("{}")
        (folder / "timestamp.txt").write_text("2026-01-15 08:30:00.123456 UTC")
    (tmp_path / "submitted" / "cy" / "other").mkdir(parents=True)  # no ch2 submission: skipped
    staged = intake.discover(tmp_path, "ch2")
    assert [s.student_id for s in staged] == ["amy", "bo"]
    assert staged[0].timestamp.startswith("2026-01-15T08:30:00")
    assert set(staged[0].files) == {"collectives.py"}


def test_student_ids_are_safe_and_unique(tmp_path):
    (tmp_path / "Nguyễn Văn A").mkdir()
    (tmp_path / "Nguyễn Văn A" / "collectives.py").write_bytes(STUB)
    (staged,) = intake.discover(tmp_path, "ch2")
    assert staged.student_id.isascii() and "/" not in staged.student_id and " " not in staged.student_id
    (tmp_path / "ann").mkdir()
    _zip(tmp_path / "ann.zip", [("collectives.py", STUB, stat.S_IFREG | 0o644)])
    with pytest.raises(ValueError, match="several submissions for ann"):
        intake.discover(tmp_path, "ch2")


def test_the_digest_changes_with_the_graded_files_only(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "collectives.py").write_bytes(STUB)
    first = intake.discover(tmp_path, "ch2")[0].digest
    (tmp_path / "a" / "readme.txt").write_text("hello")
    os.utime(tmp_path / "a" / "collectives.py")
    assert intake.discover(tmp_path, "ch2")[0].digest == first
    (tmp_path / "a" / "collectives.py").write_bytes(STUB + b"# changed\n")
    assert intake.discover(tmp_path, "ch2")[0].digest != first
