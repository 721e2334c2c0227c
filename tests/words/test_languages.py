"""A third language is one more catalogue, and no Python.

A copy of the kit gets ``graders/words/catalogues/fr.po``, a French catalogue of the kit's domain
that translates two words. Then ``fr`` is a language of the kit: ``--lang fr`` is accepted, the
points table reads those words in French, and everything not translated yet (the other words, the
chapters' messages and hints) reads in English.
"""

import pytest

pytestmark = pytest.mark.slow

FRENCH = """msgid ""
msgstr ""
"Language: fr\\n"
"Content-Type: text/plain; charset=utf-8\\n"

msgctxt "word:passed"
msgid "passed"
msgstr "réussi"

msgctxt "word:total"
msgid "total"
msgstr "total général"
"""

PROBE = """
from graders.words.vocabulary import LANGS, t
from graders.words.messages import say
from graders.words import hints
print(LANGS)
print(t("passed", "fr"), "|", t("failed", "fr"))
print(say("ch2:result", rank=1).in_lang("fr"))
print(hints.hints("ch2.ring_shift", "fr")[0] == hints.hints("ch2.ring_shift", "en")[0])
"""


def test_a_third_language_is_one_catalogue(tmp_path, copy_kit, run_in):
    kit = copy_kit(tmp_path)
    (kit / "graders" / "words" / "catalogues" / "fr.po").write_text(FRENCH, encoding="utf-8")
    said = run_in(kit, "-c", PROBE).stdout.splitlines()
    assert said == ["('en', 'fr', 'vi')", "réussi | failed", "rank 1's result", "True"]
    table = run_in(
        kit, "-m", "pytest", "exercises/ch2", "-k", "ring_shift", "--impl", "solutions", "--lang", "fr", "-q"
    ).stdout
    assert "ch2.ring_shift" in table and "réussi" in table and "total général" in table
