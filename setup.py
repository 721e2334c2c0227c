"""The wheel's build step that pyproject.toml cannot say: ``dtlab init`` needs the student's files
(the chapters' stubs, public tests and READMEs, ``exercises/pristine.json``, the workspace's
README), and they live outside the ``graders`` package. While building the wheel they are copied
into ``graders/_workspace/`` through the release's rules (``graders.authoring.workspace_files``:
no solution, no hidden grader). Everything else is in pyproject.toml; MANIFEST.in puts
``exercises/`` in the sdist, so that the sdist builds the same wheel."""

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithWorkspace(build_py):
    def run(self):
        super().run()
        if self.editable_mode:  # an install in place reads exercises/ where it is
            return
        sys.path.insert(0, str(HERE))  # this tree's graders (stdlib only at import)
        from graders.authoring import workspace_files

        workspace_files.pack(HERE, Path(self.build_lib) / "graders")


setup(cmdclass={"build_py": BuildWithWorkspace})
