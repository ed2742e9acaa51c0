// The generic table page, put together from its panels (js/table/*.js), each drawing itself from
// one small store (js/table/store.js) that the WebSocket's `state` messages fill: the head,
// joining a seat and the invites, the last-round notice, whose turn and whose next, the actions
// (and the fool check), the game's board (its plugin), the end screen, the hints, the scores,
// the turn log, the fairness panel, this page's seat (leaving it) and the chat. No panel derives a rule: whose turn, places and
// tie-breaks are the view's own keys (docs/browser.md).

import { h as el, put } from "./dom.js";
import { createActions } from "./table/actions.js";
import { createBoard } from "./table/board.js";
import { createChat } from "./table/chat.js";
import { connectTable } from "./table/connection.js";
import { createEnd } from "./table/end.js";
import { createFair } from "./table/fair.js";
import { createHead } from "./table/head.js";
import { createHints } from "./table/hints.js";
import { createJoin } from "./table/join.js";
import { createLog } from "./table/log.js";
import { createNotice } from "./table/notice.js";
import { createScores } from "./table/scores.js";
import { createSeat } from "./table/seat.js";
import { createStore } from "./table/store.js";
import { createStrip } from "./table/strip.js";
import { createTurn } from "./table/turn.js";

export async function mount(root, tableId, ctx, { seat: invitedSeat = null } = {}) {
  const table = await ctx.api.table(tableId);
  const plugin = await ctx.plugin(table.game);
  const saved = ctx.api.activeSeat(tableId);
  const store = createStore({
    table,
    seat: saved ? saved.seat : null,
    message: null,
    sent: -1,
    pending: null,
    conn: "connecting",
    arrivedAt: 0,
    queued: 0,
    chat: [],
    presence: null,
    returned: null,
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
  const strip = createStrip(env);
  const seatPanel = createSeat(env);
  const chat = createChat(env);
  // the hints and the log fold away (folded at first on a narrow screen, open on a wide one)
  const narrow = window.matchMedia?.("(max-width: 900px)").matches;
  const fold = (panel, name, title) =>
    el("details", { class: `fold fold-${name}`, open: !narrow }, el("summary", { class: "fold-summary", text: title() }), panel.node);
  const hintsFold = fold(hints, "hints", () => ctx.t("hints.fold"));
  const logFold = fold(log, "log", () => ctx.t("log.title"));

  const page = el(
    "section",
    { class: `table-page game-${table.game}` },
    head.node,
    notice.node,
    ...join.nodes,
    // (outside the grid: it sticks to the top of the screen over the whole page on a phone)
    strip.node,
    el(
      "div",
      { class: "table-grid" },
      el("div", { class: "play-col" }, turn.node, actions.node, board.node, end.node, hintsFold),
      el("aside", { class: "side-col" }, scores.node, seatPanel.node, chat.node, logFold, fair.node),
    ),
    ...actions.dialogs,
    ...seatPanel.dialogs,
    ...end.dialogs,
    ...head.dialogs,
  );
  put(root, page);

  // the log first: a new step's events are announced before the turn that follows them
  const panels = [log, head, join, strip, turn, notice, board, actions, scores, seatPanel, chat, hints, fair, end];
  const unsubscribe = panels.map((panel) => store.subscribe(panel.render));
  // last, once every panel is drawn: tests wait on these for a state to be on the page
  unsubscribe.push(
    store.subscribe((state) => {
      page.dataset.version = String(state.message ? state.message.version : -1);
      page.dataset.seat = state.seat === null ? "" : String(state.seat);
      page.dataset.queued = String(state.queued);
      // a fold shows its panel's state: hidden with it, titled in the page's language
      hintsFold.hidden = hints.node.hidden;
      hintsFold.querySelector("summary").textContent = ctx.t("hints.fold");
      logFold.querySelector("summary").textContent = ctx.t("log.title");
      // a log that scrolls can be scrolled from the keyboard: it takes the focus
      const list = log.node.querySelector(".log");
      if (list && !list.hasAttribute("tabindex")) {
        list.tabIndex = 0;
        list.setAttribute("aria-labelledby", "log-title");
      }
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
