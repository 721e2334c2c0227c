"""Wall time of `dtlab similarity` over a synthetic class.

.venv/bin/python bench/similarity.py [--students 300] [--chapter ch5]

Each synthetic student starts from the chapter's stubs and replaces every TODO with code of their
own: a body of 8 to 30 random statements of the shapes such code has (assignments, loops over
parameters, tensor calls, conditions). One student in ten hands in a copy of another's with its
variables renamed. Printed: the submissions, the flagged pairs (and how many of the planted
copies are among them) and the wall time of the comparison.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graders.grading.reports import similarity  # noqa: E402


def _statement(rng: random.Random, indent: str, names: list[str]) -> str:
    a, b = rng.sample(names, 2)
    shapes = (
        f"{a} = {b} {rng.choice('+-*')} {rng.randrange(100)}",
        f"{a} = torch.{rng.choice(['zeros', 'empty', 'ones'])}({b}, dtype=torch.float{rng.choice([32, 64])})",
        f"for {a} in range({rng.randrange(2, 9)}):\n{indent}    {b} = {b} + {a}",
        f"if {a} > {rng.randrange(10)}:\n{indent}    {b} = min({a}, {b})",
        f"dist.{rng.choice(['all_reduce', 'broadcast', 'barrier'])}({a}, group=self.group)",
        f"{a} = [{b} for {b} in self.params if {b}.{rng.choice(['grad', 'data'])} is not None]",
        f"{a} = {b}.{rng.choice(['view', 'reshape', 'narrow'])}({rng.randrange(4)}, {rng.randrange(8)})",
    )
    return indent + rng.choice(shapes)


def _student(stub: str, rng: random.Random) -> str:
    names = [f"{rng.choice(['x', 'buf', 'tmp', 'acc', 'part', 'n', 'k'])}{i}" for i in range(8)]
    out = []
    for line in stub.splitlines():
        if "[dtlab TODO]" in line:
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(_statement(rng, indent, names) for _ in range(rng.randrange(8, 31)))
        else:
            out.append(line)
    return "\n".join(out)


def _renamed(code: str, rng: random.Random) -> str:
    for name in sorted(set(re.findall(r"\b([a-z_][a-z0-9_]*[0-9])\b", code))):
        code = re.sub(rf"\b{name}\b", f"{name}_{rng.randrange(100)}", code)
    return code


def build_class(chapter: str, students: int, seed: int = 0) -> tuple[dict, set[tuple[str, str]]]:
    rng = random.Random(seed)
    sources = {p.name: p.read_text() for p in similarity.boilerplate_files(chapter)}
    submissions: dict[str, dict[str, bytes]] = {}
    copies = set()
    for i in range(students):
        name = f"s{i:03d}"
        if i % 10 == 9:
            original = f"s{i - 1:03d}"
            files = {f: _renamed(code.decode(), rng).encode() for f, code in submissions[original].items()}
            copies.add((original, name))
        else:
            files = {f: _student(code, rng).encode() for f, code in sources.items()}
        submissions[name] = files
    return submissions, copies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--chapter", default="ch5")
    args = parser.parse_args()
    submissions, copies = build_class(args.chapter, args.students)
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        found = similarity.compare(submissions, args.chapter, Path(out))
        seconds = time.perf_counter() - start
    flagged = {(p.first, p.second) for p in found.pairs}
    print(
        f"{found.compared} submissions of {args.chapter}: {len(found.pairs)} pairs flagged, "
        f"{len(copies & flagged)}/{len(copies)} planted copies among them; {seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
