// The server, through its public protocol only (docs/protocol.md): REST for the lobby, one
// WebSocket per table for play, reconnecting by itself. Seat tokens live in localStorage per
// table so a reload or a dropped connection takes the same seat back with hello.

export class ApiError extends Error {
  constructor(status, body, retryAfter = null) {
    super(body?.message || `HTTP ${status}`);
    // a 429's Retry-After, in seconds (null: none given)
    this.retryAfter = retryAfter;
    this.status = status;
    this.code = body?.error || "http";
    this.field = body?.field || null;
    this.body = body;
  }
}

async function answer(response) {
  const type = response.headers.get("content-type") || "";
  const body = type.includes("json") ? await response.json().catch(() => null) : null;
  if (!response.ok) {
    const wait = Number(response.headers.get("retry-after"));
    throw new ApiError(response.status, body, Number.isFinite(wait) && wait > 0 ? wait : null);
  }
  return body;
}

export async function get(path) {
  return answer(await fetch(path, { headers: { accept: "application/json" } }));
}

export async function getText(path) {
  const response = await fetch(path);
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  return response.text();
}

export async function post(path, body) {
  return answer(
    await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

export const games = () => get("/api/games");
export const tables = () => get("/api/tables");
export const table = (id) => get(`/api/tables/${encodeURIComponent(id)}`);
export const createTable = (body) => post("/api/tables", body);
export const join = (id, body) => post(`/api/tables/${encodeURIComponent(id)}/join`, body);
export const leave = (id, token) => post(`/api/tables/${encodeURIComponent(id)}/leave`, { token });
export const rematch = (id, body) => post(`/api/tables/${encodeURIComponent(id)}/rematch`, body);
export const chat = (id) => get(`/api/tables/${encodeURIComponent(id)}/chat`);
export const postChat = (id, body) => post(`/api/tables/${encodeURIComponent(id)}/chat`, body);
export const verify = (id) => get(`/api/tables/${encodeURIComponent(id)}/verify`);
export const review = (id) => get(`/api/tables/${encodeURIComponent(id)}/review`);
export const replay = (id) => get(`/api/tables/${encodeURIComponent(id)}/replay`);
export const recordUrl = (id) => `/api/tables/${encodeURIComponent(id)}/record`;
/** The one name a table's record downloads under, from every page (the end screen, the
 * fairness panel, the review, the replay). */
export const recordName = (id) => `marsdice-${id}.txt`;

// -- accounts (the session is an HttpOnly cookie the page never reads; same-origin fetches
// carry it), players' pages, leaderboards and finished games --
export const account = () => get("/api/account");
export const signUp = (name, password) => post("/api/account/signup", { name, password });
export const signIn = (name, password) => post("/api/account/signin", { name, password });
export const signOut = () => post("/api/account/signout", {});
export const changePassword = (current, next) => post("/api/account/password", { current, new: next });
export const player = (name) => get(`/api/players/${encodeURIComponent(name)}`);
export const leaderboard = (game) => get(`/api/leaderboard/${encodeURIComponent(game)}`);
/** The latest finished games: `filters` {game, player, limit}, each optional. */
export function finished(filters = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
  const text = query.toString();
  return get(`/api/finished${text ? `?${text}` : ""}`);
}

/** A player's seed as the server takes it: up to 64 printable ASCII characters. */
export function seedOk(seed) {
  return seed.length <= 64 && /^[\x20-\x7e]*$/.test(seed);
}

// -- the name a person plays under, remembered for the next table --
const NAME = "marsdice.name";

export function savedName() {
  return localStorage.getItem(NAME) || "";
}

export function saveName(name) {
  localStorage.setItem(NAME, name);
}

// -- seat tokens, per table --
const SEATS = "marsdice.seats";

function seats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS) || "{}") || {};
  } catch {
    return {};
  }
}

/** {seat, token} kept for this table, or null. */
export function savedSeat(tableId) {
  return seats()[tableId] || null;
}

export function saveSeat(tableId, seat, token, left = false) {
  const all = seats();
  all[tableId] = { seat, token, at: Date.now() };
  if (left) all[tableId].left = true;
  // keep the 50 newest tables
  const ids = Object.keys(all).sort((a, b) => (all[b].at || 0) - (all[a].at || 0));
  for (const old of ids.slice(50)) delete all[old];
  localStorage.setItem(SEATS, JSON.stringify(all));
}

/** The seat this page plays now: a saved seat that was not left (a seat left in a running
 * game keeps its token, so its owner can take it back, but is not taken at the next visit). */
export function activeSeat(tableId) {
  const saved = savedSeat(tableId);
  return saved && !saved.left ? saved : null;
}

/** Mark the saved seat left (a bot plays it) or taken again. */
export function markLeft(tableId, left) {
  const saved = savedSeat(tableId);
  if (saved) saveSeat(tableId, saved.seat, saved.token, left);
}

export function forgetSeat(tableId) {
  const all = seats();
  delete all[tableId];
  localStorage.setItem(SEATS, JSON.stringify(all));
}

/**
 * One table's WebSocket: hello with the saved token on every (re)connection, states and
 * errors to the handlers, reconnection with backoff while the page wants it, a ping every
 * 20 s so idle proxies keep it open.
 */
export class Connection {
  constructor(tableId, { onState, onError, onStatus, onMessage, token, protocol, chat, presence }) {
    this.tableId = tableId;
    // ask for the table's chat messages as they are written (docs/protocol.md)
    this.chat = Boolean(chat);
    // and who is at the table: connected, away, a stand-in's countdown (`presence` messages)
    this.presence = Boolean(presence);
    this.onState = onState;
    // protocol 2 and 3 (docs/protocol.md): the step, table and advice messages go to
    // onMessage (protocol 3's steps one by one)
    this.onMessage = onMessage || (() => {});
    this.protocol = protocol || 1;
    this.onError = onError;
    this.onStatus = onStatus || (() => {});
    this.token = token || null;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.timer = null;
    this.pinger = null;
    this.version = -1;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`;
  }

  open() {
    this.closed = false;
    const ws = new WebSocket(this.url());
    this.ws = ws;
    this.onStatus("connecting");
    ws.addEventListener("open", () => {
      this.retry = 0;
      this.onStatus("open");
      ws.send(JSON.stringify(this.helloMessage()));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 20000);
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "state") {
        if (message.version < this.version) return;
        this.version = message.version;
        this.onState(message);
      } else if (message.type === "error") {
        this.onError(message);
      } else if (message.type === "steps" && Array.isArray(message.steps)) {
        // protocol 3: steps stored together (a move and the dice after it), in order
        for (const step of message.steps) this.onMessage(step);
      } else {
        this.onMessage(message);
      }
    });
    ws.addEventListener("close", (event) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      if (event.code === 4404) {
        this.closed = true;
        this.onError({ type: "error", code: "not_found", message: "no such table" });
      }
      if (this.closed) {
        this.onStatus("closed");
        return;
      }
      this.onStatus("reconnecting");
      const delay = Math.min(8000, 300 * 2 ** this.retry++);
      this.timer = setTimeout(() => this.open(), delay);
    });
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  helloMessage() {
    const hello = { type: "hello", token: this.token };
    if (this.protocol !== 1) hello.protocol = this.protocol;
    if (this.chat) hello.chat = true;
    if (this.presence) hello.presence = true;
    return hello;
  }

  hello(token) {
    this.token = token || null;
    return this.send(this.helloMessage());
  }

  act(version, action) {
    return this.send({ type: "action", version, action });
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
