"""Record text format: reading, errors that name the problem, replay failures."""

from __future__ import annotations

import pytest

from marsdice.core import RecordError
from marsdice.core.record import GameRecord
from marsdice.games import read_record
from marsdice.martian import GAME

GOOD = """[Game "martian"]
[Player1 "Ann"]
[Player2 "Bob"]
[Target "4"]

TTHHHHRRCCCKK humans roll { a comment } TRRRCCK rays stop ; Ann scores 4
TTTTTTTTTTTTT
"""


def test_read_and_replay_a_hand_written_record() -> None:
    game, record = read_record(GOOD)
    assert game is GAME
    assert record.players == ("Ann", "Bob")
    assert len(record.moves) == 7
    final = game.replay(record)[-1]
    assert final.is_terminal and final.winners == (0,)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Player1 "Ann"]\n\nstop', "no \\[Game"),
        ('[Game "martian"]\n\nstop', "names no players"),
        ('[Game "martian"]\n[Player2 "Bob"]\n', "numbered 1..n"),
        ('[Game "martian"]\n[Game "martian"]\n', "appears twice"),
        ('[Game "martian"\n', 'line 1: a tag is written \\[Key "value"\\]'),
        ('[Game "chess"]\n[Player1 "A"]\n', "unknown game 'chess'"),
    ],
)
def test_malformed_records_are_rejected(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        read_record(text)


def test_illegal_move_in_record_names_the_move() -> None:
    record = GameRecord.loads(GOOD.replace("TRRRCCK rays", "TRRRCCK humans"))
    with pytest.raises(RecordError, match=r"move 5 \('humans'\).*no humans were rolled"):
        GAME.replay(record)


def test_moves_after_the_end_are_rejected() -> None:
    record = GameRecord.loads(GOOD + "stop\n")
    with pytest.raises(RecordError, match="already over"):
        GAME.replay(record)


def test_bad_variant_tag() -> None:
    record = GameRecord.loads(GOOD.replace('"4"', '"four"'))
    with pytest.raises(RecordError, match="Target must be a whole number"):
        GAME.replay(record)
