"""The immutable Mars Attacks position and its transitions.

A turn: start-of-turn abilities (the owner's green cards, then New York), declare a target,
roll ten dice (chance), nukes and ray guns lock, then the roll is judged: bombed, captured, or
the player stops or rerolls the heads (possibly switching to another city). Every ability that
needs a decision is an action (its transitions are in :mod:`marsdice.attacks.abilities`);
every random event (dice, Memphis's card from the box) is an explicit chance node with exact
probabilities. Each step's :attr:`State.events` say what it did. See ``docs/rules-attacks.md``.

>>> from marsdice.attacks.setup import new_game
>>> from marsdice.attacks.variant import Variant
>>> stacks = [["Seattle", "Miami"], ["Boston", "Dallas"], ["Toronto", "Phoenix"], ["Denver"]]
>>> state = new_game(Variant(players=2), stacks)
>>> state.phase, [a.text() for a in state.legal_actions()]
(<Phase.TARGET: 'target'>, ['@seattle', '@boston', '@toronto', '@denver'])
>>> state = state.apply(state.parse_action("target boston"))
>>> state.is_chance_node, state.nuke_limit, [e.kind for e in state.events]
(True, 6, ['target-declared'])
>>> state = state.apply(state.parse_action("HHHRRRRRNN"))
>>> [a.text() for a in state.legal_actions()][:3]
['reroll', 'stop', 'reroll@seattle']
>>> state = state.apply(state.parse_action("reroll"))
>>> state = state.apply(state.parse_action("RNH"))
>>> [state.card(c).name for c in state.owned[0]], state.scores, state.seat
(['Boston'], (2, 0), 1)
>>> [e.kind for e in state.events][:4]
['rolled', 'captured', 'card-turned-up', 'turn-ended']
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache
from typing import Any, Final, TypeVar

from marsdice.attacks import abilities
from marsdice.attacks.actions import (
    ACTION_TYPES,
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
    parse_decision,
    resolve_card,
)
from marsdice.attacks.cards import Ability, Card, Kind, Symbol
from marsdice.attacks.events import (
    AbilityDeclined,
    Bombed,
    Captured,
    CardTurnedUp,
    EndTriggered,
    GameOver,
    Rerolling,
    Rolled,
    Stopped,
    TargetDeclared,
    TokenLost,
    TokenPlaced,
    TokensHome,
    TurnBegan,
    TurnEnded,
    TurnPassed,
)
from marsdice.attacks.phases import CHANCE_PHASES, Outcome, Phase
from marsdice.attacks.variant import (
    DICE,
    DIE,
    FACE_PROBABILITIES,
    FACES,
    TOKENS,
    BombedRule,
    Face,
    RerollRule,
    SeattleRule,
    Variant,
)
from marsdice.core.dice import Counts, dice_outcomes, roll_dice
from marsdice.core.drafts import Drafts
from marsdice.core.errors import IllegalActionError
from marsdice.core.game import CHANCE, TERMINAL, Event
from marsdice.core.game import Action as AnyAction

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How a finished turn went, with every event of the turn (for commentary)."""

    seat: int
    turn: int
    outcome: Outcome
    target: int | None = None
    count: int = 0
    dice: Counts = (0, 0, 0)
    limit: int = 0
    captured: tuple[int, ...] = ()
    token: tuple[int, int] | None = None
    events: tuple[Event, ...] = ()


Tokens = tuple[tuple[int, int], ...]  # (card, value) pairs, sorted by card


