"""Known gloo / c10d failures, provoked for real in a gloo world, come back as what the code did."""

import re

import pytest

from graders.errors import StudentError, TaskHang
from graders.impl import KIT_ROOT, Impl
from graders.world import gloo_errors
from graders.world.pool import WorldPool
from tests.world import probe_tasks as probe

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

PROBES = Impl.resolve(KIT_ROOT / "fixtures" / "probes")


@pytest.fixture(scope="module")
def pool():
    pool = WorldPool(deadline=2.0)
    yield pool
    pool.close()


def run(pool, fn, world_size=3):
    return pool.run(probe.call, PROBES, probe.ProbeCase(world_size, fn))


@pytest.mark.parametrize(
    "fn, library_text",
    [
        ("sends_to_itself", "destination rank should not be the same"),  # torch's own check
        ("receives_from_itself", "Pair is not connected"),  # gloo's, the raw text of issue 13
        ("isends_to_itself", "Pair is not connected"),
    ],
)
def test_a_rank_talking_to_itself_is_named(pool, fn, library_text):
    with pytest.raises(StudentError) as info:
        run(pool, fn)
    message = str(info.value)
    assert library_text in message  # the library's words stay: they are what a search finds
    assert "what happened: a rank sent to or received from itself" in message
    assert "hint: compute the peer from the rank" in message
    assert "gửi cho chính nó" in info.value.localized["vi"] and "gợi ý:" in info.value.localized["vi"]


def test_a_peer_outside_the_group_is_named_without_an_object_address(pool):
    with pytest.raises(StudentError) as info:
        run(pool, "sends_outside_its_group")
    message = str(info.value)
    assert "Global rank 2 is not part of the group" in message and "0x" not in message
    assert "global rank 2, which is not a member of the group" in message
    assert "dist.get_global_rank(group, i)" in message
    assert "không thuộc nhóm" in info.value.localized["vi"]


def test_mismatched_tags_are_named_in_the_hang_report(pool):
    with pytest.raises(TaskHang) as info:
        run(pool, "mismatched_tags")
    assert "Rank 0 is in send to rank 1 and rank 1 is in recv from rank 0" in info.value.report
    assert "their tags differ" in info.value.report


def test_a_peer_that_does_not_exist_is_named_in_the_hang_report(pool):
    with pytest.raises(TaskHang) as info:
        run(pool, "sends_to_a_rank_that_does_not_exist")
    assert "waits on rank 99, which does not exist: the world has" in info.value.report


@pytest.mark.parametrize("fn", ["waits_on_a_short_irecv", "mismatched_dtypes"])
def test_mismatched_sizes_keep_their_crash_hint(pool, fn):
    from graders.errors import RankCrash

    with pytest.raises(RankCrash) as info:
        run(pool, fn)
    # gloo aborts; when the abort races its transfer thread the same bug ends in SIGSEGV (seen in CI)
    assert re.search(r"killed by SIG(ABRT|SEGV)", info.value.report)
    assert "different sizes" in str(info.value.hint) and "segmentation" not in str(info.value.hint)
    assert run(pool, "shift").values[1].tolist() == [0.0, 0.0]  # and the next task runs


def test_an_unknown_error_gets_no_made_up_explanation():
    assert gloo_errors.said("ValueError: rank 1 gives up") == ("", "")
    assert gloo_errors.explain("Connection closed by peer") is None


def test_every_explanation_has_both_languages():
    from graders.words.vocabulary import LANGS, word

    keys = {key for key, _ in gloo_errors.KNOWN}
    for key in [
        *(f"gloo:{k}" for k in keys),
        *(f"gloo:{k}:hint" for k in keys),
        "gloo:tags",
        "gloo:no such rank",
    ]:
        assert set(word(key)) == set(LANGS) and all(word(key).values()), key


def test_the_student_reads_it_in_their_language(kit_root, tmp_path):
    import os
    import subprocess
    import sys

    for name in ("collectives.py", "cost_model.py"):
        (tmp_path / name).write_text((kit_root / "solutions/ch2" / name).read_text())
    source = (tmp_path / "collectives.py").read_text()
    isend = "outgoing = dist.isend(tensor.contiguous(), group=group, group_dst=(rank + 1) % world)"
    assert isend in source
    (tmp_path / "collectives.py").write_text(source.replace(isend, "dist.send(tensor, dist.get_rank())"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTEST_")) and k != "CI"}
    env["PYTHONPATH"] = str(kit_root)
    args = ["exercises/ch2/test_collectives.py", "-k", "ring_shift", "--impl", str(tmp_path), "--lang", "vi"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=kit_root,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert "destination rank should not be the same" in done.stdout, done.stdout + done.stderr
    assert "chuyện gì đã xảy ra: một rank đã gửi cho chính nó" in done.stdout
    assert "gợi ý: hãy tính peer từ rank" in done.stdout
