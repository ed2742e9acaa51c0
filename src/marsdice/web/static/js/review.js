// The review of a finished game (GET /api/tables/{id}/review; the JSON of
// src/marsdice/review/review.schema.json, see docs/review.md): per player accuracy, marks and
// luck, then every decision with the move played, the best move and what it lost, in the
// review's own unit (win probability, expected turns, or the planner's estimates).

import { reviewChart } from "./chart.js";
import { h } from "./dom.js";
import { loadFinished, seatNames } from "./finished.js";

const NS = "review:";
// a mark is shown as a symbol and a word, never by colour alone
export const MARK_SYMBOLS = {
  best: "✓",
  good: "✓",
  inaccuracy: "?!",
  mistake: "?",
  blunder: "??",
  forced: "□",
  unrated: "·",
};
const ERRORS = new Set(["inaccuracy", "mistake", "blunder"]);


/** Numbers in the review's unit: win probabilities in %, losses in points; turns; planner VP. */
export function units(review, ctx) {
  const t = (key, params) => ctx.t(NS + key, params || {});
  const num = (x, d) => (ctx.i18n && ctx.i18n.num ? ctx.i18n.num(x, d) : Number(x).toFixed(d));
  if (review.unit === "win probability") {
    return {
      value: (x) => (x === null ? "—" : t("unit.percent", { x: num(100 * x, 1) })),
      loss: (x) => (x === null ? "—" : t("unit.points", { x: num(100 * x, 1) })),
      luck: (x) => t("unit.points", { x: (x >= 0 ? "+" : "") + num(100 * x, 1) }),
      axis: (x) => `${num(100 * x, 0)}%`,
    };
  }
  if (review.unit === "expected turns") {
    return {
      value: (x) => (x === null ? "—" : t("unit.turns", { x: num(x, 2) })),
      loss: (x) => (x === null ? "—" : t("unit.turns", { x: num(x, 2) })),
      luck: (x) => t("unit.turns", { x: (x >= 0 ? "+" : "") + num(x, 2) }),
      axis: (x) => num(x, 1),
    };
  }
  return {
    value: (x) => (x === null ? "—" : t("unit.estimate", { x: num(x, 2) })),
    loss: (x) => (x === null ? "—" : t("unit.estimate", { x: num(x, 2) })),
    luck: (x) => t("unit.estimate", { x: (x >= 0 ? "+" : "") + num(x, 2) }),
    axis: (x) => num(x, 1),
  };
}

/** The result in the page's language and the names the table shows (the record's line names
 * bots by their notation: "winprob 26, cautious 22: winprob wins"). */
export function resultText(review, names, ctx) {
  const t = (key, params) => ctx.t(NS + key, params || {});
  if (!Array.isArray(review.scores) || review.scores.length !== names.length) return review.result;
  const list = (items) => new Intl.ListFormat(ctx.i18n && ctx.i18n.lang ? ctx.i18n.lang() : "en", { type: "conjunction" }).format(items);
  const scores = names.map((name, seat) => t("result.score", { name, score: review.scores[seat] })).join(", ");
  if (!review.finished) return t("result.unfinished", { scores });
  const winners = (review.winners || []).map((seat) => names[seat]);
  if (names.length === 1) return t("result.solo", { scores });
  if (!winners.length) return scores;
  return t(winners.length > 1 ? "result.shared" : "result.win", { scores, names: list(winners), count: winners.length });
}

/** A move in words (the plugin's label for it; the notation only as a last resort). */
function moveWords(plugin, move, ctx) {
  if (plugin && typeof plugin.describeChoice === "function") {
    try {
      const label = plugin.describeChoice({ action: move, values: null, loss: null }, { ...ctx, view: null });
      if (label) return label;
    } catch {
      // a plugin that needs the view for this move: the notation below
    }
  }
  return move;
}

/** A decision's position with a Martian Dice roll's letters drawn as dice (the words stay
 * in the dice's labels); other text as it is. */
function positionNode(plugin, text, ctx) {
  // the review's positions are written in English (src/marsdice/review): said so, for
  // screen readers on a Polish or Russian page
  const box = h("p", { class: "rv-position", lang: "en" });
  if (!plugin || typeof plugin.diceCode !== "function") {
    box.textContent = text;
    return box;
  }
  for (const part of text.split(/(\b[TRHCK]{2,}\b)/)) {
    const drawn = /^[TRHCK]{2,}$/.test(part) ? plugin.diceCode(part, ctx) : null;
    box.append(drawn || part);
  }
  return box;
}

function markBadge(t, mark) {
  return h(
    "span",
    { class: `rv-mark mark-${mark}` },
    h("span", { class: "rv-mark-symbol", "aria-hidden": "true", text: MARK_SYMBOLS[mark] || "" }),
    " ",
    t(`mark.${mark}`),
  );
}

function moveText(plugin, move, ctx) {
  return h("span", { class: "rv-move", "data-move": move }, moveWords(plugin, move, ctx));
}