@dataclass(frozen=True, slots=True)
class State:
    """One immutable position. Build with :func:`marsdice.attacks.setup.new_game`; advance
    with :meth:`apply`.

    Cards are indices into ``variant.cards``; a stack lists its cards top (face-up) first.
    ``stacks`` below their top cards and ``box`` are hidden from the players: the engine
    holds them, :meth:`marsdice.attacks.game.MarsAttacks.observe` never shows them.
    """

    variant: Variant
    stacks: tuple[tuple[int, ...], ...]
    box: tuple[int, ...]
    tokens: tuple[Tokens, ...]
    owned: tuple[tuple[int, ...], ...]
    reached: tuple[int, ...]
    seat: int = 0
    phase: Phase = Phase.TARGET
    turn: int = 0
    rounds: int = 0
    extra: int = 0
    bonus: bool = False
    end_triggered: bool = False
    # the turn in progress
    target: int | None = None
    heads: int = 0
    rays: int = 0
    nukes: int = 0
    rolls: int = 0
    to_roll: int = 0
    set_face: Face | None = None
    fallback: tuple[int, int] | None = None
    toronto_used: bool = False
    denver_used: bool = False
    new_york_due: bool = False
    memphis_due: bool = False
    memphis_stack: int | None = None
    pending: TurnResult | None = None
    # what happened: in the step that made this state, and in the turn so far
    events: tuple[Event, ...] = ()
    turn_events: tuple[Event, ...] = ()
    # history and result
    log: tuple[TurnResult, ...] = ()
    winners: tuple[int, ...] = ()

    # -- protocol --

    @property
    def current_player(self) -> int:
        if self.phase is Phase.OVER:
            return TERMINAL
        if self.phase in CHANCE_PHASES:
            return CHANCE
        return self.seat

    @property
    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def is_chance_node(self) -> bool:
        return self.phase in CHANCE_PHASES

    @property
    def players(self) -> int:
        return self.variant.players

    def legal_actions(self) -> tuple[Action, ...]:
        global _last_legal
        known, actions = _last_legal
        if known is not self:  # asked for a choice, then again by apply to check it
            actions = self._legal_actions()
            _last_legal = (self, actions)
        return actions

    def _legal_actions(self) -> tuple[Action, ...]:
        """The choices, built once per variant and what decides them (the same tuple is
        handed out again: callers that encode it can keep the encoding by its identity)."""
        phase = self.phase
        if self.is_chance_node:
            return tuple(outcome for outcome, _ in self.chance_outcomes())
        if phase is Phase.TARGET:
            key: tuple[object, ...] = (phase, self.targets())
        elif phase is Phase.DECIDE:
            key = (phase, self.heads, self.switch_targets())
        elif phase is Phase.BOSTON:
            key = (phase, abilities.boston_cards(self))
        elif phase is Phase.TORONTO:
            key = (phase, *(count > 0 for count in self.dice))
        elif phase is Phase.MEMPHIS:
            key = (phase, *(bool(stack) for stack in self.stacks))
        else:
            key = (phase,)
        memo = _memo(self.variant)
        known = memo.get(key)
        if known is None:
            known = self._build_legal_actions()
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[key] = known
        return known  # type: ignore[return-value]

    def _build_legal_actions(self) -> tuple[Action, ...]:
        phase = self.phase
        table = _table(self.variant.cards)
        if phase is Phase.BOSTON:
            moves = tuple([table.boston_moves[c] for c in abilities.boston_cards(self)])
            return (*moves, PASS)
        if phase is Phase.TARGET:
            return tuple([table.target_moves[c] for c in self.targets()])
        if phase is Phase.SEATTLE:
            return (*(SeattleSet(face) for face in FACES), PASS)
        if phase is Phase.TORONTO:
            dice = self.dice
            return (*(TorontoReroll(face) for face in FACES if dice[face]), PASS)
        if phase is Phase.DENVER:
            return (RESTART, PASS)
        if phase is Phase.DECIDE:
            return self._decide_actions()
        if phase is Phase.MEMPHIS:
            return tuple(MemphisPlace(i + 1) for i, stack in enumerate(self.stacks) if stack)
        return ()

    def chance_outcomes(self) -> tuple[tuple[Roll | Draw, Fraction], ...]:
        """Every distinct outcome of the pending chance event, with its exact probability
        (Memphis's draws built once per variant and box)."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return _roll_outcomes(self.to_roll)
        if self.phase is Phase.MEMPHIS_DRAW:
            memo = _memo(self.variant)
            key = (Phase.MEMPHIS_DRAW, self.box)
            known = memo.get(key)
            if known is None:
                share = Fraction(1, len(self.box))
                known = tuple((Draw(self.card(c).slug), share) for c in self.box)
                if len(memo) >= MEMO_SIZE:
                    memo.clear()
                memo[key] = known
            return known  # type: ignore[return-value]
        return ()

    def sample_chance(self, rng: random.Random) -> Roll | Draw:
        """Roll the dice (one by one) or draw from the box with the given generator."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return Roll(roll_dice(rng, self.to_roll, DIE, len(FACES)))
        if self.phase is Phase.MEMPHIS_DRAW:
            return Draw(self.card(self.box[rng.randrange(len(self.box))]).slug)
        raise IllegalActionError(f"nothing random happens in phase {self.phase.value}")

    def parse_action(self, text: str) -> Action:
        """Read notation in context: face letters or ``draw:CARD`` at a chance node, a
        decision otherwise (see :data:`marsdice.attacks.actions.HELP`)."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return Roll.parse(text)
        if self.phase is Phase.MEMPHIS_DRAW:
            name = text.strip()
            name = name[5:] if name.lower().startswith("draw:") else name
            return Draw(resolve_card(name, self.variant.cards, [self.card(c) for c in self.box]))
        return self.normalize(parse_decision(text, self.variant.cards, self._preferred_cards()))

    def normalize(self, action: Action) -> Action:
        """The one value of a move written two ways: rerolling as many heads as are showing
        is ``Reroll(None)`` (every head). Used by :meth:`parse_action` and :meth:`apply`."""
        if isinstance(action, Reroll) and action.count is not None and action.count == self.heads:
            return Reroll(None, action.switch)
        return action

    def apply(self, action: AnyAction) -> State:
        """The state after ``action``; raises :class:`IllegalActionError` and changes nothing if
        the action is not legal here (or not a Mars Attacks action)."""
        phase = self.phase
        if not isinstance(action, ACTION_TYPES):
            raise self._illegal(action, "it is not a Mars Attacks action")
        if phase is Phase.OVER:
            raise self._illegal(action, "the game is over")
        action = self.normalize(action)
        if isinstance(action, Roll) and phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            counts = action.counts
            if len(counts) != 3 or min(counts) < 0 or sum(counts) != self.to_roll:
                raise self._illegal(action, f"the roll must show exactly {self.to_roll} dice")
            state = _copy(self)
            _SET_EVENTS(state, ())
            state._after_roll(counts)
            return state
        if isinstance(action, Draw) and phase is Phase.MEMPHIS_DRAW:
            index = self._index(action.card)
            if index is None or index not in self.box:
                raise self._illegal(action, "that card is not in the box")
            state = _copy(self)
            _SET_EVENTS(state, ())
            abilities.memphis_draw(state, index)
            return state
        if action not in self.legal_actions():
            raise self._illegal(action, self._why_not(action))
        state = _copy(self)
        _SET_EVENTS(state, ())
        match action:
            case BostonMove():
                abilities.boston_move(state, self._card_index(action.card))
            case Target():
                state._after_target(self._card_index(action.card))
            case SeattleSet():
                abilities.seattle_set(state, action.face)
            case TorontoReroll():
                abilities.toronto_reroll(state, action.face)
            case Restart():
                abilities.denver_restart(state)
            case Reroll():
                state._after_reroll(action)
            case Stop():
                state._stop()
            case MemphisPlace():
                abilities.memphis_place(state, action.stack)
            case Pass():
                state._after_pass()
            case _:
                raise self._illegal(action, f"it is not a move of the {phase.value} phase")
        return state

    def returns(self) -> tuple[float, ...]:
        """At the end: 1 shared among the winners, 0 to the rest; before the end: all zero."""
        if not self.is_terminal:
            return tuple(0.0 for _ in self.owned)
        share = 1.0 / len(self.winners)
        return tuple(share if seat in self.winners else 0.0 for seat in range(len(self.owned)))

    # -- views of the position --

    def card(self, index: int) -> Card:
        return self.variant.cards[index]

    def slug(self, index: int) -> str:
        return _table(self.variant.cards).slugs[index]

    @property
    def face_up(self) -> tuple[int | None, ...]:
        """The face-up card of each stack (``None`` for an empty stack)."""
        return _faces(self).face_up

    @property
    def nuke_limit(self) -> int:
        """Nuke symbols on the face-up cards plus the difficulty card's."""
        return _faces(self).nuke_limit

    @property
    def dice(self) -> Counts:
        """This turn's dice: heads showing, ray guns and nukes locked."""
        return (self.heads, self.rays, self.nukes)

    @property
    def scores(self) -> tuple[int, ...]:
        vps = _table(self.variant.cards).vps
        return tuple([sum([vps[c] for c in cards]) for cards in self.owned])

    @property
    def turns(self) -> tuple[int, ...]:
        """Turns each seat has finished (extra turns and passes included)."""
        counts = [0] * self.variant.players
        for result in self.log:
            counts[result.seat] += 1
        return tuple(counts)

    @property
    def empty_stacks(self) -> int:
        return sum(1 for stack in self.stacks if not stack)

    def targets(self) -> tuple[int, ...]:
        """Face-up cards that may be declared a target (all but Las Vegas)."""
        return _faces(self).targets

    def switch_targets(self) -> tuple[int, ...]:
        """Face-up cities other than the target: where a reroll may switch to."""
        cities = _table(self.variant.cards).cities
        target = self.target
        return tuple([c for c in self.targets() if c != target and cities[c]])

    def token(self, seat: int, card: int) -> int:
        """The value of ``seat``'s token on ``card`` (0 if none)."""
        for where, value in self.tokens[seat]:
            if where == card:
                return value
        return 0

    def free_tokens(self, seat: int) -> int:
        return TOKENS - len(self.tokens[seat])

    def owns(self, seat: int, ability: Ability) -> bool:
        abilities = _table(self.variant.cards).abilities
        return ability in map(abilities.__getitem__, self.owned[seat])

    def face_up_with(self, ability: Ability) -> int | None:
        """The face-up card with this ability, if any."""
        return _faces(self).with_ability.get(ability)

    def count(self, card: int, seat: int | None = None) -> int:
        """The count for ``card`` now: the token's value plus this turn's dice of its symbol."""
        seat = self.seat if seat is None else seat
        symbol = _table(self.variant.cards).symbols[card]
        if symbol is Symbol.RAY:
            dice = self.rays
        elif symbol is Symbol.NUKE:
            dice = self.nukes
        elif symbol is Symbol.HEAD:
            dice = self.heads
        else:
            dice = 0
        return self.token(seat, card) + dice

    def ranking_key(self, seat: int) -> tuple[int, int, int]:
        """Higher is better: VP, then cards, then who reached their score first."""
        return (self.scores[seat], len(self.owned[seat]), -self.reached[seat])

    def placings(self) -> tuple[int, ...]:
        """Final place of each seat by the ranking (ties share a place)."""
        keys = [self.ranking_key(seat) for seat in range(len(self.owned))]
        return tuple(1 + sum(1 for other in keys if other > key) for key in keys)

    @property
    def turns_left_in_round(self) -> int | None:
        """Once the end is triggered: regular turns still to come after this one."""
        if not self.end_triggered:
            return None
        return self.variant.players - 1 - self.seat

    # -- transitions (the abilities' own are in abilities.py) --
    #
    # A step copies the state once (:func:`_copy`) and the transitions below change that
    # private copy in place: nobody has seen it yet, and a frozen copy per change made
    # ``dataclasses.replace`` most of the engine's time. Each transition reads what it needs
    # before it changes a field. Only :meth:`apply`, :meth:`begin_turn` and
    # :meth:`start_from` hand out states.

    def begin_turn(self, seat: int, extra: int, bonus: bool) -> State:
        """The state after seat ``seat`` starts a turn (``bonus``: an extra turn, which starts
        no round)."""
        draft = _copy(self)
        draft._begin_turn(seat, extra, bonus)
        return draft

    def start_from(self, boston: bool, seattle: bool) -> State:
        """The state at the start of the turn, in the seed's order: the owner's green cards
        (Boston, then Seattle under the ``start`` rule), then New York (if still due), then
        the target."""
        draft = _copy(self)
        draft._start_from(boston, seattle)
        return draft

    def _put(self, **changes: Any) -> None:
        """Set fields of a draft (see :func:`_copy`); never of a state handed out."""
        for name, value in changes.items():
            _SETTERS[name](self, value)

    def _emit(self, *events: Event) -> None:
        """Add ``events`` to this step's and this turn's."""
        _SET_EVENTS(self, (*self.events, *events))
        _SET_TURN_EVENTS(self, (*self.turn_events, *events))

    def _fresh_turn(self) -> None:
        """Clear the turn-in-progress fields."""
        for put, value in _FRESH_TURN:
            put(self, value)

    def _begin_turn(self, seat: int, extra: int, bonus: bool) -> None:
        self._fresh_turn()
        turn = self.turn + 1
        _SET_SEAT(self, seat)
        _SET_EXTRA(self, extra)
        _SET_BONUS(self, bonus)
        _SET_TURN(self, turn)
        _SET_ROUNDS(self, self.rounds + (seat == 0 and not bonus))
        _SET_PHASE(self, Phase.TARGET)
        _SET_TURN_EVENTS(self, ())
        self._emit(TurnBegan(seat, turn, bonus))
        if not self.targets():
            self._emit(TurnPassed(seat))
            self._trigger_end()
            self._end_turn(TurnResult(seat, turn, Outcome.PASSED))
            return
        _SET_NEW_YORK_DUE(self, True)
        self._start_from(boston=True, seattle=True)

    def _start_from(self, boston: bool, seattle: bool) -> None:
        seat = self.seat
        if boston and self.owns(seat, Ability.BOSTON) and abilities.boston_cards(self):
            _SET_PHASE(self, Phase.BOSTON)
            return
        start = self.variant.seattle is SeattleRule.START
        if seattle and start and self.owns(seat, Ability.SEATTLE):
            _SET_PHASE(self, Phase.SEATTLE)
            return
        if self.new_york_due:
            abilities.new_york(self)
        _SET_PHASE(self, Phase.TARGET)
        _SET_NEW_YORK_DUE(self, False)

    def _after_target(self, card: int) -> None:
        seat = self.seat
        _SET_TARGET(self, card)
        _SET_TO_ROLL(self, DICE - (self.set_face is not None))
        self._emit(_shared(TargetDeclared, seat, self.slug(card), self.token(seat, card)))
        after = self.variant.seattle is SeattleRule.AFTER_TARGET
        if after and self.owns(seat, Ability.SEATTLE):
            _SET_PHASE(self, Phase.SEATTLE)
        else:
            _SET_PHASE(self, Phase.ROLL)

    def _after_roll(self, counts: Counts) -> None:
        phase = self.phase
        heads, rays, nukes = self.heads + counts[0], self.rays + counts[1], self.nukes + counts[2]
        seattle = ""
        face = self.set_face
        if phase is Phase.ROLL and face is not None:  # Seattle's die, set before the roll
            heads += face == 0
            rays += face == 1
            nukes += face == 2
            seattle = face.letter
        _SET_HEADS(self, heads)
        _SET_RAYS(self, rays)
        _SET_NUKES(self, nukes)
        _SET_ROLLS(self, self.rolls + (phase is Phase.ROLL))
        _SET_SET_FACE(self, None)
        _SET_TO_ROLL(self, 0)
        toronto_roll = phase is Phase.TORONTO_ROLL
        text = _roll_text(counts)
        self._emit(_shared(Rolled, self.seat, text, seattle, toronto_roll, heads, rays, nukes))
        if not toronto_roll and not self.toronto_used and self.owns(self.seat, Ability.TORONTO):
            _SET_PHASE(self, Phase.TORONTO)
            return
        self._judge()

    def _after_pass(self) -> None:
        self._emit(AbilityDeclined(self.seat, self.phase.value))
        self._passed()

    def _passed(self) -> None:
        if self.phase is Phase.BOSTON:
            self._start_from(boston=False, seattle=True)
        elif self.phase is Phase.SEATTLE:
            if self.target is None:  # the start-of-turn rule: on to New York and the target
                self._start_from(boston=False, seattle=False)
            else:
                _SET_PHASE(self, Phase.ROLL)
        elif self.phase is Phase.TORONTO:
            self._judge()
        else:
            assert self.phase is Phase.DENVER
            self._bombed()

    def _judge(self) -> None:
        """After a roll (and Toronto): bombed, captured, a decision, or the attack ends."""
        target = self.target
        assert target is not None
        card = self.card(target)
        limit = _faces(self).nuke_limit
        if card.symbol is not Symbol.NUKE and self.nukes >= limit:
            if self.rolls == 1 and not self.denver_used and self.owns(self.seat, Ability.DENVER):
                _SET_PHASE(self, Phase.DENVER)
                return
            self._bombed()
            return
        count = self.count(target)
        if count >= card.requirement:
            result = self._result(Outcome.CAPTURED, count, limit, captured=(target,))
            self._capture(target, count)
            self._conclude(result)
        elif self.heads > 0 and card.kind is Kind.CITY:
            _SET_PHASE(self, Phase.DECIDE)
        else:
            self._stop()

    def _after_reroll(self, action: Reroll) -> None:
        assert self.target is not None
        count = self.heads if action.count is None else action.count
        target = self.target if action.switch is None else self._card_index(action.switch)
        _SET_FALLBACK(self, (self.target, self.count(self.target)))
        _SET_TARGET(self, target)
        _SET_HEADS(self, self.heads - count)
        _SET_TO_ROLL(self, count)
        _SET_PHASE(self, Phase.ROLL)
        self._emit(Rerolling(self.seat, count, action.switch or ""))

    def _stop(self) -> None:
        """The attack ends without a capture (the player stopped or no head is left)."""
        target = self.target
        assert target is not None
        if self.card(target).ability is Ability.DETROIT:
            self._bombed(detroit=True)
            return
        count = self.count(target)
        limit = self.nuke_limit
        self._emit(_shared(Stopped, self.seat, self.slug(target), count))
        token = self._place(target, count, kept=False)
        self._end_turn(self._result(Outcome.STOPPED, count, limit, token=token))

    def _bombed(self, detroit: bool = False) -> None:
        """Bombed (or a failed Detroit): keep what the rule keeps, then Las Vegas."""
        target = self.target
        assert target is not None
        count = self.count(target)
        limit = self.nuke_limit
        self._emit(Bombed(self.seat, self.slug(target), self.nukes, limit, detroit, count))
        token = None
        if self.variant.bombed is BombedRule.LAST_ROLL and self.fallback is not None:
            token = self._place(*self.fallback, kept=True)
        captured = abilities.las_vegas(self)
        outcome = Outcome.DETROIT if detroit else Outcome.BOMBED
        self._conclude(self._result(outcome, count, limit, captured=captured, token=token))

    def _place(self, card: int, value: int, kept: bool) -> tuple[int, int] | None:
        """Put (or move) the player's token on ``card`` at ``value`` if it may go there; the
        token placed, if any."""
        seat = self.seat
        if value < 1 or self.card(card).ability is Ability.DETROIT:
            return None
        if value <= self.token(seat, card):
            return None
        if not self.token(seat, card) and not self.free_tokens(seat):
            self._emit(TokenLost(seat, self.slug(card), value))
            return None
        self._set_token(seat, card, value)
        self._emit(_shared(TokenPlaced, seat, self.slug(card), value, kept))
        return (card, value)

    def _capture(self, card: int, count: int) -> None:
        """The player takes ``card``: tokens go home, the stack turns up its next card, the
        card's on-capture ability fires and the end may be triggered."""
        seat = self.seat
        where = self.face_up.index(card)
        c = self.card(card)
        owned = replace_at(self.owned, seat, (*self.owned[seat], card))
        reached = replace_at(self.reached, seat, self.turn) if c.vp else self.reached
        _SET_OWNED(self, owned)
        _SET_REACHED(self, reached)
        self._emit(Captured(seat, c.slug, count, c.requirement, c.vp, self.scores[seat]))
        self._send_home((card,))
        _SET_STACKS(self, replace_at(self.stacks, where, self.stacks[where][1:]))
        self._turned_up(where)
        abilities.on_capture(self, card, where)
        if self.empty_stacks >= self.variant.end_stacks:
            self._trigger_end()

    def _send_home(self, cards: tuple[int, ...]) -> None:
        """Every token on ``cards`` goes back to its owner."""
        before = self.tokens
        for card in cards:
            seats = tuple(s for s, mine in enumerate(before) if _token_on(mine, card))
            if seats:
                tokens = tuple(tuple(t for t in mine if t[0] != card) for mine in self.tokens)
                _SET_TOKENS(self, tokens)
                self._emit(TokensHome(self.slug(card), seats))

    def _turned_up(self, where: int) -> None:
        """The event for stack ``where`` showing its (new) top card."""
        stack = self.stacks[where]
        self._emit(_shared(CardTurnedUp, where + 1, self.slug(stack[0]) if stack else ""))

    def _trigger_end(self) -> None:
        if not self.end_triggered:
            _SET_END_TRIGGERED(self, True)
            self._emit(EndTriggered(self.empty_stacks))

    def _conclude(self, result: TurnResult) -> None:
        """End the turn, unless Memphis's card is still to be placed."""
        if self.memphis_due:
            self._put(phase=Phase.MEMPHIS, pending=result, memphis_due=False)
        else:
            self._end_turn(result)

    def _end_turn(self, result: TurnResult) -> None:
        seat = self.seat
        self._emit(_shared(TurnEnded, seat, result.outcome.value))
        done = _copy_result(result)  # the result with the turn's events
        _SET_RESULT_EVENTS(done, self.turn_events)
        _SET_LOG(self, (*self.log, done))
        _SET_PENDING(self, None)
        if self.extra > 0:
            self._begin_turn(seat, self.extra - 1, bonus=True)
        elif self.end_triggered and seat == self.variant.players - 1:
            self._finish()
        else:
            self._begin_turn((seat + 1) % self.variant.players, 0, bonus=False)

    def _finish(self) -> None:
        seats = range(self.variant.players)
        best = max(self.ranking_key(seat) for seat in seats)
        winners = tuple(seat for seat in seats if self.ranking_key(seat) == best)
        self._fresh_turn()
        self._put(phase=Phase.OVER, winners=winners)
        self._emit(GameOver(winners, self.scores))

    def _result(
        self,
        outcome: Outcome,
        count: int,
        limit: int,
        captured: tuple[int, ...] = (),
        token: tuple[int, int] | None = None,
    ) -> TurnResult:
        """The turn's result; ``count`` and ``limit`` as they were when the attack ended."""
        assert self.target is not None
        dice = (self.heads, self.rays, self.nukes)
        return TurnResult(
            self.seat, self.turn, outcome, self.target, count, dice, limit, captured, token
        )

    def _set_token(self, seat: int, card: int, value: int) -> None:
        mine = [t for t in self.tokens[seat] if t[0] != card]
        if value > 0:
            mine.append((card, value))
        _SET_TOKENS(self, replace_at(self.tokens, seat, tuple(sorted(mine))))

    def _decide_actions(self) -> tuple[Action, ...]:
        counts: list[int | None] = [None]
        if self.variant.reroll is RerollRule.SUBSET:
            counts += list(range(1, self.heads))
        switches: list[int | None] = [None, *self.switch_targets()]
        reroll = _table(self.variant.cards).reroll
        rerolls = [reroll(count, switch) for switch in switches for count in counts]
        return (rerolls[0], STOP, *rerolls[1:])

    # -- names and errors --

    def _index(self, slug: str) -> int | None:
        return _slug_index(self.variant.cards).get(slug)

    def _card_index(self, slug: str) -> int:
        index = self._index(slug)
        assert index is not None
        return index

    def _preferred_cards(self) -> list[Card]:
        """Cards a short name most likely means here: the face-up ones."""
        return [self.card(c) for c in self.face_up if c is not None]

    def _why_not(self, action: Action) -> str:
        phase = self.phase
        match action:
            case Target() if phase is Phase.TARGET:
                index = self._index(action.card)
                if index is not None and self.card(index).ability is Ability.LAS_VEGAS:
                    return "Las Vegas can never be a target"
                return "only a face-up card can be the target"
            case Reroll() if phase is Phase.DECIDE:
                if action.count is not None and self.variant.reroll is RerollRule.ALL:
                    return "every head showing is rerolled (the 'all heads' rule)"
                if action.count is not None and not 0 < action.count <= self.heads:
                    return f"there are {self.heads} heads to reroll"
                return "a reroll may only switch to another face-up city (not a monument)"
            case BostonMove() if phase is Phase.BOSTON:
                return (
                    "Boston moves one of your tokens, not onto the capture space, "
                    "and never on Las Vegas (it counts bombs)"
                )
            case TorontoReroll() if phase is Phase.TORONTO:
                return f"no die shows a {action.face.word}"
        return f"it is not a move of the {phase.value} phase"

    def _illegal(self, action: AnyAction, reason: str) -> IllegalActionError:
        if self.is_chance_node:
            legal = "a draw from the box" if self.phase is Phase.MEMPHIS_DRAW else "a roll"
            legal += f" of {self.to_roll} dice" if self.phase is not Phase.MEMPHIS_DRAW else ""
        elif self.is_terminal:
            legal = "nothing: the game is over"
        else:
            legal = ", ".join(a.text() for a in self.legal_actions())
        return IllegalActionError(f"illegal action {action.text()!r}: {reason}; legal: {legal}")


