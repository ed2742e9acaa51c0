"""The README's library example runs and prints what its comments say."""

from __future__ import annotations

import re
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks, "the README shows the library in Python"
    out = StringIO()
    with redirect_stdout(out):
        exec(blocks[0], {})
    assert out.getvalue().split("\n")[:3] == [
        "2380",
        "['rays', 'humans', 'cows', 'chickens']",
        "(0, 0)",
    ]


def test_readme_game_contract_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 2, "the README shows the generic Game API"
    out = StringIO()
    with redirect_stdout(out):
        exec(blocks[1], {})
    lines = out.getvalue().split("\n")
    assert lines[1].startswith('{"game": "attacks"')
    assert lines[2] == '[Game "attacks"]'
