"""Mars Attacks as every layer above the engine sees it: :data:`GAME`, registered in
:mod:`marsdice.games`.

- Settings to and from plain parameters, records (the deal kept as ``Stack`` tags, the card
  set pinned by a content hash), commentary rendered from the engine's events.
- Player views: :meth:`MarsAttacks.observe` shows the face-up cards, tokens, owned cards, the
  stacks' *sizes*, the box's size, the dice and the target, never the order of the face-down
  cards nor what the box holds; in a redacted log Memphis's draw is only ``draw``.
- Integer encodings: a fixed player-action space and a fixed chance space per variant (see
  :meth:`MarsAttacks.num_actions` and :meth:`MarsAttacks.num_chance_outcomes`).

>>> from marsdice.attacks.setup import new_game
>>> from marsdice.attacks.variant import Variant
>>> stacks = [["Miami", "Dallas"], ["Phoenix"], ["San Jose"], ["Atlanta"]]
>>> state = new_game(Variant(players=2), stacks)
>>> moves = ["@miami", "HHHHHRRRRN", "@phoenix", "HHHHHHHHRN", "stop"]
>>> record = GAME.make_record(("Ann", "Bob"), state, moves)
>>> print(GAME.dumps(record))  # doctest: +NORMALIZE_WHITESPACE
[Game "attacks"]
[Player1 "Ann"]
[Player2 "Bob"]
[Difficulty "easy"]
[Bombed "last-roll"]
[Reroll "all"]
[EndStacks "2"]
[Seattle "start"]
[Denver "turn"]
[Cards "builtin:7aaa2a927ef2"]
[Stack1 "miami,dallas"]
[Stack2 "phoenix"]
[Stack3 "san-jose"]
[Stack4 "atlanta"]
[Result "Ann 1 (1 card), Bob 0 (0 cards): unfinished"]
<BLANKLINE>
@miami HHHHHRRRRN ; Ann captures Miami (4 ray guns, needs 3): +1 VP, total 1
@phoenix HHHHHHHHRN stop ; Bob stops on Phoenix: token at 1
<BLANKLINE>
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from itertools import repeat
from math import comb
from typing import ClassVar, Final

from marsdice.attacks.actions import (
    ACTION_TYPES,
    HIDDEN_DRAW,
    PASS,
    RESTART,
    STOP,
    Action,
    BostonMove,
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
)
from marsdice.attacks.cards import (
    Ability,
    Card,
    CardError,
    Symbol,
    builtin_cards,
    card_from_tag,
    card_tag,
    cards_hash,
    parse_cards,
)
from marsdice.attacks.events import (
    Bombed,
    BostonMoved,
    Captured,
    DenverRestarted,
    EndTriggered,
    ExtraTurn,
    MemphisDrawn,
    NewYorkBack,
    OklahomaCycled,
    Stopped,
    TokenLost,
    TokenPlaced,
    TorontoUsed,
    TurnPassed,
    VegasBomb,
    VegasNoToken,
)
from marsdice.attacks.setup import deal, new_game
from marsdice.attacks.state import State, _slug_index, as_state
from marsdice.attacks.variant import (
    DICE,
    FACES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    STACKS,
    SWITCHES,
    DenverRule,
    Face,
    SeattleRule,
    Variant,
)
from marsdice.core.dice import compositions
from marsdice.core.errors import RecordError, VariantError
from marsdice.core.game import (
    JSON,
    ChanceMode,
    Event,
    Game,
    GameState,
    GameType,
    Information,
    JSONObject,
    Utility,
    viewer_seat,
    whole_number,
)
from marsdice.core.game import Action as AnyAction
from marsdice.core.game import Variant as AnyVariant
from marsdice.core.record import GameRecord
from marsdice.core.text import acts

#: the record tag of each switch (missing ``Seattle`` / ``Denver`` tags: see :data:`LEGACY`)
SWITCH_TAGS: Final = {
    "difficulty": "Difficulty",
    "bombed": "Bombed",
    "reroll": "Reroll",
    "seattle": "Seattle",
    "denver": "Denver",
}
#: records written before a switch existed were played under the engine's rule of the time
LEGACY: Final = {
    "seattle": SeattleRule.AFTER_TARGET.value,
    "denver": DenverRule.TARGET.value,
}
#: the built-in card set's hash when records wrote plain ``[Cards "builtin"]``: such a record
#: replays only while the shipped set is still this one
LEGACY_BUILTIN_HASH: Final = "7aaa2a927ef2"
PARAMS: Final = ("players", "difficulty", "bombed", "reroll", "end_stacks", "seattle", "denver")
SYMBOL_WORDS: Final = {
    Symbol.RAY: "ray guns",
    Symbol.HEAD: "heads",
    Symbol.NUKE: "nukes",
    Symbol.BUST: "bombs",
}
#: verbs whose plain form is not the third person less its ``s``

#: reroll counts in the action space: slot 0 is every head, slot k (1-9) is k heads
REROLL_SLOTS: Final = DICE
#: chance indices: rolls of 1..10 dice, each in :func:`compositions` order
_ROLL_OFFSETS: Final = tuple(sum(comb(m + 2, 2) for m in range(1, n)) for n in range(DICE + 2))
ROLL_OUTCOMES: Final = _ROLL_OFFSETS[DICE + 1]

#: the moves one turn is counted as for :meth:`MarsAttacks.turn_moves` (random play averages
#: about 3; a turn has no bound of its own)
TURN_MOVES: Final = 30

#: face-down stacks and a box of unseen cards; the deal is hidden setup
GAME_TYPE: Final = GameType(
    information=Information.IMPERFECT,
    chance=ChanceMode.EXPLICIT,
    utility=Utility.SHARED_WIN,
    hidden_setup=True,
)


class MarsAttacks(Game):
    """Mars Attacks: The Dice Game (see ``docs/rules-attacks.md``)."""

    name: ClassVar[str] = "attacks"
    title: ClassVar[str] = "Mars Attacks: The Dice Game"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    game_type: ClassVar[GameType] = GAME_TYPE

    # -- variants --

    def default_variant(self, players: int) -> Variant:
        return Variant(players=players)

    def variant_to_params(self, variant: AnyVariant) -> JSONObject:
        """Every setting; ``cards`` is ``"builtin"`` or the cards in the card-file schema.

        >>> GAME.variant_to_params(Variant(players=2))["cards"]
        'builtin'
        """
        v = _variant(variant)
        params: JSONObject = {"players": v.players, "end_stacks": v.end_stacks}
        for name in SWITCHES:
            params[name] = str(getattr(v, name).value)
        cards: JSON = "builtin" if v.cards == builtin_cards() else [c.to_dict() for c in v.cards]
        params["cards"] = cards
        return {key: params[key] for key in (*PARAMS, "cards")}

    def variant_from_params(self, params: Mapping[str, JSON]) -> Variant:
        """Settings from plain values (missing ones: the defaults).

        >>> GAME.variant_from_params({"players": 4, "reroll": "subset"}).reroll.value
        'subset'
        >>> GAME.variant_from_params({"speed": 2})
        Traceback (most recent call last):
        ...
        marsdice.core.errors.VariantError: speed: not a Mars Attacks setting (settings: ...)
        """
        for key in params:
            if key not in (*PARAMS, "cards"):
                known = ", ".join((*PARAMS, "cards"))
                raise VariantError(f"{key}: not a Mars Attacks setting (settings: {known})", key)
        whole: dict[str, int] = {}
        for key in ("players", "end_stacks"):
            value = params.get(key, 3 if key == "players" else 2)
            number = whole_number(value)
            if number is None:
                raise VariantError(f"{key}: must be a whole number, got {value!r}")
            whole[key] = number
        switches: dict[str, str] = {}
        for key, enum in SWITCHES.items():
            value = params.get(key, next(iter(enum)).value)
            if not isinstance(value, str) or value not in {m.value for m in enum}:
                allowed = ", ".join(m.value for m in enum)
                raise VariantError(f"{key}: must be one of {allowed}, got {value!r}")
            switches[key] = value
        cards = _cards_param(params.get("cards", "builtin"))
        return Variant.from_values(whole["players"], whole["end_stacks"], cards, switches)

    def variant_schema(self) -> JSONObject:
        """Every setting with the seed's default and the limits :class:`Variant` checks;
        ``cards`` is ``"builtin"`` or a card list (the card-file schema, not repeated here).

        >>> GAME.variant_schema()["properties"]["end_stacks"]
        {'type': 'integer', 'default': 2, 'minimum': 1, 'maximum': 4}
        """
        default = Variant()
        properties: JSONObject = {
            "players": {
                "type": "integer",
                "default": default.players,
                "minimum": MIN_PLAYERS,
                "maximum": MAX_PLAYERS,
            },
            "end_stacks": {
                "type": "integer",
                "default": default.end_stacks,
                "minimum": 1,
                "maximum": STACKS,
            },
        }
        for name, enum in SWITCHES.items():
            values: list[JSON] = [member.value for member in enum]
            properties[name] = {
                "type": "string",
                "default": str(getattr(default, name).value),
                "enum": values,
            }
        properties["cards"] = {
            "description": "a custom card set, cards in the card-file schema "
            "(docs/rules-attacks.md, Card data), at least 4 per player; "
            '"builtin" or missing: the shipped set',
            "anyOf": [
                {"type": "string", "enum": ["builtin"]},
                {"type": "array", "items": {"type": "object"}, "minItems": 1},
            ],
        }
        return {
            "type": "object",
            "properties": {key: properties[key] for key in (*PARAMS, "cards")},
            "additionalProperties": False,
        }

    def variant_of(self, state: GameState) -> Variant:
        return as_state(state).variant

    # -- play --

    def start(self, variant: AnyVariant, rng: random.Random) -> State:
        """The opening, the four stacks dealt from a shuffle drawn from ``rng``."""
        v = _variant(variant)
        return new_game(v, deal(v, rng))

    def setup_tags(self, start: GameState) -> tuple[tuple[str, str], ...]:
        """The settings, the card set (the built-in one by its hash, a user's card by card)
        and the deal: each stack's cards, top first."""
        state = as_state(start)
        variant = state.variant
        tags = [(SWITCH_TAGS[name], str(getattr(variant, name).value)) for name in SWITCHES]
        tags.insert(3, ("EndStacks", str(variant.end_stacks)))
        if variant.cards == builtin_cards():
            tags.append(("Cards", f"builtin:{cards_hash(variant.cards)}"))
        else:
            tags.append(("Cards", str(len(variant.cards))))
            tags += [(f"Card{i}", card_tag(card)) for i, card in enumerate(variant.cards, 1)]
        tags += [
            (f"Stack{i}", ",".join(state.slug(c) for c in stack))
            for i, stack in enumerate(state.stacks, start=1)
        ]
        return tuple(tags)

    def opening(self, record: GameRecord) -> State:
        """The dealt opening of a record. Missing switch tags take the defaults, except
        ``Seattle`` and ``Denver``: a record older than those tags was played under the rules
        of its time (:data:`LEGACY`)."""
        if record.game != self.name:
            raise RecordError(f"not a {self.title} record: [Game {record.game!r}]")
        tags = record.tag_map
        try:
            switches = {
                name: tags.get(tag, LEGACY.get(name, next(iter(SWITCHES[name])).value))
                for name, tag in SWITCH_TAGS.items()
            }
            end_stacks = _int(tags.get("EndStacks", "2"), "EndStacks")
            cards = _record_cards(tags)
            variant = Variant.from_values(len(record.players), end_stacks, cards, switches)
        except VariantError as error:
            raise RecordError(f"bad variant in record: {error}") from error
        stacks = []
        for i in range(1, STACKS + 1):
            value = tags.get(f"Stack{i}")
            if value is None:
                raise RecordError(f"the record has no [Stack{i} ...] tag with the deal")
            stacks.append([name for name in value.split(",") if name])
        try:
            return new_game(variant, stacks)
        except VariantError as error:
            raise RecordError(f"bad deal in record: {error}") from error

    def describe_step(
        self, before: GameState, after: GameState, names: Sequence[str]
    ) -> str | None:
        """A line of commentary for each turn the step finished, from the turn's events."""
        first, last = as_state(before), as_state(after)
        finished = last.log[len(first.log) :]
        if not finished:
            return None
        return "; ".join(describe_turn(last, result.events, names) for result in finished)

    def result_text(self, state: GameState, names: Sequence[str]) -> str:
        """Totals with card counts, then the winner(s) and the tie-breaker used."""
        s = as_state(state)
        totals = ", ".join(
            f"{name} {score} ({len(cards)} card{'' if len(cards) == 1 else 's'})"
            for name, score, cards in zip(names, s.scores, s.owned, strict=True)
        )
        if not s.is_terminal:
            return f"{totals}: unfinished"
        winners = " and ".join(names[seat] for seat in s.winners)
        verb = "win" if len(s.winners) > 1 else acts(names[s.winners[0]], "win").split()[-1]
        return f"{totals}: {winners} {verb}{tie_break(s)}"

    # -- views --

    def view_text(self, view: JSONObject, *, counters: bool = True) -> str:
        """The position a view shows, one line (:func:`marsdice.attacks.encoding.view_text`)."""
        from marsdice.attacks.encoding import view_text

        return view_text(view, counters=counters)

    def hidden_text(self, state: GameState) -> str:
        """The face-down cards: each stack's cards from the top, then the box."""
        s = as_state(state)
        stacks = " ".join(
            f"{number}:{','.join(s.slug(card) for card in stack) or 'empty'}"
            for number, stack in enumerate(s.stacks, start=1)
        )
        return f"deck {stacks}, box {','.join(s.slug(card) for card in s.box) or 'empty'}"

    def observe(self, state: GameState, viewer: int | None) -> JSONObject:
        """What a seat (or a spectator, ``None``) sees: see the module. Everything in it is
        public: no face-down card, no box content, no Memphis draw."""
        s = as_state(state)
        viewer = viewer_seat(viewer, s.variant.players)
        view = self.common_view(s, viewer)
        view["phase"] = s.phase.value
        view["board"] = board(s)
        return view

    def turn_seat(self, state: GameState) -> int | None:
        """The seat playing its turn, also while its dice roll or Memphis draws."""
        s = as_state(state)
        return None if s.is_terminal else s.seat

    def next_seat(self, state: GameState) -> int | None:
        """The next seat in order; none when the last round ends with this turn. An extra
        turn (San Francisco, Indianapolis) is only known once its capture has happened."""
        seat = self.turn_seat(state)
        if seat is None:
            return None
        s = as_state(state)
        following = (seat + 1) % s.players
        return None if s.end_triggered and following == 0 else following

    def last_round(self, state: GameState) -> tuple[int, ...] | None:
        """Once the end is triggered: the seats from the one playing to the last (the round is
        completed up to the last seat; an extra turn earned on the way is played too)."""
        s = as_state(state)
        if not s.end_triggered or s.is_terminal:
            return None
        return tuple(range(s.seat, s.players))

    def tie_rule(self, state: GameState, seats: Sequence[int]) -> str:
        """Equal VP: more cards captured place first, then who reached the score first."""
        s = as_state(state)
        places = s.placings()
        by_cards: dict[int, set[int]] = {}
        for seat in seats:
            by_cards.setdefault(len(s.owned[seat]), set()).add(places[seat])
        return "reached_first" if any(len(got) > 1 for got in by_cards.values()) else "cards"

    def turn_moves(self, variant: AnyVariant) -> int:
        """A generous count (:data:`TURN_MOVES`): a Mars Attacks turn has no bound."""
        del variant
        return TURN_MOVES

    # -- the hidden deal --

    def setup_outcomes(
        self, variant: AnyVariant, dealt: Sequence[AnyAction]
    ) -> Sequence[tuple[AnyAction, Fraction]]:
        """The next card of the deal (one of those not dealt yet, uniformly: the same
        distribution as :meth:`start`'s shuffle), as a draw; nothing once the 4 stacks of
        one card per player are dealt."""
        v = _variant(variant)
        if len(dealt) >= STACKS * v.players:
            return ()
        taken = {action.card for action in dealt if isinstance(action, Draw)}
        left = [draw for draw in _deck(v.cards) if draw.card not in taken]
        return tuple(zip(left, repeat(_share(len(left)))))

    def start_from_setup(self, variant: AnyVariant, dealt: Sequence[AnyAction]) -> State:
        """The opening once the deal is done: stack k holds the k-th ``players`` cards."""
        v = _variant(variant)
        n = v.players
        if len(dealt) != STACKS * n:
            raise ValueError(f"the deal has {STACKS * n} cards, got {len(dealt)}")
        slugs = [
            action.card if isinstance(action, Draw) else action.text().removeprefix("draw:")
            for action in dealt
        ]
        return new_game(v, [slugs[i * n : (i + 1) * n] for i in range(STACKS)])

    # -- what a viewer saw, made whole again --

    def parse_public(self, state: GameState, text: str) -> AnyAction:
        """A face-down draw (``draw``) stands for any card of the box: the first will do."""
        s = as_state(state)
        if text == HIDDEN_DRAW and s.box:
            return Draw(s.slug(s.box[0]))
        return s.parse_action(text)

    def resample(
        self,
        variant: AnyVariant,
        public_log: Sequence[str],
        view: JSONObject,
        rng: random.Random,
        *,
        earlier: Mapping[int, JSON] | None = None,
    ) -> State:
        """The determinizer (:func:`marsdice.attacks.determinize.determinize`): exact in
        everything the viewer sees, the face-down cards a sample drawn with ``rng``; the
        face-up cards seen at ``earlier`` versions (:meth:`memo`) make that search direct."""
        from marsdice.attacks.determinize import determinize

        tops: dict[int, tuple[str | None, ...]] = {}
        for version, memo in (earlier or {}).items():
            if isinstance(memo, list):
                tops[version] = tuple(None if top is None else str(top) for top in memo)
        return determinize(_variant(variant), public_log, view, rng, tops=tops)

    def memo(self, view: JSONObject) -> JSON:
        """The face-up card of each stack (its name, None: empty): what :meth:`resample`
        narrows the deal with."""
        from marsdice.attacks.determinize import public_tops

        return list[JSON](public_tops(view))

    def redact(self, before: GameState, action: AnyAction, viewer: int | None) -> str:
        """Memphis's draw goes face down: everyone sees it as ``draw``."""
        del before, viewer
        return HIDDEN_DRAW if isinstance(action, Draw) else action.text()

    # -- encodings --

    def num_actions(self, variant: AnyVariant) -> int:
        """Player actions, in this order (``N`` cards in the set): ``@CARD`` per card (N),
        ``boston@CARD`` per card (N), ``seattle:F`` per face (3), ``toronto:F`` per face (3),
        ``pass``, ``restart``, ``stop``, then rerolls: 10 counts (every head, then 1-9 heads)
        times N + 1 switches (none, then per card), then ``memphis:1``-``memphis:4``."""
        return _Layout(len(_variant(variant).cards)).size

    def encode_action(self, state: GameState, action: AnyAction) -> int:
        s = as_state(state)
        layout = _Layout(len(s.variant.cards))
        if not isinstance(action, ACTION_TYPES) or isinstance(action, Roll | Draw):
            raise ValueError(f"{action.text()!r} is not a Mars Attacks player action")
        action = s.normalize(action)
        match action:
            case Target():
                return layout.target + _card_number(s, action.card)
            case BostonMove():
                return layout.boston + _card_number(s, action.card)
            case SeattleSet():
                return layout.seattle + action.face
            case TorontoReroll():
                return layout.toronto + action.face
            case Pass():
                return layout.word
            case Restart():
                return layout.word + 1
            case Stop():
                return layout.word + 2
            case Reroll():
                count = 0 if action.count is None else action.count
                if not 0 <= count < REROLL_SLOTS:
                    raise ValueError(f"{action.text()!r}: a reroll of 1-9 heads, or every head")
                switch = 0 if action.switch is None else 1 + _card_number(s, action.switch)
                return layout.reroll + count * (layout.cards + 1) + switch
            case MemphisPlace():
                if not 1 <= action.stack <= STACKS:
                    raise ValueError(f"{action.text()!r}: stacks are 1-{STACKS}")
                return layout.memphis + action.stack - 1
        raise ValueError(f"{action.text()!r} is not a Mars Attacks player action")

    def decode_action(self, state: GameState, index: int) -> Action:
        s = as_state(state)
        layout = _Layout(len(s.variant.cards))
        if not 0 <= index < layout.size:
            raise ValueError(f"action index {index} is out of range 0-{layout.size - 1}")
        if index < layout.boston:
            return Target(s.slug(index - layout.target))
        if index < layout.seattle:
            return BostonMove(s.slug(index - layout.boston))
        if index < layout.toronto:
            return SeattleSet(Face(index - layout.seattle))
        if index < layout.word:
            return TorontoReroll(Face(index - layout.toronto))
        if index < layout.reroll:
            return (PASS, RESTART, STOP)[index - layout.word]
        if index < layout.memphis:
            count, switch = divmod(index - layout.reroll, layout.cards + 1)
            return Reroll(count or None, s.slug(switch - 1) if switch else None)
        return MemphisPlace(index - layout.memphis + 1)

    def num_chance_outcomes(self, variant: AnyVariant) -> int:
        """Every roll of 1 to 10 dice (by dice rolled, then in :func:`compositions` order:
        285 in all), then a draw per card."""
        return ROLL_OUTCOMES + len(_variant(variant).cards)

    def encode_chance(self, state: GameState, outcome: AnyAction) -> int:
        s = as_state(state)
        if isinstance(outcome, Roll):
            dice = outcome.dice
            where = _roll_index(dice).get(outcome.counts)
            if not 1 <= dice <= DICE or where is None:
                raise ValueError(f"{outcome.text()!r} is not a roll of 1-{DICE} dice")
            return _ROLL_OFFSETS[dice] + where
        if isinstance(outcome, Draw):
            return ROLL_OUTCOMES + _card_number(s, outcome.card)
        raise ValueError(f"{outcome.text()!r} is not a Mars Attacks chance outcome")

    def decode_chance(self, state: GameState, index: int) -> Roll | Draw:
        s = as_state(state)
        size = ROLL_OUTCOMES + len(s.variant.cards)
        if not 0 <= index < size:
            raise ValueError(f"chance index {index} is out of range 0-{size - 1}")
        if index >= ROLL_OUTCOMES:
            return Draw(s.slug(index - ROLL_OUTCOMES))
        dice = max(n for n in range(1, DICE + 1) if _ROLL_OFFSETS[n] <= index)
        return Roll(_rolls(dice)[index - _ROLL_OFFSETS[dice]])


GAME: Final = MarsAttacks()


# --- the board a player sees ------------------------------------------------------------------


def board(state: State) -> JSONObject:
    """The public table: face-up cards with their data and tracks, each seat's tokens and
    cards, the stacks' sizes, the box's size, the nuke limit, the dice and the target."""
    players = range(state.players)

    def card_data(card: int) -> JSONObject:
        data = state.card(card).to_dict()  # with `placeholder`: which numbers are not printed
        data["slug"] = state.slug(card)
        return data

    stacks: list[JSON] = []
    for number, stack in enumerate(state.stacks, start=1):
        top: JSON = None
        if stack:
            face_up = card_data(stack[0])
            face_up["tokens"] = [state.token(seat, stack[0]) for seat in players]
            top = face_up
        stacks.append({"stack": number, "size": len(stack), "card": top})
    target = state.target
    return {
        "difficulty": state.variant.difficulty.value,
        "nuke_limit": state.nuke_limit,
        "stacks": stacks,
        "box": len(state.box),
        "seat": state.seat,
        "turn": state.turn,
        "extra_turn": state.bonus,
        "end_triggered": state.end_triggered,
        "tokens": [
            [{"card": state.slug(card), "value": value} for card, value in state.tokens[seat]]
            for seat in players
        ],
        "free_tokens": [state.free_tokens(seat) for seat in players],
        "owned": [[card_data(card) for card in state.owned[seat]] for seat in players],
        "reached": list[JSON](state.reached),
        "target": None if target is None else state.slug(target),
        "count": None if target is None else state.count(target),
        "dice": {
            "heads": state.heads,
            "rays": state.rays,
            "nukes": state.nukes,
            "rolls": state.rolls,
            "to_roll": state.to_roll,
            "set": None if state.set_face is None else state.set_face.letter,
            "warning": dice_warning(state),
        },
        "toronto_used": state.toronto_used,
        "denver_used": state.denver_used,
        "memphis_stack": None if state.memphis_stack is None else state.memphis_stack + 1,
    }


def dice_warning(state: State) -> str | None:
    """What the dice mean for the attacker now: ``"bombed"`` (this roll bombed them, or the
    nukes reached the limit), ``"safe"`` (Los Angeles: no bombing while targeting it),
    ``"one_nuke_left"`` (one more nuke bombs them), or None (no roll, or nothing to say)."""
    if state.rolls == 0:
        bombed = any(isinstance(e, Bombed) and not e.detroit for e in state.events)
        return "bombed" if bombed else None
    if state.target is not None and state.card(state.target).ability is Ability.LOS_ANGELES:
        return "safe"
    if state.nukes >= state.nuke_limit:
        return "bombed"
    return "one_nuke_left" if state.nuke_limit - state.nukes == 1 else None


# --- commentary ----------------------------------------------------------------------------------


def describe_turn(state: State, events: Sequence[Event], names: Sequence[str]) -> str:
    """A finished turn in words from its events (``state``: any later state, for card names):
    how it ended first, then what else happened, in order."""
    main: str | None = None
    notes: list[str] = []
    placed = {e.card: e.value for e in events if isinstance(e, TokenPlaced) and not e.kept}
    for event in events:
        text = _event_text(state, event, names, placed)
        if text is None:
            continue
        ends = isinstance(event, Bombed | Stopped | TurnPassed) or (
            isinstance(event, Captured) and main is None
        )
        if ends and main is None:
            main = text
        elif isinstance(event, TokenPlaced) and main is not None and notes == []:
            main += f"; {text}"
        else:
            notes.append(text)
    return "; ".join(part for part in (main, *notes) if part)


def _event_text(
    state: State, event: Event, names: Sequence[str], placed: Mapping[str, int]
) -> str | None:
    """One event of a turn in words (None: it goes without saying)."""
    cards = {card.slug: card for card in state.variant.cards}
    match event:
        case TurnPassed(seat=seat):
            return f"{acts(names[seat], 'have')} nothing to target"
        case Captured(seat=seat, card=slug, count=count, requirement=need, vp=vp, total=total):
            what = f"{count} {SYMBOL_WORDS[cards[slug].symbol]}"
            return (
                f"{acts(names[seat], 'capture')} {cards[slug].name} ({what}, needs {need}): "
                f"+{vp} VP, total {total}"
            )
        case Bombed(seat=seat, card=slug, detroit=True, count=count):
            what = f"{count} {SYMBOL_WORDS[cards[slug].symbol]}"
            return (
                f"{acts(names[seat], 'fail')} to take {cards[slug].name} in one turn ({what}): "
                "counts as bombed"
            )
        case Bombed(seat=seat, card=slug, nukes=nukes, limit=limit):
            return (
                f"{acts(names[seat], 'be bombed')} attacking {cards[slug].name} "
                f"({nukes} nukes, limit {limit})"
            )
        case Stopped(seat=seat, card=slug, count=count):
            if slug in placed:
                return f"{acts(names[seat], 'stop')} on {cards[slug].name}: token at {placed[slug]}"
            what = f"{count} {SYMBOL_WORDS[cards[slug].symbol]}"
            return f"{acts(names[seat], 'stop')} on {cards[slug].name} ({what}): nothing recorded"
        case TokenPlaced(card=slug, value=value, kept=True):
            return f"keeps progress: token on {cards[slug].name} at {value}"
        case TokenLost():
            return "no free token: the progress is lost"
        case VegasBomb(card=slug, value=value) if value < cards[slug].requirement:
            return f"{cards[slug].name}: token to {value}"
        case VegasNoToken(card=slug):
            return f"{cards[slug].name}: no free token to record the bomb"
        case ExtraTurn(card=slug):
            return f"{cards[slug].name}: extra turn"
        case OklahomaCycled():
            return "Oklahoma City: the other face-up cards go under their stacks"
        case MemphisDrawn(stack=stack):
            return f"Memphis: a card from the box goes under stack {stack}"
        case EndTriggered():
            return "the end is triggered: the round is completed"
        case NewYorkBack(card=slug, value=value):
            name = cards[slug].name
            return f"{name}: token back to {value}" if value else f"{name}: token removed"
        case BostonMoved(card=slug, value=value):
            return f"Boston: token on {cards[slug].name} to {value}"
        case TorontoUsed(face=letter):
            return f"Toronto: rerolls a {FACES_BY_LETTER[letter].word}"
        case DenverRestarted():
            return "Denver: bombed on the first roll, starts the turn again"
    return None


FACES_BY_LETTER: Final = {face.letter: face for face in FACES}


def tie_break(state: State) -> str:
    """How the winner was decided when the points tie: `` on cards``, `` (reached the score
    first)``, `` (tied)`` for a shared win, else nothing."""
    best = max(state.scores)
    tied = [seat for seat, score in enumerate(state.scores) if score == best]
    if len(tied) < 2 or len(state.winners) > 1:
        return " (tied)" if len(state.winners) > 1 else ""
    most = max(len(state.owned[seat]) for seat in tied)
    if sum(1 for seat in tied if len(state.owned[seat]) == most) == 1:
        return " on cards"
    return " (reached the score first)"


# --- helpers -------------------------------------------------------------------------------------


class _Layout:
    """Offsets of the player-action space for a set of ``cards`` cards."""

    def __init__(self, cards: int) -> None:
        self.cards = cards
        self.target = 0
        self.boston = cards
        self.seattle = 2 * cards
        self.toronto = self.seattle + len(FACES)
        self.word = self.toronto + len(FACES)  # pass, restart, stop
        self.reroll = self.word + 3
        self.memphis = self.reroll + REROLL_SLOTS * (cards + 1)
        self.size = self.memphis + STACKS


def _variant(variant: AnyVariant) -> Variant:
    if not isinstance(variant, Variant):
        raise TypeError(f"not a Mars Attacks variant: {type(variant).__name__}")
    return variant


def _card_number(state: State, slug: str) -> int:
    number = _slug_index(state.variant.cards).get(slug)
    if number is None:
        raise ValueError(f"no card called {slug!r} in this card set")
    return number


_deck_memo: tuple[tuple[Card, ...], tuple[Draw, ...]] = ((), ())


def _deck(cards: tuple[Card, ...]) -> tuple[Draw, ...]:
    """The draw of each card of a set, built once (for the last set, by identity: hashing
    the cards costs more than building the draws)."""
    global _deck_memo
    known, deck = _deck_memo
    if known is not cards:
        deck = tuple(Draw(card.slug) for card in cards)
        _deck_memo = (cards, deck)
    return deck


@cache
def _share(count: int) -> Fraction:
    """One draw's chance among ``count`` cards (made once per count: a Fraction costs
    microseconds to build, and the deal asks at every card)."""
    return Fraction(1, count)


@cache
def _rolls(dice: int) -> tuple[tuple[int, ...], ...]:
    return tuple(compositions(dice, len(FACES)))


@cache
def _roll_index(dice: int) -> dict[tuple[int, ...], int]:
    return {counts: i for i, counts in enumerate(_rolls(dice))} if 1 <= dice <= DICE else {}


def _cards_param(value: JSON) -> tuple[Card, ...]:
    if value == "builtin":
        return builtin_cards()
    if not isinstance(value, list):
        raise VariantError(f"cards: must be 'builtin' or a list of cards, got {value!r}")
    try:
        return parse_cards(value)
    except CardError as error:
        raise VariantError(f"cards: {error}") from None


def _record_cards(tags: Mapping[str, str]) -> tuple[Card, ...]:
    """The card set of a record: ``builtin:HASH`` (must be today's built-in set), plain
    ``builtin`` (records before the hash: accepted while the shipped set is unchanged), or a
    count followed by ``Card1``... tags."""
    value = tags.get("Cards", "builtin")
    if value.startswith("builtin"):
        _, _, pinned = value.partition(":")
        shipped = cards_hash(builtin_cards())
        wanted = pinned or LEGACY_BUILTIN_HASH
        if wanted != shipped:
            raise RecordError(
                f"[Cards {value!r}]: the record was made with a built-in card set of hash "
                f"{wanted}, this version ships {shipped}; replay it with the version that made "
                "it, or write its cards as Card tags"
            )
        return builtin_cards()
    count = _int(value, "Cards")
    cards = []
    for i in range(1, count + 1):
        text = tags.get(f"Card{i}")
        if text is None:
            raise RecordError(f"[Cards {value!r}] but no [Card{i} ...] tag")
        try:
            cards.append(card_from_tag(text, i))
        except CardError as error:
            raise RecordError(f"tag Card{i}: {error}") from error
    return tuple(cards)


def _int(value: str, key: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise RecordError(f"tag {key} must be a whole number, got {value!r}") from None


__all__ = [
    "GAME",
    "MarsAttacks",
    "board",
    "describe_turn",
    "tie_break",
]