def as_state(state: object) -> State:
    """``state`` as a Mars Attacks state; a state of another game is a ``TypeError``."""
    if not isinstance(state, State):
        raise TypeError(f"not a Mars Attacks state: {type(state).__name__}")
    return state


@cache
def _roll_outcomes(n: int) -> tuple[tuple[Roll | Draw, Fraction], ...]:
    return tuple((Roll(counts), p) for counts, p in dice_outcomes(n, FACE_PROBABILITIES))


@cache
def _roll_text(counts: Counts) -> str:
    return Roll(counts).text()


_slug_memo: tuple[tuple[Card, ...], dict[str, int]] = ((), {})
#: what a variant's states built once (legal-action tuples, Memphis's draws), by what
#: decides them; per variant, by identity (hashing a variant's cards costs more)
_memos: dict[int, tuple[Variant, dict[object, object]]] = {}
#: the entries kept per variant, and the variants kept (when full, they start again)
MEMO_SIZE: Final = 1 << 13
MEMO_VARIANTS: Final = 16


def _memo(variant: Variant) -> dict[object, object]:
    known = _memos.get(id(variant))
    if known is None or known[0] is not variant:
        if len(_memos) >= MEMO_VARIANTS:
            _memos.clear()
        known = _memos[id(variant)] = (variant, {})
    return known[1]


