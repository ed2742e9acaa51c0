// The table's WebSocket (api.Connection) turned into the store's changes: each state (the table,
// this page's seat, the answer to a sent action), the connection's status, and the errors: a bad
// token forgets the seat, an away seat is taken back, a stale action waits for the newer state,
// anything else is said.
//
// It speaks protocol 2 (docs/protocol.md): after hello's whole `state`, each step comes as one
// `step` message (the step, its events, a JSON Patch of the view), and `table` / `advice`
// messages bring news without a step. They are applied here to the last state, so the store's
// `message` is always a whole state as the panels know it. A version skipped asks for a `sync`;
// a patch that does not fit says hello again (a whole state): the page never drifts. The hello
// asks for the table's chat too: each `chat` message joins the store's `chat`.

import { addChat } from "./chat.js";
import { createPacer } from "./pace.js";
import { applyPatch } from "./patch.js";

const PROTOCOL = 3;
// the fields each step and advice message carries for the new version (absent: the default)
const GUIDANCE = { advice: null, advice_pending: false, advice_missing: null, fallback: [] };

export function connectTable({ store, ctx, tableId }) {
  const { api } = ctx;
  const saved = api.activeSeat(tableId); // (a seat left in a running game is not taken back by itself)
  let socket = null;
  let current = null; // the last whole state, as applied here
  let syncing = null; // the version a sync was asked from, until its answer fits

  /** Show a whole state on the page (the pacer decides when). */
  function show(message) {
    const state = store.get();
    const patch = { message };
    if (!state.message || message.version !== state.message.version) patch.arrivedAt = performance.now();
    if (message.table) patch.table = message.table;
    if (message.seat !== undefined && message.seat !== null) patch.seat = message.seat;
    else if (message.seat === null && !api.activeSeat(tableId)) patch.seat = null;
    if (state.sent !== -1 && message.version > state.sent) Object.assign(patch, { sent: -1, pending: null });
    store.set(patch);
  }

  const pacer = createPacer(show, { onQueue: (queued) => queued !== store.get().queued && store.set({ queued }) });

  /** A whole state (hello, a resync): it replaces whatever still waits to be shown. */
  function onState(message) {
    current = message;
    syncing = null;
    pacer.now(message);
  }

  function guidance(message) {
    const out = {};
    for (const [key, empty] of Object.entries(GUIDANCE)) out[key] = key in message ? message[key] : empty;
    return out;
  }

  function restart() {
    current = null;
    socket.hello(socket.token);
  }

  /** A step, table or advice message: applied when it is the next one, else a sync. */
  function onMessage(message) {
    if (message.type === "chat") {
      if (message.message) addChat(store, [message.message]);
      return;
    }
    if (message.type === "presence") {
      // who is connected, who is away, when a stand-in takes over; to a player back at the
      // table, once, what the stand-in did for them
      const update = { presence: { seats: message.seats || [], at: Date.now() } };
      if (message.returned) update.returned = message.returned;
      store.set(update);
      return;
    }
    if (message.type === "pong" && current && message.version > current.version) {
      syncing = current.version; // the last step was lost (nothing came after it), or a sync's answer
      socket.send({ type: "sync", version: current.version });
      return;
    }
    if (!["step", "table", "advice"].includes(message.type)) return;
    if (!current) return; // a whole state is on its way (hello)
    const expected = message.type === "step" ? current.version + 1 : current.version;
    if (message.version < expected) return; // already applied, or news of a version passed
    if (message.version > expected) {
      if (syncing !== current.version) {
        syncing = current.version;
        socket.send({ type: "sync", version: current.version });
      }
      return;
    }
    syncing = null;
    const mine = current.your_turn && message.actor === "human"; // this page's own move
    let next;
    if (message.type === "table") next = { ...current, table: message.table };
    else if (message.type === "advice") next = { ...current, ...guidance(message) };
    else {
      if (!current.view) return restart();
      let view;
      try {
        view = applyPatch(current.view, message.patch);
      } catch {
        return restart();
      }
      view = { ...view, events: message.events };
      next = {
        ...current,
        version: message.version,
        view,
        log: [...current.log, message.step],
        actors: [...current.actors, message.actor],
        your_turn: message.your_turn,
        table: message.table || current.table,
        step_events: undefined, // (the log panel takes this step's from the view)
        ...guidance(message),
      };
    }
    current = next;
    // a step waits its turn to be shown, and is held for reading unless it is this page's own
    // move or this page is to move next (what follows then waits for the person anyway)
    if (message.type === "step") pacer.step(next, !mine && !next.your_turn);
    else pacer.update(next);
  }

  function onError(message) {
    if (message.code === "bad_token") {
      api.forgetSeat(tableId);
      socket.hello(null);
      store.set({ seat: null });
    }
    if (message.code === "away" && api.activeSeat(tableId)) {
      socket.hello(api.activeSeat(tableId).token); // take the seat back
      return;
    }
    if (message.code === "stale_version" || message.code === "not_your_turn") {
      store.set({ sent: -1 }); // a newer state is on its way
      return;
    }
    ctx.toast(ctx.errorText(message), "error");
    store.set({ sent: -1 });
  }

  function onStatus(conn) {
    if (conn !== store.get().conn) store.set({ conn });
  }

  socket = new api.Connection(tableId, {
    token: saved ? saved.token : null,
    protocol: PROTOCOL,
    chat: true,
    presence: true,
    onState,
    onError,
    onStatus,
    onMessage,
  });
  return {
    open: () => socket.open(),
    close: () => {
      pacer.close();
      socket.close();
    },
    /** Show every step still waiting now (the "skip" button). */
    flush: () => pacer.flush(),
    hello: (token) => socket.hello(token),
    act: (version, action) => socket.act(version, action),
  };
}
