"""Mars Attacks: The Dice Game: the rules engine and its card data (standard library only).

Modules: :mod:`~marsdice.attacks.variant` (settings and dice), :mod:`~marsdice.attacks.cards`
(the card set as validated data), :mod:`~marsdice.attacks.actions` (actions and notation),
:mod:`~marsdice.attacks.events` (what a step did), :mod:`~marsdice.attacks.state` (the
position and its transitions), :mod:`~marsdice.attacks.abilities` (the named cards),
:mod:`~marsdice.attacks.setup` (the deal), :mod:`~marsdice.attacks.game` (the game as the
layers above see it: records, player views, encodings), :mod:`~marsdice.attacks.solver`.

>>> from marsdice.attacks import new_game, Variant
>>> new_game(Variant(players=4)).scores
(0, 0, 0, 0)
"""

from marsdice.attacks.actions import (
    HELP,
    PASS,
    RESTART,
    STOP,
    Action,
    BostonMove,
    Decision,
    Draw,
    MemphisPlace,
    Pass,
    Reroll,
    Restart,
    Roll,
    SeattleSet,
    Stop,
    Target,
    TorontoReroll,
    parse_decision,
    resolve_card,
)
from marsdice.attacks.cards import (
    Ability,
    Card,
    CardError,
    Kind,
    Symbol,
    builtin_cards,
    dumps_cards,
    load_cards,
    loads_cards,
)
from marsdice.attacks.phases import Outcome, Phase
from marsdice.attacks.setup import deal, new_game
from marsdice.attacks.state import State, TurnResult, as_state
from marsdice.attacks.variant import (
    DICE,
    FACES,
    TOKENS,
    BombedRule,
    DenverRule,
    Difficulty,
    Face,
    RerollRule,
    SeattleRule,
    Variant,
)

__all__ = [
    "DICE",
    "FACES",
    "HELP",
    "PASS",
    "RESTART",
    "STOP",
    "TOKENS",
    "Ability",
    "Action",
    "BombedRule",
    "BostonMove",
    "Card",
    "CardError",
    "Decision",
    "DenverRule",
    "Difficulty",
    "Draw",
    "Face",
    "Kind",
    "MemphisPlace",
    "Outcome",
    "Pass",
    "Phase",
    "Reroll",
    "RerollRule",
    "Restart",
    "Roll",
    "SeattleRule",
    "SeattleSet",
    "State",
    "Stop",
    "Symbol",
    "Target",
    "TorontoReroll",
    "TurnResult",
    "Variant",
    "as_state",
    "builtin_cards",
    "deal",
    "dumps_cards",
    "load_cards",
    "loads_cards",
    "new_game",
    "parse_decision",
    "resolve_card",
]
