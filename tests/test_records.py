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


#: records written by the engine before it had events (seeded random play): commentary and
#: Result drawn from today's events must reproduce them byte for byte
ROLLOFF_RECORD = """\
[Game "martian"]
[Player1 "You"]
[Player2 "P1"]
[Player3 "P2"]
[Player4 "P3"]
[Player5 "P4"]
[Target "3"]
[Dice "6"]
[RolloffDice "5"]
[RolloffMode "single"]
[Seed "29"]
[Result "You 0, P1 2, P2 3, P3 1, P4 3: P4 wins"]

TTRHHC rays stop ; You scores 0 (1 rays vs 2 tanks), total 0
TRRHHK humans roll RHK rays stop ; P1 scores 2 (stopped), total 2
HHCCKK humans roll RRRC cows roll RRC rays roll H ; P2 scores 3 (no choice), total 3
TRRRCK rays roll TC cows ; P3 scores 1 (no dice), total 1
RHHHKK humans stop ; P4 scores 3 (stopped), total 3
RKKKK ; roll-off: P2 rolls 1 death rays
RRKKK ; roll-off: P4 rolls 2 death rays
"""
LAST_ROUND_RECORD = """\
[Game "martian"]
[Player1 "You"]
[Player2 "P1"]
[Player3 "P2"]
[Player4 "P3"]
[Player5 "P4"]
[Target "10"]
[Dice "7"]
[RolloffDice "5"]
[RolloffMode "single"]
[Seed "285"]
[Result "You 2, P1 7, P2 1, P3 10, P4 4: P3 wins"]

TTRRRHH humans stop ; You scores 0 (0 rays vs 2 tanks), total 0
TRRHKKK rays roll RRCK rays stop ; P1 scores 0 (stopped), total 0
TRRHHHK rays stop ; P2 scores 0 (stopped), total 0
RHHCKKK chickens roll RRHK humans roll RCC cows stop ; P3 scores 9 (stopped, +3 bonus), total 9
RRRRRRC rays roll T ; P4 scores 0 (no choice), total 0
TTRRRHC cows roll TRCC rays roll TR rays ; You scores 0 (2 rays vs 4 tanks), total 0
HHHCCKK chickens stop ; P1 scores 2 (stopped), total 2
TTRHCCK rays roll TRRC cows roll RC rays roll R rays ; P2 scores 1 (no dice), total 1
TTRRHCK cows stop ; P3 scores 0 (0 rays vs 2 tanks), total 9
TRRHCKK rays roll TRRC cows roll TR rays ; P4 scores 1 (no dice), total 1
RRRHCKK humans stop ; You scores 1 (stopped), total 1
RRRRHHC cows roll TRRRKK rays roll TC ; P1 scores 1 (no choice), total 3
TTTRRCC rays roll TK chickens ; P2 scores 0 (2 rays vs 4 tanks), total 1
TRRRHKK humans stop ; P3 scores 0 (0 rays vs 1 tanks), total 9
RHHHKKK chickens roll RRHK rays roll RR rays ; P4 scores 3 (no dice), total 4
TTRRCCC rays stop ; You scores 0 (stopped), total 1
TRRRHKK rays roll THH humans ; P1 scores 2 (no dice), total 5
TRRHCCC humans roll TTRCK chickens stop ; P2 scores 0 (0 rays vs 3 tanks), total 1
RHHCKKK chickens roll THHC cows stop ; P3 scores 0 (0 rays vs 1 tanks), total 9
TTHKKKK humans stop ; P4 scores 0 (0 rays vs 2 tanks), total 4
TRRHCKK rays roll RRHC humans roll RHK rays stop ; You scores 1 (stopped), total 2
RRRHCCK cows roll TTRRC rays stop ; P1 scores 2 (stopped), total 7
TTTRRRC rays stop ; P2 scores 0 (stopped), total 1
TRRRHHC cows roll TTRRR rays ; P3 scores 1 (no dice), total 10
TTRCCCK cows roll HK chickens stop ; P4 scores 0 (0 rays vs 2 tanks), total 4
"""
SOLO_RECORD = """\
[Game "martian"]
[Player1 "P0"]
[Target "27"]
[Dice "5"]
[RolloffDice "3"]
[RolloffMode "repeat"]
[Seed "284"]
[Result "P0 27: reached in 37 turns"]

RRHHC rays stop ; P0 scores 0 (stopped), total 0
TTRRR rays ; P0 scores 0 (no dice), total 0
RRRCK rays stop ; P0 scores 0 (stopped), total 0
RHHKK rays roll RRRC rays stop ; P0 scores 0 (stopped), total 0
TRHKK chickens roll RH rays stop ; P0 scores 2 (stopped), total 2
TRHCC rays stop ; P0 scores 0 (stopped), total 2
TRRCK chickens roll RHK rays roll RC cows roll H humans ; P0 scores 6 (no dice, +3 bonus), total 8
TRRKK rays stop ; P0 scores 0 (stopped), total 8
TTRRH humans roll TR rays ; P0 scores 0 (1 rays vs 3 tanks), total 8
TRRHC humans roll RRC rays stop ; P0 scores 1 (stopped), total 9
TRRCC cows roll RC rays stop ; P0 scores 2 (stopped), total 11
RHCKK chickens stop ; P0 scores 2 (stopped), total 13
RRCKK rays roll HHK humans roll C cows ; P0 scores 3 (no dice), total 16
TTRHH rays stop ; P0 scores 0 (1 rays vs 2 tanks), total 16
RRRRC rays stop ; P0 scores 0 (stopped), total 16
RRRRR rays ; P0 scores 0 (no dice), total 16
TTRCK rays stop ; P0 scores 0 (1 rays vs 2 tanks), total 16
RCCCK chickens stop ; P0 scores 1 (stopped), total 17
RRHCK chickens stop ; P0 scores 1 (stopped), total 18
RHCKK humans roll TRRH rays stop ; P0 scores 1 (stopped), total 19
RHHCK rays roll RHCC rays stop ; P0 scores 0 (stopped), total 19
TTRKK rays stop ; P0 scores 0 (1 rays vs 2 tanks), total 19
RHHCK cows roll TTRR rays ; P0 scores 1 (no dice), total 20
TRRCK chickens stop ; P0 scores 0 (0 rays vs 1 tanks), total 20
TRRKK rays roll RR rays ; P0 scores 0 (no dice), total 20
RRRHK humans stop ; P0 scores 1 (stopped), total 21
THCKK chickens stop ; P0 scores 0 (0 rays vs 1 tanks), total 21
TRKKK chickens roll T ; P0 scores 0 (0 rays vs 2 tanks), total 21
RRCCK cows stop ; P0 scores 2 (stopped), total 23
TRRRK chickens stop ; P0 scores 0 (0 rays vs 1 tanks), total 23
TRHHC rays roll TRR rays ; P0 scores 0 (no dice), total 23
TTRRH humans roll CC cows ; P0 scores 0 (0 rays vs 2 tanks), total 23
THHCK chickens stop ; P0 scores 0 (0 rays vs 1 tanks), total 23
RCCCC rays roll TRHH rays roll CK chickens stop ; P0 scores 1 (stopped), total 24
RRRCK cows roll RRHK chickens stop ; P0 scores 2 (stopped), total 26
TRRRK rays roll T ; P0 scores 0 (no choice), total 26
RRRHC rays roll RK chickens roll K ; P0 scores 1 (no choice), total 27
"""


@pytest.mark.parametrize("text", [ROLLOFF_RECORD, LAST_ROUND_RECORD, SOLO_RECORD, GOOD])
def test_records_written_before_events_are_reproduced(text: str) -> None:
    record = GameRecord.loads(text)
    again = GAME.make_record(
        record.players,
        GAME.opening(record),
        record.moves,
        [(k, v) for k, v in record.tags if k == "Seed"],
    )
    if text is GOOD:
        assert GAME.replay(again)[-1] == GAME.replay(record)[-1]
    else:
        assert GAME.dumps(again) == text
