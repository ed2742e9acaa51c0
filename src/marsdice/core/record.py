"""Game records: a setup plus every action, in a human-readable text (PGN's spirit).

A record is a block of tag lines, then the moves: chance outcomes and player decisions in
their canonical notation, separated by whitespace. ``;`` starts a comment to the end of the
line and ``{...}`` is a comment, as in PGN; readers ignore both. A leading byte-order mark
is ignored; records over :data:`MAX_RECORD_BYTES` or :data:`MAX_RECORD_MOVES` are refused
(a real game is a few kilobytes: the limits keep a wrong or hostile file from taking minutes
and gigabytes to replay).

>>> record = GameRecord("martian", ("Ann", "Bob"), (("Target", "25"),), ("TTHHHHRRCCCKK", "humans"))
>>> print(record.dumps())
[Game "martian"]
[Player1 "Ann"]
[Player2 "Bob"]
[Target "25"]
<BLANKLINE>
TTHHHHRRCCCKK humans
<BLANKLINE>
>>> GameRecord.loads(record.dumps()) == record
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Final

from marsdice.core.errors import MarsDiceError, RecordError

if TYPE_CHECKING:
    from marsdice.core.game import GameState

_TAG: Final = re.compile(r'^\[(?P<key>[A-Za-z][A-Za-z0-9_]*)\s+"(?P<value>(?:[^"\\]|\\.)*)"\]$')
_PLAYER: Final = re.compile(r"^Player(?P<n>[1-9][0-9]*)$")
_COMMENTS: Final = re.compile(r"\{[^}]*\}|;[^\n]*")
_BOM: Final = "\ufeff"

#: the largest record file read, in bytes (and the longest record text, in characters)
MAX_RECORD_BYTES: Final = 1_000_000
#: the most moves a record may hold (chance outcomes and decisions together)
MAX_RECORD_MOVES: Final = 50_000


@dataclass(frozen=True, slots=True)
class GameRecord:
    """Which game, who played, the other tags (variant settings, seed, result), every move."""

    game: str
    players: tuple[str, ...]
    tags: tuple[tuple[str, str], ...] = ()
    moves: tuple[str, ...] = ()

    def tag(self, key: str, default: str | None = None) -> str | None:
        return dict(self.tags).get(key, default)

    @property
    def tag_map(self) -> Mapping[str, str]:
        return dict(self.tags)

    def with_moves(self, moves: Iterable[str]) -> GameRecord:
        """The same game with other moves (a truncated or edited record)."""
        return GameRecord(self.game, self.players, self.tags, tuple(moves))

    def dumps(self, lines: Sequence[tuple[int, str]] = ()) -> str:
        """The record as text. ``lines`` breaks the move text into lines: each entry is the
        number of moves on a line and a comment for it (a turn per line, say)."""
        out = [_tag("Game", self.game)]
        out += [_tag(f"Player{i}", name) for i, name in enumerate(self.players, start=1)]
        out += [_tag(key, value) for key, value in self.tags]
        out.append("")
        moves = list(self.moves)
        for count, comment in lines:
            chunk, moves = moves[:count], moves[count:]
            text = " ".join(chunk)
            out.append(f"{text} ; {comment}" if comment else text)
        if moves:
            out.append(" ".join(moves))
        return "\n".join(out) + "\n"

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        """Read a record; raises :class:`RecordError` naming the line at fault. A leading
        byte-order mark is skipped; a text over the size limits is refused."""
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError(f"the record is longer than the limit of {MAX_RECORD_BYTES:,} bytes")
        text = text.removeprefix(_BOM)
        tags: dict[str, str] = {}
        body: list[str] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not body and line.startswith("["):
                match = _TAG.match(line)
                if not match:
                    raise RecordError(
                        f'line {number}: a tag is written [Key "value"], got {line!r}'
                    )
                key = match["key"]
                if key in tags:
                    raise RecordError(f"line {number}: tag {key} appears twice")
                tags[key] = _unescape(match["value"])
            elif line or body:
                body.append(raw)
        game = tags.pop("Game", None)
        if not game:
            raise RecordError('the record has no [Game "..."] tag')
        players = _players(tags)
        moves = _COMMENTS.sub(" ", "\n".join(body)).split()
        if len(moves) > MAX_RECORD_MOVES:
            raise RecordError(
                f"the record has {len(moves):,} moves, more than the limit of {MAX_RECORD_MOVES:,}"
            )
        return cls(game, players, tuple(tags.items()), tuple(moves))


def read_record_file(path: Path) -> str:
    """The text of a record file, read in bounded memory: a file over
    :data:`MAX_RECORD_BYTES` (``/dev/zero`` included) or not UTF-8 text raises
    :class:`RecordError`; a byte-order mark is dropped. OS errors (a missing file, a folder)
    pass through as :class:`OSError`."""
    with path.open("rb") as stream:
        data = stream.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(
            f"{path} is larger than {MAX_RECORD_BYTES:,} bytes, the limit for a game record"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise RecordError(
            f"{path} is not a text record (not UTF-8 at byte {error.start})"
        ) from None
    if "\x00" in text:
        raise RecordError(f"{path} is not a text record (it holds NUL bytes)")
    return text


def replay_moves(start: GameState, moves: Sequence[str]) -> list[GameState]:
    """Apply each move's notation in turn from ``start``; return every state, start included.

    Raises :class:`RecordError` naming the move that fails.
    """
    states = [start]
    for index, move in enumerate(moves, start=1):
        state = states[-1]
        if state.is_terminal:
            raise RecordError(f"move {index} ({move!r}): the game was already over")
        try:
            states.append(state.apply(state.parse_action(move)))
        except MarsDiceError as error:
            raise RecordError(f"move {index} ({move!r}): {error}") from error
    return states


def commentary_lines(
    states: Sequence[GameState],
    names: Sequence[str],
    describe: Callable[[GameState, GameState, Sequence[str]], str | None],
) -> list[tuple[int, str]]:
    """Break a replayed game into lines for :meth:`GameRecord.dumps`: a line ends at each move
    ``describe`` comments on (a finished turn, say), with that comment."""
    lines: list[tuple[int, str]] = []
    count = 0
    for before, after in pairwise(states):
        count += 1
        comment = describe(before, after, names)
        if comment is not None:
            lines.append((count, comment))
            count = 0
    return lines


def _players(tags: dict[str, str]) -> tuple[str, ...]:
    numbered: dict[int, str] = {}
    for key in list(tags):
        match = _PLAYER.match(key)
        if match:
            numbered[int(match["n"])] = tags.pop(key)
    if not numbered:
        raise RecordError('the record names no players ([Player1 "..."])')
    if sorted(numbered) != list(range(1, len(numbered) + 1)):
        raise RecordError(f"player tags must be numbered 1..n, got {sorted(numbered)}")
    return tuple(numbered[i] for i in sorted(numbered))


def _tag(key: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{key} "{escaped}"]'


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)
