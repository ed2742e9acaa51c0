"""Accounts, profiles and leaderboards (``docs/protocol.md``, "Accounts"): sign-up,
sign-in, sign-out and a password change with a server-side session in an ``HttpOnly``,
``SameSite=Lax`` cookie (``Secure`` over TLS), a new session id at every sign-in; a
player's page and a game's leaderboard; the finished games. Cross-site requests are refused
by :mod:`marsdice.web.guard`; the rules for names and passwords are
:mod:`marsdice.accounts`'."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, Final, TypeVar

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from starlette.requests import HTTPConnection

from marsdice.accounts import BadUserName, user_name
from marsdice.games import all_games, get_game
from marsdice.storage import accounts, results
from marsdice.storage.accounts import SESSION_LIFETIME, BadCredentials, TooManyAttempts, User
from marsdice.storage.tables import NotFoundError
from marsdice.web.deps import DatabaseDep
from marsdice.web.errors import error_responses
from marsdice.web.guard import SESSION_COOKIE
from marsdice.web.limits import app_buckets
from marsdice.web.schemas import AccountOut, ChangePassword, SignIn, SignUp

router: Final = APIRouter(prefix="/api")
_T = TypeVar("_T")

#: a password's hash costs tens of milliseconds of CPU by design: hashed in threads of their
#: own (never the pool the database calls use), and at most so many requests that hash one
#: (sign-up, sign-in, a password change) from one address at once, then one every few seconds
_HASHING: Final = ThreadPoolExecutor(max_workers=2, thread_name_prefix="marsdice-password")
HASHES_BURST: Final = 30
HASH_EVERY: Final = 2.0


def _may_hash(request: Request, times: int = 1) -> None:
    """Count ``times`` hashes against the request's address, or refuse it (nothing done)."""
    hashers = app_buckets(request.app.state, "hashers", HASHES_BURST, HASH_EVERY)
    wait = hashers.wait(_address(request) or "-", times)
    if wait:
        raise TooManyAttempts(
            "too many account requests from your address: wait a moment", int(wait) + 1
        )


async def _hashing(call: Callable[..., _T], *args: Any) -> _T:
    """Run ``call`` (which hashes a password) in the hashing threads."""
    return await asyncio.get_running_loop().run_in_executor(_HASHING, lambda: call(*args))


def session_id(connection: HTTPConnection) -> str | None:
    return connection.cookies.get(SESSION_COOKIE)


async def current_user(connection: HTTPConnection) -> User | None:
    """The account the request's session cookie signs in (None: a guest)."""
    found = session_id(connection)
    if not found:
        return None
    db = connection.app.state.db
    return await asyncio.to_thread(accounts.session_user, db, found)


#: the signed-in account, or None
UserDep = Annotated[User | None, Depends(current_user)]


def _address(request: Request) -> str | None:
    return request.client.host if request.client is not None else None


