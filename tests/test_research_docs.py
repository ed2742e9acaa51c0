"""docs/research.md: its examples run, its tables match the code, the example script runs,
and the adapters stay lazy (nothing imports OpenSpiel, PettingZoo or Gymnasium until asked)."""

from __future__ import annotations

import re
import subprocess
import sys
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "research.md"
EXTRAS = ("pyspiel", "open_spiel", "pettingzoo", "gymnasium", "numpy")


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def run(code: str) -> str:
    out = StringIO()
    with redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "research_doc"})
    return out.getvalue()


def test_the_doc_has_one_example_per_interface_the_encoder_and_training() -> None:
    found = blocks()
    assert len(found) == 5
    assert "pyspiel" in found[0] and "pettingzoo" in found[1] and "gymnasium" in found[2]


@pytest.mark.parametrize("index", range(5))
def test_doc_examples_run(index: int) -> None:
    pytest.importorskip("pyspiel", reason="the research extra is not installed")
    lines = run(blocks()[index]).splitlines()
    if index == 0:  # OpenSpiel: the game type, then a finished game's returns
        assert lines[0] == "Information.PERFECT_INFORMATION Utility.CONSTANT_SUM"
        assert sorted(eval(lines[1])) == [0.0, 1.0]
    elif index == 1:  # PettingZoo: the rewards of a finished three-player game
        assert sum(eval(lines[-1]).values()) == pytest.approx(1.0)
    elif index == 2:  # Gymnasium: the last reward and the scores
        assert lines[-1].split()[0] in {"0.0", "1.0"}
    elif index == 3:
        assert lines == ["30 ('score seat+0', 'score seat+1', 'turns seat+0', 'turns seat+1')"]
    else:  # the training example: greedy Q-learning's wins against random
        found = re.fullmatch(r"Q-learning won (\d+) of 100 against random", lines[-1])
        assert found is not None and 0 <= int(found.group(1)) <= 100


def test_the_documented_sizes_and_action_counts_are_the_codes() -> None:
    from marsdice.adapters.encoding import encoder
    from marsdice.games import get_game

    text = DOC.read_text()
    martian, attacks = get_game("martian"), get_game("attacks")
    for players in (1, 2, 5):
        variant = martian.variant_from_params({"players": players})
        assert encoder(martian, variant, 100).size == 5 * players + 20
    for players in (2, 3, 6):
        variant = attacks.variant_from_params({"players": players})
        cards = len(variant.cards)  # type: ignore[attr-defined]
        size = 6 * players + 20 + cards * (2 * players + 5) + 15
        assert encoder(attacks, variant, 100).size == size
        assert attacks.num_actions(variant) == 12 * cards + 23
    two = attacks.variant_from_params({"players": 2})
    assert "308 for two" in text and encoder(attacks, two, 100).size == 308
    assert "371 for the built-in 29" in text and attacks.num_actions(two) == 371
    labels = encoder(martian, martian.variant_from_params({"players": 3}), 100).labels
    assert labels[3 * 3 + 5] == "set aside tank" and labels[5 * 3 + 18] == "target"
    labels = encoder(attacks, attacks.variant_from_params({"players": 3}), 100).labels
    assert labels[6 * 3 + 20] == "seattle: face up on stack 1"
    assert labels[6 * 3 + 20 + 29 * (2 * 3 + 5)] == "target count"


def test_the_doc_ends_with_the_game_review_pointer() -> None:
    text = DOC.read_text().rstrip()
    tail = text[text.rindex("\n## ") + 1 :]
    assert tail.startswith("## Game review") and "review.md" in tail
    assert "RESULTS" not in text, "the measured table replaces the placeholder"


def test_the_example_script_runs() -> None:
    pytest.importorskip("pyspiel", reason="the research extra is not installed")
    script = ROOT / "examples" / "openspiel_mcts.py"
    args = ["--games", "1", "--simulations", "4", "--target", "5", "--opponent", "random"]
    out = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, check=True
    )
    assert "MCTS (4 simulations) won" in out.stdout


def _modules_after(code: str) -> list[str]:
    probe = f"import sys; {code}; print(sorted(m for m in {EXTRAS!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return eval(out.stdout)  # type: ignore[no-any-return]


def test_the_adapters_package_and_the_cli_import_no_research_library() -> None:
    assert _modules_after("import marsdice, marsdice.adapters") == []
    assert _modules_after("import marsdice.adapters.encoding, marsdice.adapters.common") == []
    assert _modules_after("from marsdice.cli.main import build_parser; build_parser()") == []


def test_a_submodule_imports_its_library() -> None:
    pytest.importorskip("pyspiel", reason="the research extra is not installed")
    assert "pyspiel" in _modules_after("import marsdice.adapters.openspiel")
    assert "pettingzoo" in _modules_after("import marsdice.adapters.pettingzoo")
    assert "gymnasium" in _modules_after("import marsdice.adapters.gymnasium")
    assert "pettingzoo" in _modules_after("import marsdice.adapters as a; a.pettingzoo.env")


@pytest.mark.parametrize(
    ("submodule", "library"),
    [("openspiel", "pyspiel"), ("pettingzoo", "pettingzoo"), ("gymnasium", "gymnasium")],
)
def test_without_the_extra_the_error_is_one_line_naming_the_install(
    submodule: str, library: str
) -> None:
    code = (
        f"import sys; sys.modules[{library!r}] = None\n"
        "from marsdice.adapters import ResearchExtraMissing\n"
        "try:\n"
        f"    import marsdice.adapters.{submodule}\n"
        "except ResearchExtraMissing as error:\n"
        "    print(error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"{library} is not installed: the research interfaces need " + (
        "pip install 'marsdice[research]'\n"
    )
