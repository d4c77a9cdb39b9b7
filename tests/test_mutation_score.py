"""benchmarks/mutation_score.py stays honest: every declared mutation's original snippet occurs
exactly once in geonh's source (a refactor that moves the code fails here, loudly, instead of
the mutation silently not being planted), and the harness refuses a snippet it cannot place."""
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _harness():
    spec = importlib.util.spec_from_file_location("mutation_score", ROOT / "benchmarks" / "mutation_score.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["mutation_score"] = mod      # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def test_every_snippet_occurs_exactly_once():
    ms = _harness()
    assert ms.snippet_problems(ROOT) == []
    assert len(ms.MUTATIONS) >= 20
    layers = {m.layer for m in ms.MUTATIONS}
    assert {"kernel", "transposition", "equations"} <= layers


def test_every_mutation_changes_its_file():
    ms = _harness()
    for m in ms.MUTATIONS:
        text = (ROOT / m.file).read_text(encoding="utf-8")
        assert ms.mutated_text(text, m) != text, m.name


def test_a_moved_snippet_is_refused(tmp_path):
    ms = _harness()
    m = ms.MUTATIONS[0]
    with pytest.raises(SystemExit, match="occurs 0 times"):
        ms.mutated_text("nothing here", m)
    original = m.edits[0][0]
    with pytest.raises(SystemExit, match="occurs 2 times"):
        ms.mutated_text(original + "\n" + original, m)
    (tmp_path / Path(m.file).parent).mkdir(parents=True)
    (tmp_path / m.file).write_text("refactored away\n")
    assert any("occurs 0 times" in p for p in ms.snippet_problems(tmp_path, (m,)))
    other = next(k for k in ms.MUTATIONS if k.file != m.file)
    assert any("does not exist" in p for p in ms.snippet_problems(tmp_path, (other,)))