def _signed_in(request: Request, response: Response, user: User, new_id: str) -> AccountOut:
    response.set_cookie(
        SESSION_COOKIE,
        new_id,
        max_age=int(SESSION_LIFETIME.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return AccountOut(user=user.public(), signup=True)


@router.get("/account")
async def get_account(user: UserDep, db: DatabaseDep) -> AccountOut:
    """Who is signed in (``user`` null for a guest), and whether sign-up is open."""
    signup = await asyncio.to_thread(accounts.signup_open, db)
    return AccountOut(user=None if user is None else user.public(), signup=signup)


@router.post(
    "/account/signup", status_code=201, responses=error_responses(400, 403, 409, 413, 422, 429)
)
async def sign_up(
    body: SignUp, request: Request, response: Response, db: DatabaseDep
) -> AccountOut:
    """A new account, signed in at once."""
    _may_hash(request)  # the new password's hash
    user = await _hashing(accounts.create_user, db, body.name, body.password)
    # signed in as the account just made: no second check of the password, and none of
    # the sign-in limits (an answer that refused would leave the account made)
    user, new_id = await asyncio.to_thread(accounts.sign_in_as, db, user)
    await asyncio.to_thread(accounts.sign_out, db, session_id(request))
    return _signed_in(request, response, user, new_id)


@router.post("/account/signin", responses=error_responses(400, 401, 403, 413, 422, 429))
async def sign_in(
    body: SignIn, request: Request, response: Response, db: DatabaseDep
) -> AccountOut:
    """A new session (the old one, if any, ends: its id is never reused)."""
    _may_hash(request)
    user, new_id = await _hashing(accounts.sign_in, db, body.name, body.password, _address(request))
    await asyncio.to_thread(accounts.sign_out, db, session_id(request))
    return _signed_in(request, response, user, new_id)


@router.post("/account/signout", status_code=204, responses=error_responses(403))
async def sign_out(request: Request, db: DatabaseDep) -> Response:
    await asyncio.to_thread(accounts.sign_out, db, session_id(request))
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.post("/account/password", responses=error_responses(400, 401, 403, 413, 422, 429))
async def change_password(
    body: ChangePassword, request: Request, response: Response, db: DatabaseDep
) -> AccountOut:
    """Every other session of the account ends; this browser gets a new one."""
    found = session_id(request)
    if not found:
        raise BadCredentials("sign in first")
    _may_hash(request, 2)  # the current password's check, the new one's hash
    user, new_id = await _hashing(accounts.change_password, db, found, body.current, body.new)
    return _signed_in(request, response, user, new_id)


# --- profiles, leaderboards, finished games ---------------------------------------------------

_PlayerName = Annotated[str, Path(min_length=1, max_length=64, description="a user name")]
_GAMES: Final = {"enum": sorted(game.name for game in all_games())}


def _game(name: str | None) -> str | None:
    if name is None:
        return None
    try:
        return get_game(name).name
    except ValueError:
        raise NotFoundError(f"no game {name!r}") from None


def _standing(rank: int | None, standing: results.Standing) -> dict[str, Any]:
    kind = "bot" if standing.player.startswith("bot:") else "account"
    out: dict[str, Any] = {"rank": rank} if rank is not None else {}
    return {
        **out,
        "game": standing.game,
        "name": standing.name,
        "kind": kind,
        "bot": standing.player[4:] if kind == "bot" else None,
        "rating": standing.rating.shown,
        "mu": standing.rating.mu,
        "sigma": standing.rating.sigma,
        "games": standing.games,
    }


@router.get("/players/{name}", responses=error_responses(404, 422))
async def player(name: _PlayerName, db: DatabaseDep) -> dict[str, Any]:
    """A player's page: games played and won (by seat count), average score, ratings, and
    the latest games with the rating each left."""
    try:
        user_name(name)
    except BadUserName:
        raise NotFoundError(f"no player {name!r}") from None
    user = await asyncio.to_thread(accounts.find_user, db, name)

    def read() -> dict[str, Any]:
        return {
            "summary": results.summary(db, user.player),
            "ratings": [_standing(None, s) for s in results.ratings_of(db, user.player)],
            "history": results.history(db, user.player, limit=100),
        }

    found = await asyncio.to_thread(read)
    return {"player": user.public(), **found}


@router.get("/leaderboard/{game}", responses=error_responses(404, 422))
async def leaderboard(
    game: Annotated[str, Path(min_length=1, max_length=32, json_schema_extra=_GAMES)],
    db: DatabaseDep,
) -> dict[str, Any]:
    """The game's rated players (accounts and bots), the best shown rating first."""
    name = _game(game)
    assert name is not None
    standings = await asyncio.to_thread(results.leaderboard, db, name)
    return {"game": name, "standings": [_standing(i + 1, s) for i, s in enumerate(standings)]}


@router.get("/finished", responses=error_responses(404, 422))
async def finished(
    db: DatabaseDep,
    game: Annotated[str | None, Query(max_length=32, json_schema_extra=_GAMES)] = None,
    player: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """The latest finished games (of one game, of one signed-up player), each with its
    seats' names, places and scores; each has its record, replay, review and fairness
    check at ``/api/tables/{id}/...``."""
    who: str | None = None
    if player is not None:
        try:
            user_name(player)
        except BadUserName:
            raise NotFoundError(f"no player {player!r}") from None
        user = await asyncio.to_thread(accounts.find_user, db, player)
        who = user.player
    found = await asyncio.to_thread(results.finished_tables, db, _game(game), who, limit)
    return {"games": found}
