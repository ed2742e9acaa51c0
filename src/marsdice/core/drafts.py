"""Cheap copies of frozen, slotted dataclass states, for engines whose steps change one copy.

A step of an engine copies its state once and changes that copy's slots before handing it
out (after which it never changes): one copy instead of a chain of ``dataclasses.replace``
calls, each running ``__init__`` again. The copy is written out field by field, as
``dataclasses`` writes ``__init__`` (a loop over the fields costs twice as much).
Standard library only.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, slots=True)
... class Point:
...     x: int
...     y: int
>>> drafts = Drafts(Point)
>>> drafts.draft(Point(1, 2), y=5)
Point(x=1, y=5)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Drafts(Generic[T]):
    """Copies of one dataclass's instances: :meth:`draft` (a copy with some fields changed)
    and :attr:`setters` (each field's slot setter, for changing a draft in place)."""

    def __init__(self, cls: type[T]) -> None:
        names = tuple(field.name for field in dataclasses.fields(cls))  # type: ignore[arg-type]
        #: each field's slot setter: ``setters[name](draft, value)``
        self.setters: dict[str, Callable[[T, Any], None]] = {
            name: getattr(cls, name).__set__ for name in names
        }
        slots = cls.__dict__.get("__slots__")
        scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
        if slots is not None and cls.__bases__ == (object,) and "__dict__" not in dir(cls):
            # the fields written to an instance of a plain class with the same slots (a
            # plain store, not the frozen class's descriptor call: three times quicker),
            # which then becomes a ``cls`` (the same layout, so Python allows the change)
            scope["twin"] = type(f"{cls.__name__}Draft", (), {"__slots__": tuple(slots)})
            scope["set_class"] = object.__setattr__
            lines = "".join(f"    copy.{name} = state.{name}\n" for name in names)
            source = (
                f"def copy_state(state):\n    copy = new(twin)\n{lines}"
                "    set_class(copy, '__class__', cls)\n    return copy\n"
            )
        else:
            lines = "".join(f"    set_{name}(copy, state.{name})\n" for name in names)
            source = f"def copy_state(state):\n    copy = new(cls)\n{lines}    return copy\n"
            scope.update((f"set_{name}", put) for name, put in self.setters.items())
        exec(source, scope)
        #: a copy of an instance, every field the same
        self.copy: Callable[[T], T] = scope["copy_state"]

    def draft(self, state: T, **changes: Any) -> T:
        """A copy of ``state`` with ``changes``, for one step to change further in place:
        equal to what ``dataclasses.replace`` would build."""
        draft = self.copy(state)
        setters = self.setters
        for name, value in changes.items():
            setters[name](draft, value)
        return draft