#: the last state asked for its legal actions, and its answer (states never change)
_last_legal: tuple[State | None, tuple[Action, ...]] = (None, ())


class _Table:
    """What a card set's cards say, by card index, read once (the engine asks every step:
    a look-up here costs less than the card's attribute or property)."""

    __slots__ = (
        "abilities", "boston_moves", "cities", "nukes", "rerolls", "slugs", "symbols",
        "target_moves", "targetable", "vps",
    )  # fmt: skip

    def __init__(self, cards: tuple[Card, ...]) -> None:
        self.abilities = tuple(card.ability for card in cards)
        self.cities = tuple(card.is_city for card in cards)
        self.nukes = tuple(card.nukes for card in cards)
        self.symbols = tuple(card.symbol for card in cards)
        self.targetable = tuple(card.targetable for card in cards)
        self.vps = tuple(card.vp for card in cards)
        self.slugs = tuple(card.slug for card in cards)
        #: the moves naming each card, made once (the legal-action tuples share them)
        self.target_moves = tuple(Target(slug) for slug in self.slugs)
        self.boston_moves = tuple(BostonMove(slug) for slug in self.slugs)
        self.rerolls: dict[tuple[int | None, int | None], Reroll] = {}

    def reroll(self, count: int | None, switch: int | None) -> Reroll:
        """The reroll of ``count`` heads (None: every head), switching to card ``switch``."""
        key = (count, switch)
        known = self.rerolls.get(key)
        if known is None:
            slug = None if switch is None else self.slugs[switch]
            known = self.rerolls[key] = Reroll(count, slug)
        return known


