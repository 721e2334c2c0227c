"""``python -P -m graders.grading.sandbox --probe``: print what :func:`.probe.probe` finds, as JSON.

Run by :func:`.probe.detect` in a fresh, single-threaded interpreter.
"""

import json
import sys

from graders.grading.sandbox.probe import probe

if sys.argv[1:] == ["--probe"]:
    print(json.dumps(probe().to_dict()))
