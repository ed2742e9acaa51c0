"""The observation vector of any registered game: its registration's ``encoder`` provider
(``docs/research.md`` lists what each index means). The encoders live with their games;
:class:`~marsdice.core.encoding.Encoder` is their shared shape. Standard library only.

>>> import random
>>> from marsdice.games import get_game
>>> game = get_game("martian")
>>> variant = game.variant_from_params({"players": 2})
>>> enc = encoder(game, variant, max_moves=100)
>>> enc.size, enc.labels[:3]
(30, ('score seat+0', 'score seat+1', 'turns seat+0'))
>>> state = game.start(variant, random.Random(0))
>>> enc.encode(game.observe(state, 1))[:8]
[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

from marsdice.core.encoding import Encoder
from marsdice.core.game import Game, Variant
from marsdice.games import provider


def encoder(game: Game, variant: Variant, max_moves: int, turn_counters: bool = True) -> Encoder:
    """The encoder of a game's variant; ``max_moves`` bounds the counters (turns, rounds),
    ``turn_counters=False`` leaves them out (:meth:`Encoder.without_counters`)."""
    made = provider(game, "encoder")(variant, max_moves)
    if not isinstance(made, Encoder):
        raise TypeError(f"{game.title}'s encoder provider made a {type(made).__name__}")
    return made if turn_counters else made.without_counters()


__all__ = ["Encoder", "encoder"]


class PicklesWithoutEncoder:
    """For the environments: pickled without their ``encoder`` (a closure), which is made
    again from their settings (``game``, ``variant``, ``max_moves``, ``turn_counters``)."""

    game: Game
    variant: Variant
    max_moves: int
    turn_counters: bool
    encoder: Encoder

    def __getstate__(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out.pop("encoder", None)
        return out

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self.encoder = encoder(self.game, self.variant, self.max_moves, self.turn_counters)