_last_table: tuple[tuple[Card, ...], _Table] = ((), _Table(()))
_tables: dict[int, tuple[tuple[Card, ...], _Table]] = {}


def _table(cards: tuple[Card, ...]) -> _Table:
    """The :class:`_Table` of a card set, by identity (the last one asked for first)."""
    global _last_table
    known = _last_table
    if known[0] is not cards:
        found = _tables.get(id(cards))
        if found is None or found[0] is not cards:
            if len(_tables) >= MEMO_VARIANTS:
                _tables.clear()
            found = _tables[id(cards)] = (cards, _Table(cards))
        known = _last_table = found
    return known[1]


class _Faces:
    """What the face-up cards of some stacks give: the cards, the targets, the nuke limit
    (asked several times a step, while the stacks rarely change)."""

    __slots__ = ("face_up", "nuke_limit", "targets", "with_ability")

    def __init__(self, stacks: tuple[tuple[int, ...], ...], variant: Variant) -> None:
        table = _table(variant.cards)
        face_up = tuple([stack[0] if stack else None for stack in stacks])
        shown = [c for c in face_up if c is not None]
        self.face_up = face_up
        self.targets = tuple([c for c in shown if table.targetable[c]])
        self.nuke_limit = sum([table.nukes[c] for c in shown]) + variant.difficulty.nukes
        #: the first face-up card with each ability
        self.with_ability: dict[Ability, int] = {}
        for c in shown:
            ability = table.abilities[c]
            if ability is not None:
                self.with_ability.setdefault(ability, c)


