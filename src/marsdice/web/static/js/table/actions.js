// The legal actions as buttons (the plugin's labels, keyboard shortcuts), sending one, and the
// fool check: with the table's option on, a blunder (the advice's flag) is confirmed first.

import { h as el, put } from "../dom.js";
import { isOver, keyOf, openDialog, pluginContext, seatNames, typing } from "./common.js";

// keys for the buttons whose plugin gives none, or one another button already has: every
// button shows a key, and no two share one
const SPARE_KEYS = "1234567890qwetyuiopafjlzxvbnm";

/** Each action's key: the plugin's own if it is free, else the first spare one. */
function assignKeys(labels) {
  const used = new Set();
  const keys = labels.map(({ key }) => {
    const own = key ? key.toLowerCase() : null;
    if (!own || used.has(own)) return null;
    used.add(own);
    return own;
  });
  return keys.map((key) => {
    if (key) return key;
    const spare = [...SPARE_KEYS].find((candidate) => !used.has(candidate)) || null;
    if (spare) used.add(spare);
    return spare;
  });
}

/** The advice for one action, if the server sent any. */
function adviceFor(state, action) {
  const advice = state.message?.advice;
  if (!advice || !Array.isArray(advice.choices)) return null;
  return advice.choices.find((choice) => choice.action === action) || null;
}

export function createActions({ store, ctx, plugin, connection }) {
  const { t, i18n } = ctx;
  const title = el("h2", { class: "sr-only", id: "actions-title" });
  const actions = el("div", { class: "actions", role: "group", "aria-labelledby": "actions-title" });
  const help = el("p", { class: "actions-help" });
  // focusable itself: between two turns the focus waits here, not on the page's body
  const node = el("section", { class: "action-bar", tabindex: "-1", "aria-labelledby": "actions-title" }, title, actions, help);
  const confirmDialog = el("dialog", { class: "dialog confirm-dialog", "aria-labelledby": "confirm-title" });
  let keepFocus = false;

  function send(action) {
    const { message } = store.get();
    if (!message) return;
    const sentOn = message.version;
    store.set({ sent: sentOn, pending: action });
    if (!connection.act(sentOn, action)) {
      store.set({ sent: -1 });
      ctx.toast(t("error.offline"), "error");
    }
  }

  function choose(action) {
    const state = store.get();
    const { message } = state;
    if (!message || state.sent === message.version) return;
    if (!(message.view?.legal_actions || []).includes(action)) return;
    const advice = adviceFor(state, action);
    const mine = message.advice && message.advice.seat === state.seat;
    if (state.table.options.fool_check && mine && advice?.blunder) {
      confirmBlunder(state, action, advice);
      return;
    }
    send(action);
  }

  /** What the move costs, in the review's unit for the advice's method (docs/review.md). */
  function lossLine(method, loss) {
    if (loss === null || loss === undefined) return null;
    if (method === "solo-expected-turns") return el("p", { text: t("confirm.loss_turns", { value: i18n.num(loss, 2) }) });
    if (method === "planner-estimate") return el("p", { text: t("confirm.loss_estimate", { value: i18n.num(loss, 2) }) });
    // percentage points, said in words (the plural chosen for the number as shown)
    const points = Math.round(1000 * loss) / 10;
    const key = method === "approximation" ? "confirm.loss_approximation" : "confirm.loss";
    return el("p", { text: t(key, { value: i18n.num(points, 1), count: points, digits: 1 }) });
  }

  function confirmBlunder(state, action, advice) {
    const { view, advice: all } = state.message;
    const pctx = pluginContext(state, ctx);
    const { label } = plugin.actionLabel(action, view, pctx);
    const others = (all.choices || []).filter((choice) => !choice.blunder);
    const better = others.length ? others.map((choice) => plugin.actionLabel(choice.action, view, pctx).label).join(", ") : null;
    const play = el("button", { type: "button", class: "btn danger", "data-confirm": "play", text: t("confirm.play") });
    const back = el("button", { type: "button", class: "btn primary", "data-confirm": "back", text: t("confirm.back") });
    put(confirmDialog,
      el("h2", { id: "confirm-title", text: `⚠ ${t("confirm.title")}` }),
      el("p", { text: t({ "planner-estimate": "confirm.text_estimate", approximation: "confirm.text_approximation" }[all.method] || "confirm.text", { action: label }) }),
      lossLine(all.method, advice.loss),
      better ? el("p", { class: "hint", text: t("confirm.better", { actions: better }) }) : null,
      el("div", { class: "row" }, back, play),
    );
    back.addEventListener("click", () => confirmDialog.close());
    play.addEventListener("click", () => {
      confirmDialog.close();
      send(action);
    });
    openDialog(confirmDialog, back);
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target) || document.querySelector("dialog[open]")) return;
    const button = keyOf(event, (key) => actions.querySelector(`button[data-key="${CSS.escape(key)}"]`));
    if (button && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  }
  document.addEventListener("keydown", onKey);

  function render(state) {
    const { message, seat: mySeat } = state;
    const view = message?.view;
    const over = isOver(state);
    title.textContent = t("table.your_move");
    // keyboard users keep their place: focus that was on the buttons comes back to the new ones
    const active = document.activeElement;
    if (node.contains(active)) keepFocus = true;
    else if (active && active !== document.body) keepFocus = false;
    put(actions);
    const legal = view?.legal_actions || [];
    // an action sent on this state awaits its answer, or the connection is down: no second click
    const waiting = state.sent === message?.version || state.conn !== "open";
    node.hidden = !view || over;
    if (!legal.length) {
      const seat = view?.turn_seat;
      let text = "";
      if (view && !over) {
        text = mySeat === null ? t("table.spectator") : "";
        if (seat !== null && seat !== undefined && seat !== mySeat) {
          text = `${text} ${t("table.waiting_for", { name: seatNames(state.table, t)[seat] })}`.trim();
        }
      }
      help.textContent = text;
      actions.hidden = true;
      if (keepFocus && !node.hidden && (!document.activeElement || document.activeElement === document.body)) node.focus();
      return;
    }
    actions.hidden = false;
    const advice = message.advice;
    // the advice for this move has come (it may follow the state): tests and styles can tell
    if (advice && advice.seat === mySeat) actions.dataset.advice = advice.method;
    else delete actions.dataset.advice;
    help.textContent = t("table.shortcuts_help");
    const pctx = pluginContext(state, ctx);
    const labels = legal.map((action) => plugin.actionLabel(action, view, pctx));
    const keys = assignKeys(labels);
    legal.forEach((action, index) => {
      const { label, face } = labels[index];
      const key = keys[index];
      const button = el("button", {
        type: "button",
        class: `btn action ${face ? `face-${face}` : `act-${action}`}`,
        "data-action": action,
        "data-key": key || null,
        "aria-keyshortcuts": key ? key.toUpperCase() : null,
        "data-blunder": advice?.seat === mySeat && adviceFor(state, action)?.blunder ? "true" : null,
        disabled: waiting,
        onclick: () => choose(action),
      });
      button.append(el("span", { class: "action-label", text: label }));
      if (key) button.append(el("kbd", { "aria-hidden": "true", text: key.toUpperCase() }));
      actions.append(button);
    });
    const lost = !document.activeElement || document.activeElement === document.body || document.activeElement === node;
    if (keepFocus && lost) {
      // (while a sent action awaits its answer the buttons are disabled: the bar holds it)
      (actions.querySelector("button:not([disabled])") || node).focus();
    }
  }

  return {
    node,
    dialogs: [confirmDialog],
    render,
    destroy: () => document.removeEventListener("keydown", onKey),
  };
}
