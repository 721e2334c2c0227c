"""A banned module tree (``"package.*"``) is armed from one pass over ``sys.modules``, and what a
module defines is cached: the cache must never miss a function the module defines at the task,
nor a module of the tree that ``sys.modules`` holds at the task."""

from __future__ import annotations

import sys
import types

import pytest

from graders.comm.guard import ObjectBans


class _Recorder:
    site_root = "/nowhere"
    events: list = []


def _module(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), vars(module))
    return module


@pytest.fixture
def tree(monkeypatch):
    """``fake_tree`` (a function, a class), ``fake_tree.inner`` (a function), and a look-alike
    ``fake_tree_other`` outside the tree, loaded in ``sys.modules``."""
    modules = {
        "fake_tree": _module(
            "fake_tree", "def top():\n    return 1\nclass Kind:\n    def method(self):\n        return 2\n"
        ),
        "fake_tree.inner": _module("fake_tree.inner", "def deep():\n    return 3\n"),
        "fake_tree_other": _module("fake_tree_other", "def outside():\n    return 4\n"),
    }
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    return modules


def _codes(modules) -> dict[str, types.CodeType]:
    return {
        "top": modules["fake_tree"].top.__code__,
        "method": modules["fake_tree"].Kind.method.__code__,
        "deep": modules["fake_tree.inner"].deep.__code__,
        "outside": modules["fake_tree_other"].outside.__code__,
    }


def _swapped(before: dict, modules) -> set[str]:
    """The names of ``before``'s functions whose code is not what it was."""
    now = _codes(modules)
    return {name for name, code in before.items() if now[name] is not code}


def test_every_function_of_the_tree_is_swapped_and_given_back(tree):
    bans = ObjectBans(_Recorder())
    before = _codes(tree)
    loaded = bans.ban_trees(("fake_tree",))
    assert set(loaded) == {"fake_tree", "fake_tree.inner"}
    assert _swapped(before, tree) == {"top", "method", "deep"}
    assert tree["fake_tree"].top() == 1  # not graded code: the original runs
    bans.lift()
    assert _codes(tree) == before


def test_a_function_the_module_gains_later_is_banned_at_the_next_task(tree):
    bans = ObjectBans(_Recorder())
    bans.ban_trees(("fake_tree",))
    bans.lift()
    exec(compile("def later():\n    return 5\n", "<fake_tree.inner>", "exec"), vars(tree["fake_tree.inner"]))
    original = tree["fake_tree.inner"].later.__code__
    bans.ban_trees(("fake_tree",))
    assert tree["fake_tree.inner"].later.__code__ is not original
    bans.lift()
    assert tree["fake_tree.inner"].later.__code__ is original


def test_a_module_loaded_again_under_the_same_name_is_read_again(tree, monkeypatch):
    bans = ObjectBans(_Recorder())
    bans.ban_trees(("fake_tree",))
    bans.lift()
    fresh = _module("fake_tree.inner", "def deep():\n    return 30\n")
    monkeypatch.setitem(sys.modules, "fake_tree.inner", fresh)
    original = fresh.deep.__code__
    bans.ban_trees(("fake_tree",))
    assert fresh.deep.__code__ is not original
    bans.lift()
    assert fresh.deep.__code__ is original


def test_two_trees_in_one_pass_and_a_none_entry(tree, monkeypatch):
    monkeypatch.setitem(sys.modules, "fake_tree.inner.missing", None)  # a failed import's marker
    bans = ObjectBans(_Recorder())
    before = _codes(tree)
    loaded = bans.ban_trees(("fake_tree.inner", "fake_tree_other"))
    assert set(loaded) == {"fake_tree.inner", "fake_tree.inner.missing", "fake_tree_other"}
    assert _swapped(before, tree) == {"deep", "outside"}
    bans.lift()
    assert _codes(tree) == before


def test_a_module_of_the_tree_that_takes_another_ones_place_is_banned_at_the_next_task(tree, monkeypatch):
    """The modules of a tree are read again whenever the names ``sys.modules`` holds changed, even
    if their number did not."""
    bans = ObjectBans(_Recorder())
    bans.ban_trees(("fake_tree",))
    bans.lift()
    newcomer = _module("fake_tree.newcomer", "def new():\n    return 6\n")
    monkeypatch.delitem(sys.modules, "fake_tree_other")
    monkeypatch.setitem(sys.modules, "fake_tree.newcomer", newcomer)
    original = newcomer.new.__code__
    assert "fake_tree.newcomer" in bans.ban_trees(("fake_tree",))
    assert newcomer.new.__code__ is not original
    bans.lift()
    assert newcomer.new.__code__ is original
