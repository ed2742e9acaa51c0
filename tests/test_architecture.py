"""The house rules of ``docs/architecture.md``, checked on the source itself with ``ast``.

- Imports point one way: the engines import only ``marsdice.core`` and the standard library;
  ``storage`` imports no bot, server or screen; the server and the research adapters reach a
  game only through ``marsdice.games`` and the declaration; no lower layer imports the CLI or
  the server; no two modules import each other at import time.
- No layer names a game: outside ``martian/`` and ``attacks/`` nothing compares with a game's
  name, tests a game's class or module, and the server, the adapters, storage and the
  registry's neighbours hold no game name at all.

Each checker returns its findings, so the tests show them, and is run once on a planted
violation to prove it can fail.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from marsdice.games import REGISTERED, game_names

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "marsdice"
ENGINES = ("marsdice.martian", "marsdice.attacks")
GAME_NAMES = frozenset(game_names())


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_sources() -> dict[str, str]:
    """Every module of the package by dotted name."""
    return {
        _module_name(path): path.read_text(encoding="utf-8")
        for path in sorted((SRC / PACKAGE).rglob("*.py"))
    }


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@dataclass(frozen=True)
class Import:
    target: str
    line: int
    #: at import time (module level, outside ``if TYPE_CHECKING``), not inside a function
    eager: bool


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(module: str, source: str) -> Iterator[Import]:
    """Every import in a module (function-level and type-checking ones included, marked)."""
    tree = ast.parse(source)
    package = module if source and module.count(".") == 0 else module.rpartition(".")[0]

    def walk(node: ast.AST, eager: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(child, False)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for item in child.body:
                    yield from walk(ast.Module(body=[item], type_ignores=[]), False)
                for item in child.orelse:
                    yield from walk(ast.Module(body=[item], type_ignores=[]), eager)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(alias.name, child.lineno, eager)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parent = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                yield Import(base, child.lineno, eager)
                for alias in child.names:  # ``from marsdice.cli import play`` names a module
                    yield Import(f"{base}.{alias.name}", child.lineno, eager)
            else:
                yield from walk(child, eager)

    yield from walk(tree, True)


#: (who, what it must not import, why)
FORBIDDEN: tuple[tuple[str, str, str], ...] = (
    *((engine, f"{PACKAGE}.", "engines import only core") for engine in ENGINES),
    ("marsdice.core", f"{PACKAGE}.", "the contract imports only itself"),
    ("marsdice.storage", "marsdice.bots", "storage stores; it plays no one"),
    ("marsdice.storage", "marsdice.web", "storage knows no server"),
    ("marsdice.storage", "marsdice.cli", "storage knows no screen"),
    *(
        (layer, engine, "reaches a game only through marsdice.games and the declaration")
        for layer in ("marsdice.web", "marsdice.adapters", "marsdice.storage", "marsdice.games")
        for engine in ENGINES
    ),
    *(
        (low, high, "a lower floor imports no screen or server")
        for low in (
            "marsdice.bots",
            "marsdice.solve",
            "marsdice.review",
            "marsdice.tournament",
            "marsdice.fair",
            "marsdice.storage",
            "marsdice.games",
            *ENGINES,
        )
        for high in ("marsdice.cli", "marsdice.web", "marsdice.adapters")
    ),
)


def _allowed(module: str, target: str) -> bool:
    """What the blanket rules (engines, core) still allow."""
    if _under(module, "marsdice.core"):
        return _under(target, "marsdice.core")
    for engine in ENGINES:
        if _under(module, engine):
            return _under(target, "marsdice.core") or _under(target, engine)
    return False


def layering_violations(sources: Mapping[str, str]) -> list[str]:
    """Imports that break :data:`FORBIDDEN`, and engines' imports from outside the standard
    library."""
    found = []
    for module, source in sources.items():
        for item in imports_of(module, source):
            top = item.target.partition(".")[0]
            if top != PACKAGE:
                if _under_engine_or_core(module) and top not in sys.stdlib_module_names:
                    found.append(f"{module}:{item.line} imports {item.target}: not stdlib")
                continue
            for who, what, why in FORBIDDEN:
                if not _under(module, who):
                    continue
                hit = (
                    item.target.startswith(what)
                    if what.endswith(".")
                    else _under(item.target, what)
                )
                if hit and not _allowed(module, item.target):
                    found.append(f"{module}:{item.line} imports {item.target}: {why}")
    return sorted(set(found))


def _under_engine_or_core(module: str) -> bool:
    return any(_under(module, prefix) for prefix in (*ENGINES, "marsdice.core"))


def import_cycles(sources: Mapping[str, str]) -> list[list[str]]:
    """Modules that import each other at import time (module level), as cycles."""
    graph: dict[str, set[str]] = {module: set() for module in sources}
    for module, source in sources.items():
        for item in imports_of(module, source):
            # a package's own __init__ importing its submodules is not a cycle
            if item.eager and item.target in sources and not _under(item.target, module):
                graph[module].add(item.target)
    # Tarjan's strongly connected components
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0

    def connect(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return cycles


# --- no layer names a game ---------------------------------------------------------------------

#: layers that hold no game's name at all (in code: docstrings may give examples)
NAMELESS = ("marsdice.web", "marsdice.adapters", "marsdice.storage", "marsdice.core")
#: attributes whose comparison is a test on a class or module
IDENTITY_ATTRIBUTES = frozenset({"__class__", "__module__", "__name__", "__qualname__"})


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _game_classes(tree: ast.AST) -> set[str]:
    """Local names of the engines' ``Game`` classes imported by a module."""
    classes = {"MartianDice", "MarsAttacks"}
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(
            _under(node.module or "", engine) for engine in ENGINES
        ):
            names |= {alias.asname or alias.name for alias in node.names if alias.name in classes}
    return names


