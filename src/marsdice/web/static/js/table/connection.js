// The table's WebSocket (api.Connection) turned into the store's changes: each `state` message
// (the table, this page's seat, the answer to a sent action), the connection's status, and the
// errors: a bad token forgets the seat, an away seat is taken back, a stale action waits for the
// newer state, anything else is said.

export function connectTable({ store, ctx, tableId }) {
  const { t, api } = ctx;
  const saved = api.savedSeat(tableId);
  let socket = null;

  function onState(message) {
    const state = store.get();
    const patch = { message };
    if (!state.message || message.version !== state.message.version) patch.arrivedAt = performance.now();
    if (message.table) patch.table = message.table;
    if (message.seat !== undefined && message.seat !== null) patch.seat = message.seat;
    else if (message.seat === null && !api.savedSeat(tableId)) patch.seat = null;
    if (state.sent !== -1 && message.version > state.sent) Object.assign(patch, { sent: -1, pending: null });
    store.set(patch);
  }

  function onError(message) {
    if (message.code === "bad_token") {
      api.forgetSeat(tableId);
      socket.hello(null);
      store.set({ seat: null });
    }
    if (message.code === "away" && api.savedSeat(tableId)) {
      socket.hello(api.savedSeat(tableId).token); // take the seat back
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

  socket = new api.Connection(tableId, { token: saved ? saved.token : null, onState, onError, onStatus });
  return {
    open: () => socket.open(),
    close: () => socket.close(),
    hello: (token) => socket.hello(token),
    act: (version, action) => socket.act(version, action),
  };
}