#: the stacks and variants asked about (kept, so identity is a safe key), and theirs, by
#: the stacks' identity: states share their stacks until a capture, and a search or an
#: adapter goes back and forth between positions (emptied when it reaches FACES_KEPT)
_faces_memo: dict[int, tuple[object, object, _Faces]] = {}
FACES_KEPT: Final = 1 << 12


def _faces(state: State) -> _Faces:
    stacks = state.stacks
    known = _faces_memo.get(id(stacks))
    if known is not None and known[0] is stacks and known[1] is state.variant:
        return known[2]
    if len(_faces_memo) >= FACES_KEPT:
        _faces_memo.clear()
    faces = _Faces(stacks, state.variant)
    _faces_memo[id(stacks)] = (stacks, state.variant, faces)
    return faces


def _slug_index(cards: tuple[Card, ...]) -> dict[str, int]:
    """Card index by slug; remembered for the last card set by identity (hashing the cards
    on every look-up cost more than the look-up)."""
    global _slug_memo
    known, index = _slug_memo
    if known is not cards:
        index = {card.slug: i for i, card in enumerate(cards)}
        _slug_memo = (cards, index)
    return index


# -- events that come back, made once --
#
# Events are frozen values: a step hands out the one already made with the same fields
# instead of building another (a frozen dataclass costs about a microsecond to build, a
# look-up a fraction of that), for those that recur (a roll's totals, a token placed, a turn
# ended...). The table is emptied when it reaches KEPT entries.

