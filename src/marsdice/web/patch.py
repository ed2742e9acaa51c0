"""What changed in a view, as a JSON Patch (RFC 6902), so that a play message stays the
size of the change and not of the game (``docs/protocol.md``, protocol 2).

Only three operations are made: ``add`` and ``remove`` of an object member, ``replace`` of
a value; in an array, its elements by index when at most half of them changed, ``add`` at
its end (``/-``) when it grew and ``remove`` of its last elements when it shrank (the rest
kept), else the whole array; ``""`` is the whole document. JSON Patch rather than JSON
Merge Patch (RFC 7386) because a view holds nulls (``next_seat``, ``placings``), which a
merge patch cannot set."""

from __future__ import annotations

import copy
from typing import Any, Final

import orjson

#: one operation: {"op": "add" | "remove" | "replace", "path": POINTER, "value"?: JSON}
Operation = dict[str, Any]

_OPS: Final = frozenset({"add", "remove", "replace"})
#: a change of fewer operations is never longer than the value it changes, near enough
_WORTH_WEIGHING: Final = 3


class PatchError(ValueError):
    """A patch that does not fit the document it was applied to (the client diverged)."""


def same(a: Any, b: Any) -> bool:
    """Equal as JSON: unlike ``==``, ``True`` is not ``1``; a tuple is an array; an object's
    members in any order. Compared as their encodings with sorted keys (in C: the diff asks
    this of every member), so a number is also the same only as the same literal (``1`` is not
    ``1.0``: a patch that replaces it is still right)."""
    if a is b:
        return True
    try:
        return orjson.dumps(a, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
            b, option=orjson.OPT_SORT_KEYS
        )
    except TypeError:  # not JSON as orjson writes it: compare as Python values
        return _same_values(a, b)


def _same_values(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_same_values(value, b[key]) for key, value in a.items())
        )
    if isinstance(a, list | tuple):
        return (
            isinstance(b, list | tuple)
            and len(a) == len(b)
            and all(_same_values(x, y) for x, y in zip(a, b, strict=True))
        )
    return not isinstance(b, dict | list | tuple) and a == b


def _unchanged(a: Any, b: Any) -> bool:
    """The diff's quick test: the same object, or the same encoding as built (equal
    encodings are equal JSON; the views are built in one order, so equal views encode
    alike, and :func:`same`'s sorting is not needed to find what did not change)."""
    if a is b:
        return True
    try:
        return orjson.dumps(a) == orjson.dumps(b)
    except TypeError:
        return _same_values(a, b)


def _escape(key: str) -> str:
    if "~" not in key and "/" not in key:
        return key
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def diff(old: Any, new: Any, path: str = "") -> list[Operation]:
    """The operations that turn ``old`` into ``new``: objects member by member, arrays as
    the module says, and any object or array whose operations would be longer than
    itself replaced whole."""
    ops = _diff(old, new, path)
    if len(ops) >= _WORTH_WEIGHING and isinstance(new, dict | list | tuple):
        whole: list[Operation] = [{"op": "replace", "path": path, "value": new}]
        if len(orjson.dumps(whole)) < len(orjson.dumps(ops)):
            return whole
    return ops


#: a whole-document replace, as encoded around the new document's encoding
_WHOLE_HEAD: Final = b'[{"op":"replace","path":"","value":'
_WHOLE_TAIL: Final = b"}]"


def member_code(key: str, value: Any) -> bytes:
    """One member encoded as it stands in its object's encoding: ``"key":value``."""
    return orjson.dumps(key) + b":" + orjson.dumps(value)


def member_codes(document: dict[str, Any], *, leave_out: str = "") -> dict[str, bytes]:
    """Each member of ``document`` (but ``leave_out``) as :func:`member_code` encodes it:
    what :func:`diff_encoded` compares and :func:`joined` joins."""
    return {key: member_code(key, value) for key, value in document.items() if key != leave_out}


def joined(codes: dict[str, bytes]) -> bytes:
    """The object of the members encoded as ``codes`` (:func:`member_codes`), encoded: what
    ``orjson.dumps`` gives for it, without encoding the members again."""
    return b"{" + b",".join(codes.values()) + b"}"


def replace_whole(encoded: bytes) -> bytes:
    """The patch ``[{"op": "replace", "path": "", "value": DOCUMENT}]`` for the document
    encoded as ``encoded``, encoded."""
    return _WHOLE_HEAD + encoded + _WHOLE_TAIL


def diff_encoded(
    old: dict[str, Any],
    new: dict[str, Any],
    old_codes: dict[str, bytes],
    new_codes: dict[str, bytes],
    memo: dict[tuple[str, bytes, bytes], list[Operation]] | None = None,
    whole: bytes | None = None,
) -> bytes:
    """:func:`diff` of the objects made of ``old``'s and ``new``'s members named in
    ``old_codes`` and ``new_codes`` (:func:`member_codes`), encoded: the same operations,
    but members compared by the encodings at hand instead of encoding them again, and a
    changed member's operations taken from ``memo`` when another viewer's patch had the same
    change (then kept there). ``whole``: ``joined(new_codes)``, if at hand."""
    chunks = member_chunks(old, new, old_codes, new_codes, memo)
    encoded, count = assemble(old_codes.keys(), new_codes.keys(), chunks)
    if count >= _WORTH_WEIGHING:
        if whole is None:
            whole = joined(new_codes)
        if whole_is_shorter(count, len(encoded), len(whole)):
            return replace_whole(whole)
    return encoded