function summaryCard(t, review, summary, fmt, ctx) {
  const num = (x, d) => (ctx.i18n && ctx.i18n.num ? ctx.i18n.num(x, d) : Number(x).toFixed(d));
  const stat = (label, value, extra) => h("div", { class: `rv-stat${extra ? ` ${extra}` : ""}` }, h("dt", { text: label }), h("dd", { text: value }));
  return h(
    "section",
    { class: "rv-summary", "data-seat": summary.seat },
    h("h3", { text: summary.player }),
    h(
      "p",
      { class: "rv-accuracy" },
      h("span", { class: "rv-accuracy-n", text: summary.accuracy === null ? "—" : t("unit.percent", { x: num(summary.accuracy, 1) }) }),
      h("span", { class: "rv-accuracy-label", text: t("accuracy") }),
    ),
    h(
      "dl",
      { class: "rv-stats" },
      stat(t("decisions"), String(summary.decisions)),
      stat(t("forced"), String(summary.forced)),
      stat(`${MARK_SYMBOLS.best} ${t("mark.best")}`, String(summary.best)),
      stat(`${MARK_SYMBOLS.inaccuracy} ${t("marks.inaccuracy")}`, String(summary.inaccuracies), summary.inaccuracies ? "has-inaccuracy" : ""),
      stat(`${MARK_SYMBOLS.mistake} ${t("marks.mistake")}`, String(summary.mistakes), summary.mistakes ? "has-mistake" : ""),
      stat(`${MARK_SYMBOLS.blunder} ${t("marks.blunder")}`, String(summary.blunders), summary.blunders ? "has-blunder" : ""),
      stat(t("total_loss"), fmt.loss(summary.total_loss)),
      stat(t("luck"), fmt.luck(summary.luck)),
      stat(t("rolls_label"), String(summary.rolls)),
    ),
  );
}

function decisionRow(t, review, decision, fmt, plugin, ctx) {
  const err = ERRORS.has(decision.mark);
  const same = decision.best === null || decision.best === decision.played;
  const choices = h(
    "details",
    { class: "rv-choices" },
    h("summary", { text: t("choices", { count: decision.choices.length }) }),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", { text: t("move") }), h("th", { text: t("value") }), h("th", { text: t("loss") }))),
      h(
        "tbody",
        {},
        decision.choices.map((choice) =>
          h(
            "tr",
            { class: choice.move === decision.played ? "is-played" : null },
            h("td", {}, moveText(plugin, choice.move, ctx), choice.move === decision.played ? h("span", { class: "rv-played-tag", text: ` ← ${t("played")}` }) : null),
            h("td", { text: fmt.value(choice.value) }),
            h("td", { text: fmt.loss(choice.loss) }),
          ),
        ),
      ),
    ),
  );
  return h(
    "li",
    { class: `rv-decision mark-${decision.mark}${err ? " is-error" : ""}`, "data-index": decision.index, "data-seat": decision.seat, "data-mark": decision.mark },
    h(
      "div",
      { class: "rv-decision-head" },
      ctx.tableId
        ? h("a", { class: "rv-index", href: `/t/${ctx.tableId}/replay?step=${decision.index - 1}`, "data-link": "", title: t("see_in_replay") }, `#${decision.index}`)
        : h("span", { class: "rv-index", text: `#${decision.index}` }),
      h("span", { class: "rv-player", text: decision.player }),
      h("span", { class: "rv-turn", text: t("turn_round", { turn: decision.turn, round: decision.round }) }),
      markBadge(t, decision.mark),
    ),
    positionNode(plugin, decision.position, ctx),
    h(
      "p",
      { class: "rv-played" },
      h("span", { class: "rv-label", text: t("played") + ": " }),
      moveText(plugin, decision.played, ctx),
      h("span", { class: "rv-value", text: ` (${fmt.value(decision.value)})` }),
      same
        ? h("span", { class: "rv-best-same", text: decision.best === null ? "" : ` — ${t("was_best")}` })
        : [
            h("span", { class: "rv-arrow", "aria-hidden": "true", text: " → " }),
            h("span", { class: "rv-label", text: t("best") + ": " }),
            moveText(plugin, decision.best, ctx),
            h("span", { class: "rv-value", text: ` (${fmt.value(decision.best_value)})` }),
          ],
    ),
    decision.loss !== null && decision.loss > 0
      ? h("p", { class: "rv-loss" }, h("span", { class: "rv-label", text: t("lost") + ": " }), h("b", { text: fmt.loss(decision.loss) }))
      : null,
    decision.choices.length > 1 ? choices : null,
  );
}

/** The chart of the game (js/chart.js) under its heading, or nothing to draw. */
function chartSection(review, t, fmt) {
  const chart = reviewChart(review, review.players, t, fmt);
  if (!chart) return null;
  return h("section", { class: "rv-chart-wrap", "aria-labelledby": "rv-chart-heading" }, h("h2", { id: "rv-chart-heading", text: t("chart.heading") }), chart.node);
}

