"""Specific exceptions, so callers can tell a bad move from a bad file from a bad setting."""


class MarsDiceError(Exception):
    """Base class of every error this package raises on purpose."""


class VariantError(MarsDiceError, ValueError):
    """A game setting is out of range; nothing was created. ``setting``: the setting at
    fault as it was given, when the message does not begin with it (an unknown one)."""

    def __init__(self, message: str, setting: str | None = None) -> None:
        super().__init__(message)
        self.setting = setting


class IllegalActionError(MarsDiceError, ValueError):
    """An action is not legal in this state; the state is unchanged.

    The message names what is legal instead.
    """


class ActionParseError(MarsDiceError, ValueError):
    """A piece of action notation could not be read."""


class RecordError(MarsDiceError, ValueError):
    """A game record is malformed or does not replay."""
