// The table page's one state, shared by its panels: set() changes it and tells every subscriber
// (in the order they subscribed), so each panel draws itself from the same state. The fields:
//   table    the table as the server last described it (seats, status, options, fairness)
//   seat     this page's seat, or null (watching)
//   message  the newest `state` message (view, advice, version, your_turn), or null
//   sent     the version an action was sent on (-1: none awaits its answer); pending: that action
//   conn     the connection's status: connecting, open, reconnecting, closed
//   arrivedAt  when the newest version arrived (performance.now()), for the board's dice

/** A store over `initial`: get(), set(patch) (then every subscriber hears), subscribe(listener)
 * returning the unsubscribe, and notify() to draw again without a change (a new language). */
export function createStore(initial) {
  let state = Object.freeze({ ...initial });
  const listeners = new Set();
  const notify = () => {
    for (const listener of [...listeners]) listener(state);
  };
  return {
    get: () => state,
    set(patch) {
      state = Object.freeze({ ...state, ...patch });
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify,
  };
}