def _names_a_game(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value in GAME_NAMES


def _identity_test(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in IDENTITY_ATTRIBUTES:
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


def game_name_violations(sources: Mapping[str, str]) -> list[str]:
    """Places outside the engines that ask which game they have."""
    found = []
    for module, source in sources.items():
        if any(_under(module, engine) for engine in ENGINES):
            continue
        tree = ast.parse(source)
        docs = _docstrings(tree)
        classes = _game_classes(tree)
        nameless = any(_under(module, layer) for layer in NAMELESS)
        for node in ast.walk(tree):
            where = f"{module}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(_names_a_game(side) for side in sides) or any(
                    isinstance(side, ast.Tuple | ast.List | ast.Set)
                    and any(_names_a_game(item) for item in side.elts)
                    for side in sides
                ):
                    found.append(f"{where} compares with a game's name")
                elif any(_identity_test(side) for side in sides):
                    found.append(f"{where} tests a class or module")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "endswith")
                and _identity_test(node.func.value)
            ):
                found.append(f"{where} tests a class or module")
            elif isinstance(node, ast.MatchValue) and _names_a_game(node.value):
                found.append(f"{where} matches a game's name")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass")
                and len(node.args) == 2
                and any(
                    isinstance(item, ast.Name) and item.id in classes
                    for item in ast.walk(node.args[1])
                )
            ):
                found.append(f"{where} tests for a game's class")
            elif (
                nameless
                and isinstance(node, ast.Constant)
                and node.value in GAME_NAMES
                and id(node) not in docs
            ):
                found.append(f"{where} names a game ({node.value!r})")
    return sorted(set(found))


# --- the tests -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return read_sources()


def test_imports_point_one_way(sources: dict[str, str]) -> None:
    assert layering_violations(sources) == []


def test_a_forbidden_import_is_found(sources: dict[str, str]) -> None:
    planted = dict(sources)
    planted["marsdice.web.planted"] = "from marsdice.martian.rules import State\n"
    planted["marsdice.storage.planted"] = "def f():\n    from marsdice.bots import make_bot\n"
    planted["marsdice.attacks.planted"] = "import numpy\nfrom marsdice.games import get_game\n"
    new = set(layering_violations(planted)) - set(layering_violations(sources))
    assert new == {
        "marsdice.attacks.planted:1 imports numpy: not stdlib",
        "marsdice.attacks.planted:2 imports marsdice.games: engines import only core",
        "marsdice.attacks.planted:2 imports marsdice.games.get_game: engines import only core",
        "marsdice.storage.planted:2 imports marsdice.bots: storage stores; it plays no one",
        "marsdice.storage.planted:2 imports marsdice.bots.make_bot: storage stores; "
        "it plays no one",
        "marsdice.web.planted:1 imports marsdice.martian.rules: reaches a game only through "
        "marsdice.games and the declaration",
        "marsdice.web.planted:1 imports marsdice.martian.rules.State: reaches a game only "
        "through marsdice.games and the declaration",
    }


def test_no_import_cycles(sources: dict[str, str]) -> None:
    assert import_cycles(sources) == []


def test_an_import_cycle_is_found(sources: dict[str, str]) -> None:
    planted = dict(sources)
    planted["marsdice.cli.planted_a"] = "from marsdice.cli import planted_b\n"
    planted["marsdice.cli.planted_b"] = "import marsdice.cli.planted_a\n"
    assert ["marsdice.cli.planted_a", "marsdice.cli.planted_b"] in import_cycles(planted)


def test_no_layer_names_a_game(sources: dict[str, str]) -> None:
    assert game_name_violations(sources) == []


@pytest.mark.parametrize(
    ("source", "finding"),
    [
        ("def f(game):\n    return game.name == 'martian'\n", "compares with a game's name"),
        ("def f(game):\n    return 'attacks' != game.name\n", "compares with a game's name"),
        ("def f(g):\n    return g.name in ('martian', 'x')\n", "compares with a game's name"),
        (
            "def f(g):\n    match g.name:\n        case 'attacks':\n            return 1\n",
            "matches a game's name",
        ),
        ("def f(s):\n    return type(s).__name__ == 'State'\n", "tests a class or module"),
        (
            "def f(s):\n    return s.__module__.startswith('marsdice.attacks')\n",
            "tests a class or module",
        ),
        (
            "from marsdice.attacks.game import MarsAttacks\n"
            "def f(g):\n    return isinstance(g, MarsAttacks)\n",
            "tests for a game's class",
        ),
        ("NAMES = {'martian': 1}\n", "names a game ('martian')"),
    ],
)
def test_a_game_named_is_found(sources: dict[str, str], source: str, finding: str) -> None:
    planted = {"marsdice.web.planted": source}
    found = game_name_violations(planted)
    assert any(finding in line for line in found), found


def test_docstrings_and_main_guards_are_not_findings() -> None:
    source = '"""Say get_game("martian")."""\nif __name__ == "__main__":\n    pass\n'
    assert game_name_violations({"marsdice.web.planted": source}) == []


def test_every_provider_entry_names_an_existing_module() -> None:
    """The registration's lazy entries are arrows no import map sees: each must resolve."""
    import importlib.util

    for entry in REGISTERED:
        paths = [entry.game, entry.view, entry.valuator, entry.advice, entry.encoder]
        paths += [bot.factory for bot in entry.bots]
        for path in paths:
            module, _, attribute = path.partition(":")
            assert attribute, path
            assert importlib.util.find_spec(module) is not None, path
        assert (SRC / PACKAGE / "web" / "static" / entry.plugin.module).is_file()