def member_chunks(
    old: dict[str, Any],
    new: dict[str, Any],
    old_codes: dict[str, bytes],
    new_codes: dict[str, bytes],
    memo: dict[tuple[str, bytes, bytes], list[Operation]] | None = None,
) -> dict[str, tuple[bytes, int]]:
    """:func:`diff_encoded`'s operations member by member: for each member that changed
    (was added, removed or replaced), its operations encoded without the array's brackets,
    and how many. Viewers who differ only in a few members (a seat and the spectators, in a
    game of perfect information) share the others' (:func:`assemble`)."""
    chunks: dict[str, tuple[bytes, int]] = {}
    for key in old_codes:
        if key not in new_codes:
            chunks[key] = (orjson.dumps({"op": "remove", "path": f"/{_escape(key)}"}), 1)
    for key, code in new_codes.items():
        before = old_codes.get(key)
        if before is None:
            ops: list[Operation] = [{"op": "add", "path": f"/{_escape(key)}", "value": new[key]}]
        elif before != code:
            found = memo.get((key, before, code)) if memo is not None else None
            if found is None:
                found = diff(old[key], new[key], f"/{_escape(key)}")
                if memo is not None:
                    memo[key, before, code] = found
            ops = found
        else:
            continue
        if ops:
            chunks[key] = (orjson.dumps(ops)[1:-1], len(ops))
    return chunks


def assemble(
    old_keys: Any, new_keys: Any, chunks: dict[str, tuple[bytes, int]]
) -> tuple[bytes, int]:
    """The patch made of ``chunks`` (:func:`member_chunks`), encoded as :func:`diff_encoded`
    encodes it (removed members first, then the new document's in its order), and how many
    operations it holds."""
    parts = [chunks[key] for key in old_keys if key not in new_keys and key in chunks]
    parts += [chunks[key] for key in new_keys if key in chunks]
    return b"[" + b",".join(part for part, _ in parts) + b"]", sum(n for _, n in parts)


def whole_is_shorter(count: int, patch_length: int, whole_length: int) -> bool:
    """Whether replacing the whole document (``whole_length`` bytes encoded) is shorter than
    a patch of ``count`` operations and ``patch_length`` bytes (:func:`diff`'s rule)."""
    return (
        count >= _WORTH_WEIGHING
        and len(_WHOLE_HEAD) + whole_length + len(_WHOLE_TAIL) < patch_length
    )


def _diff(old: Any, new: Any, path: str) -> list[Operation]:
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[Operation] = [
            {"op": "remove", "path": f"{path}/{_escape(key)}"} for key in old if key not in new
        ]
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})
            elif not _unchanged(old[key], value):
                ops.extend(diff(old[key], value, f"{path}/{_escape(key)}"))
        return ops
    if isinstance(old, list | tuple) and isinstance(new, list | tuple) and old and new:
        kept = min(len(old), len(new))
        changed = [i for i in range(kept) if not _unchanged(old[i], new[i])]
        if 2 * len(changed) <= kept:
            ops = [op for i in changed for op in diff(old[i], new[i], f"{path}/{i}")]
            ops.extend({"op": "add", "path": f"{path}/-", "value": x} for x in new[kept:])
            ops.extend(
                {"op": "remove", "path": f"{path}/{i}"} for i in range(len(old) - 1, kept - 1, -1)
            )
            return ops
    if _unchanged(old, new):
        return []
    return [{"op": "replace", "path": path, "value": new}]


def apply(document: Any, ops: list[Operation]) -> Any:
    """``document`` with ``ops`` applied (a new document; ``document`` is left as it was).
    :class:`PatchError` when an operation does not fit."""
    for op in ops:
        if not isinstance(op, dict) or op.get("op") not in _OPS or "path" not in op:
            raise PatchError(f"not an operation this protocol makes: {op!r}")
        kind, path = op["op"], op["path"]
        if kind != "remove" and "value" not in op:
            raise PatchError(f"{kind} {path!r} carries no value")
        if path == "":
            if kind != "replace":
                raise PatchError(f"{kind} of the whole document")
            document = copy.deepcopy(op["value"])
            continue
        if not isinstance(path, str) or not path.startswith("/"):
            raise PatchError(f"not a JSON pointer: {path!r}")
        tokens = [_unescape(token) for token in path[1:].split("/")]
        document = _applied(document, tokens, kind, op.get("value"), path)
    return document


def _applied(node: Any, tokens: list[str], kind: str, value: Any, path: str) -> Any:
    """A copy of ``node`` with the operation done at ``tokens`` (an array's element is
    only replaced, or passed through)."""
    if isinstance(node, list):
        items = list(node)
        if len(tokens) == 1 and kind == "add":
            at = len(node) if tokens[0] == "-" else _index(tokens[0], len(node) + 1, path)
            items.insert(at, copy.deepcopy(value))
            return items
        index = _index(tokens[0], len(node), path)
        if len(tokens) > 1:
            items[index] = _applied(node[index], tokens[1:], kind, value, path)
        elif kind == "remove":
            del items[index]
        else:
            items[index] = copy.deepcopy(value)
        return items
    if not isinstance(node, dict):
        raise PatchError(f"{path!r}: not an object or array on the way")
    out = dict(node)
    key = tokens[0]
    if len(tokens) > 1:
        if key not in node:
            raise PatchError(f"{path!r}: no member {key!r}")
        out[key] = _applied(node[key], tokens[1:], kind, value, path)
    elif kind == "add":
        out[key] = copy.deepcopy(value)
    elif key not in node:
        raise PatchError(f"{path!r}: no member {key!r} to {kind}")
    elif kind == "remove":
        del out[key]
    else:
        out[key] = copy.deepcopy(value)
    return out


def _index(token: str, size: int, path: str) -> int:
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise PatchError(f"{path!r}: {token!r} is not an array index")
    index = int(token)
    if index >= size:
        raise PatchError(f"{path!r}: index {index} is past the array's end")
    return index
