// The generic table page, put together from its panels (js/table/*.js), each drawing itself from
// one small store (js/table/store.js) that the WebSocket's `state` messages fill: the head,
// joining a seat and the invites, the last-round notice, whose turn and whose next, the actions
// (and the fool check), the game's board (its plugin), the end screen, the hints, the scores,
// the turn log and the fairness panel. No panel derives a rule: whose turn, places and
// tie-breaks are the view's own keys (docs/browser.md).

import { h as el, put } from "./dom.js";
import { createActions } from "./table/actions.js";
import { createBoard } from "./table/board.js";
import { connectTable } from "./table/connection.js";
import { createEnd } from "./table/end.js";
import { createFair } from "./table/fair.js";
import { createHead } from "./table/head.js";
import { createHints } from "./table/hints.js";
import { createJoin } from "./table/join.js";
import { createLog } from "./table/log.js";
import { createNotice } from "./table/notice.js";
import { createScores } from "./table/scores.js";
import { createStore } from "./table/store.js";
import { createTurn } from "./table/turn.js";

export async function mount(root, tableId, ctx, { seat: invitedSeat = null } = {}) {
  const table = await ctx.api.table(tableId);
  const plugin = await ctx.plugin(table.game);
  const saved = ctx.api.savedSeat(tableId);
  const store = createStore({
    table,
    seat: saved ? saved.seat : null,
    message: null,
    sent: -1,
    pending: null,
    conn: "connecting",
    arrivedAt: 0,
  });
  const connection = connectTable({ store, ctx, tableId });
  const env = { store, ctx, plugin, tableId, connection, invitedSeat };

  const head = createHead(env);
  const join = createJoin(env);
  const notice = createNotice(env);
  const turn = createTurn(env);
  const actions = createActions(env);
  const board = createBoard(env);
  const end = createEnd(env);
  const hints = createHints(env);
  const scores = createScores(env);
  const log = createLog(env);
  const fair = createFair(env);

  const page = el(
    "section",
    { class: `table-page game-${table.game}` },
    head.node,
    notice.node,
    ...join.nodes,
    el(
      "div",
      { class: "table-grid" },
      el("div", { class: "play-col" }, turn.node, actions.node, board.node, end.node, hints.node),
      el("aside", { class: "side-col" }, scores.node, log.node, fair.node),
    ),
    ...actions.dialogs,
    ...end.dialogs,
    ...head.dialogs,
  );
  put(root, page);

  // the log first: a new step's events are announced before the turn that follows them
  const panels = [log, head, join, turn, notice, board, actions, scores, hints, fair, end];
  const unsubscribe = panels.map((panel) => store.subscribe(panel.render));
  // last, once every panel is drawn: tests wait on these for a state to be on the page
  unsubscribe.push(
    store.subscribe((state) => {
      page.dataset.version = String(state.message ? state.message.version : -1);
      page.dataset.seat = state.seat === null ? "" : String(state.seat);
    }),
  );
  store.notify();
  connection.open();

  return {
    destroy() {
      for (const stop of unsubscribe) stop();
      for (const panel of panels) panel.destroy?.();
      connection.close();
    },
    refresh: () => store.notify(),
    state: () => store.get().message,
    pending: () => store.get().pending,
  };
}