function render(el, review, table, plugin, ctx, filters) {
  const t = (key, params) => ctx.t(NS + key, params || {});
  const fmt = units(review, ctx);
  const link = (href, key, attrs) => h("a", { href, ...(attrs || {}) }, t(key));
  const id = table ? table.id : "";
  const decisions = review.decisions.filter(
    (d) => (filters.seat === "all" || String(d.seat) === filters.seat) && (!filters.errors || ERRORS.has(d.mark)),
  );
  const seatSelect = h(
    "select",
    {
      id: "rv-filter-seat",
      onchange: (event) => {
        filters.seat = event.target.value;
        filters.redraw();
      },
    },
    h("option", { value: "all", text: t("all_players") }),
    review.players.map((name, seat) => h("option", { value: String(seat), text: name })),
  );
  seatSelect.value = filters.seat;
  const errorsBox = h("input", {
    type: "checkbox",
    id: "rv-filter-errors",
    onchange: (event) => {
      filters.errors = event.target.checked;
      filters.redraw();
    },
  });
  errorsBox.checked = filters.errors;
  el.replaceChildren(
    h(
      "div",
      { class: "rv-page" },
      h(
        "header",
        { class: "rv-header" },
        h("h1", { text: t("title", { game: review.title }) }),
        h("p", { class: "rv-result", text: resultText(review, review.players, ctx) }),
        h(
          "p",
          { class: `rv-method${review.estimate ? " is-estimate" : ""}` },
          review.estimate ? h("span", { class: "rv-estimate-tag", text: "≈ " + t("estimate") }) : null,
          t(`method.${review.method}`),
        ),
        h(
          "p",
          { class: "rv-thresholds" },
          t("thresholds", {
            inaccuracy: fmt.loss(review.thresholds.inaccuracy),
            mistake: fmt.loss(review.thresholds.mistake),
            blunder: fmt.loss(review.thresholds.blunder),
          }),
          review.unit === "win probability" ? ` ${t("pp_note")}` : null,
        ),
        h(
          "nav",
          { class: "rv-links", "aria-label": t("links") },
          id ? link(`/t/${id}`, "back_table", { "data-link": "" }) : null,
          id ? link(`/t/${id}/replay`, "open_replay", { "data-link": "" }) : null,
          id ? link(`/api/tables/${id}/record`, "download_record", { download: `marsdice-${id}.txt` }) : null,
        ),
      ),
      h(
        "section",
        { class: "rv-summaries-wrap", "aria-labelledby": "rv-summaries-title" },
        h("h2", { id: "rv-summaries-title", class: "sr-only", text: t("summaries_title") }),
        h("div", { class: "rv-summaries" }, review.summaries.map((s) => summaryCard(t, review, s, fmt, ctx))),
      ),
      chartSection(review, t, fmt),
      h(
        "section",
        { class: "rv-decisions-wrap", "aria-labelledby": "rv-decisions-title" },
        h(
          "div",
          { class: "rv-decisions-head" },
          h("h2", { id: "rv-decisions-title", text: t("decisions_title") }),
          h(
            "div",
            { class: "rv-filters" },
            h("label", { for: "rv-filter-seat", class: "sr-only", text: t("filter_player") }),
            seatSelect,
            h("label", { class: "rv-check" }, errorsBox, " " + t("only_errors")),
          ),
        ),
        h("p", { class: "rv-count", "aria-live": "polite", text: t("showing", { shown: decisions.length, total: review.decisions.length }) }),
        decisions.length
          ? h("ol", { class: "rv-decisions" }, decisions.map((d) => decisionRow(t, review, d, fmt, plugin, ctx)))
          : h("p", { class: "rv-none", text: t("no_decisions") }),
      ),
    ),
  );
}

/** The review page of table `tableId`. */
export async function mount(el, tableId, ctx) {
  const t = (key, params) => ctx.t(NS + key, params || {});
  el.replaceChildren(h("p", { class: "loading rv-loading", role: "status", text: t("loading") }));
  const loaded = await loadFinished(el, tableId, ctx, t, () => ctx.api.review(tableId));
  if (loaded === null) return { destroy() {} };
  const [review, table] = loaded;
  let plugin = null;
  try {
    plugin = await ctx.plugin(review.game);
  } catch {
    plugin = null;
  }
  // the record names a bot by its short name: show the names the table page shows
  if (table && table.seats) {
    const names = seatNames(table, review.players.length, ctx.t, review.players);
    review.players = names;
    for (const item of [...review.decisions, ...review.summaries, ...review.luck]) item.player = names[item.seat];
  }
  document.title = `${t("title", { game: review.title })} · marsdice`;
  const pageCtx = { ...ctx, tableId };
  const filters = { seat: "all", errors: false, redraw: () => render(el, review, table, plugin, pageCtx, filters) };
  filters.redraw();
  return {
    destroy() {},
    refresh() {
      filters.redraw();
    },
  };
}