#: the most events :func:`_shared` keeps
KEPT: Final = 1 << 14
_events: dict[tuple[object, ...], Event] = {}

E = TypeVar("E", bound=Event)


def _shared(cls: type[E], *values: Any) -> E:
    """The event ``cls(*values)``, the one made before if it was."""
    key = (cls, *values)
    known = _events.get(key)
    if known is None:
        if len(_events) >= KEPT:
            _events.clear()
        known = _events[key] = cls(*values)
    return known  # type: ignore[return-value]


def replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``values`` with the item at ``index`` replaced (through a list: quicker than slices)."""
    replaced = list(values)
    replaced[index] = value
    return tuple(replaced)


def _token_on(tokens: Tokens, card: int) -> int:
    for where, value in tokens:
        if where == card:
            return value
    return 0


# -- drafts: one copy per step, changed in place before anyone sees it --

_DRAFTS: Final = Drafts(State)
_FIELDS: Final = tuple(f.name for f in fields(State))
_SETTERS: Final = _DRAFTS.setters
_SET_EVENTS: Final = _SETTERS["events"]
_SET_TURN_EVENTS: Final = _SETTERS["turn_events"]
_SET_PHASE: Final = _SETTERS["phase"]
_SET_TOKENS: Final = _SETTERS["tokens"]
_SET_STACKS: Final = _SETTERS["stacks"]
_SET_END_TRIGGERED: Final = _SETTERS["end_triggered"]
_SET_NEW_YORK_DUE: Final = _SETTERS["new_york_due"]
_SET_SEAT: Final = _SETTERS["seat"]
_SET_EXTRA: Final = _SETTERS["extra"]
_SET_BONUS: Final = _SETTERS["bonus"]
_SET_TURN: Final = _SETTERS["turn"]
_SET_ROUNDS: Final = _SETTERS["rounds"]
_SET_TARGET: Final = _SETTERS["target"]
_SET_TO_ROLL: Final = _SETTERS["to_roll"]
_SET_HEADS: Final = _SETTERS["heads"]
_SET_RAYS: Final = _SETTERS["rays"]
_SET_NUKES: Final = _SETTERS["nukes"]
_SET_ROLLS: Final = _SETTERS["rolls"]
_SET_SET_FACE: Final = _SETTERS["set_face"]
_SET_FALLBACK: Final = _SETTERS["fallback"]
_SET_OWNED: Final = _SETTERS["owned"]
_SET_REACHED: Final = _SETTERS["reached"]
_SET_LOG: Final = _SETTERS["log"]
_SET_PENDING: Final = _SETTERS["pending"]
#: the turn-in-progress fields and their values at the start of a turn
_FRESH_TURN: Final = tuple(
    (_SETTERS[f.name], f.default)
    for f in fields(State)
    if f.name
    in (
        "target", "heads", "rays", "nukes", "rolls", "to_roll", "set_face", "fallback",
        "toronto_used", "denver_used", "new_york_due", "memphis_due", "memphis_stack", "pending",
    )
)  # fmt: skip


#: one copy of a state per step, changed in place until it is handed out
_draft: Final = _DRAFTS.draft


#: a copy of a state, every field the same (a step changes it with the setters)
_copy: Final = _DRAFTS.copy
_RESULT_DRAFTS: Final = Drafts(TurnResult)
_copy_result: Final = _RESULT_DRAFTS.copy
_SET_RESULT_EVENTS: Final = _RESULT_DRAFTS.setters["events"]
