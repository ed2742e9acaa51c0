// The replay viewer of a finished game (GET /api/tables/{id}/replay): every step with the view
// after it, drawn by the game's own plugin; first / previous / next / last, arrow keys, a
// slider, a clickable move list and autoplay; the review's chart of the game (js/chart.js) with
// the step shown marked on it, once the review has come (it may take a few seconds).

import { reviewChart } from "./chart.js";
import { h } from "./dom.js";
import { loadFinished, seatNames } from "./finished.js";
import { units } from "./review.js";

const NS = "review:";
const AUTOPLAY_MS = 900;

/** The replay viewer of table `tableId`. */
export async function mount(el, tableId, ctx) {
  const t = (key, params) => ctx.t(NS + key, params || {});
  el.replaceChildren(h("p", { class: "loading", role: "status", text: t("loading_replay") }));
  const loaded = await loadFinished(el, tableId, ctx, t, () => ctx.api.replay(tableId));
  if (loaded === null) return { destroy() {} };
  const [replay, table] = loaded;
  const steps = replay.steps || [];
  const views = [replay.start, ...steps.map((step) => step.view)];
  const game = (replay.start && replay.start.game) || (table && table.game);
  const plugin = await ctx.plugin(game);
  const names = seatNames(table, replay.start ? replay.start.players : 0, ctx.t);
  const last = steps.length;
  let position = 0;
  let timer = null;
  let chart = null;
  const chartBox = h("section", { class: "rp-chart", "aria-labelledby": "rp-chart-title", hidden: true });

  const boardCtx = () => ({ t: ctx.t, i18n: ctx.i18n, lang: ctx.i18n.lang(), seat: null, names, announce: () => {} });
  const moveLabel = (step) => {
    if (step.actor === "chance") {
      if (step.action === "draw" || step.action.startsWith("draw:")) return t("replay.draw");
      // the roll in the plugin's words (its event in the view after it), never its letters
      const after = views[steps.indexOf(step) + 1];
      const rolled = ((after && after.events) || []).find((event) => /roll/.test(event.type) && event.type !== "rolloff_round" && event.type !== "rolloff_begun");
      if (rolled) {
        try {
          return plugin.describeEvent(rolled, boardCtx());
        } catch {
          /* the plain line below */
        }
      }
      return t("replay.chance_plain");
    }
    let label = step.action;
    try {
      label = plugin.actionLabel(step.action, views[steps.indexOf(step)], boardCtx()).label || step.action;
    } catch {
      label = step.action;
    }
    const who = step.seat === null || step.seat === undefined ? "" : names[step.seat];
    const actor = step.actor === "stand-in" ? ` (${t(`actor.${step.actor}`)})` : "";
    return `${who}${actor}: ${label}`;
  };

  const title = h("h1", {});
  const counter = h("p", { class: "rp-counter", "aria-live": "polite" });
  const board = h("div", { class: "rp-board" });
  const scores = h("ol", { class: "rp-scores" });
  const events = h("ol", { class: "rp-events" });
  const slider = h("input", { type: "range", min: 0, max: last, step: 1, value: 0, id: "rp-slider", class: "rp-slider" });
  const sliderLabel = h("label", { for: "rp-slider", class: "sr-only" });
  const button = (cls, symbol, onclick) => h("button", { type: "button", class: `rp-btn ${cls}`, onclick }, h("span", { "aria-hidden": "true", text: symbol }));
  const first = button("rp-first", "|◀", () => go(0));
  const prev = button("rp-prev", "◀", () => go(position - 1));
  const play = button("rp-play", "", () => toggle());
  const next = button("rp-next", "▶", () => go(position + 1));
  const end = button("rp-last", "▶|", () => go(last));
  const list = h("ol", { class: "rp-moves", start: 1 });
  const moveButtons = steps.map((step, i) =>
    h(
      "li",
      { class: `rp-move actor-${step.actor}` },
      h("button", { type: "button", "data-step": i + 1, onclick: () => go(i + 1) }, moveLabel(step)),
    ),
  );
  list.append(...moveButtons);

  function labels() {
    title.textContent = t("replay.title", { game: t(`game.${game}`) });
    first.setAttribute("aria-label", t("replay.first"));
    prev.setAttribute("aria-label", t("replay.previous"));
    next.setAttribute("aria-label", t("replay.next"));
    end.setAttribute("aria-label", t("replay.last"));
    play.setAttribute("aria-label", timer ? t("replay.pause") : t("replay.play"));
    play.firstElementChild.textContent = timer ? t("replay.pause_short") : t("replay.play_short");
    for (const b of [first, prev, next, end, play]) b.title = b.getAttribute("aria-label");
    sliderLabel.textContent = t("replay.slider");
  }

  function draw() {
    const view = views[position];
    const c = boardCtx();
    if (view) plugin.renderBoard(board, view, c);
    else board.replaceChildren(h("p", { text: t("replay.no_view") }));
    const step = position > 0 ? steps[position - 1] : null;
    counter.textContent =
      position === 0 ? t("replay.at_start", { total: last }) : t("replay.step", { n: position, total: last, move: moveLabel(step) });
    scores.replaceChildren(
      ...(view ? view.scores : []).map((score, seat) =>
        h(
          "li",
          { class: view.current_player === seat ? "is-current" : null },
          h("span", {}, view.current_player === seat ? h("span", { class: "rp-turn", "aria-label": t("replay.to_play"), text: "▶ " }) : null, names[seat]),
          h("b", { text: String(score) }),
        ),
      ),
    );
    const lines = view ? (view.events || []).map((event) => plugin.describeEvent(event, c)).filter(Boolean) : [];
    events.replaceChildren(...lines.map((line) => h("li", { text: line })));
    slider.value = String(position);
    slider.setAttribute("aria-valuetext", counter.textContent);
    first.disabled = prev.disabled = position === 0;
    next.disabled = end.disabled = position === last;
    moveButtons.forEach((item, i) => {
      const current = i + 1 === position;
      item.classList.toggle("is-current", current);
      const b = item.firstElementChild;
      if (current) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    });
    // keep the current move in sight inside the list, without scrolling the page
    const active = moveButtons[position - 1];
    if (active) {
      const top = active.offsetTop;
      const bottom = top + active.offsetHeight;
      if (top < list.scrollTop) list.scrollTop = top;
      else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
    } else list.scrollTop = 0;
    el.querySelector(".rp-page")?.setAttribute("data-position", String(position));
    if (chart) chart.mark(position);
  }

  /** The review's chart, drawn when the review arrives (no chart if it cannot be had). */
  async function drawChart() {
    let review;
    try {
      review = await ctx.api.review(tableId);
    } catch {
      return;
    }
    const made = reviewChart(review, names, t, units(review, ctx));
    if (!made || !el.isConnected) return;
    chart = made;
    chartBox.replaceChildren(h("h2", { id: "rp-chart-title", text: t("chart.heading") }), chart.node);
    chartBox.hidden = false;
    chart.mark(position);
  }

  function go(target) {
    const wanted = Math.max(0, Math.min(last, Number(target)));
    if (Number.isNaN(wanted)) return;
    position = wanted;
    draw();
    if (position === last) stop();
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    play.classList.remove("is-playing");
    labels();
  }

  function toggle() {
    if (timer) {
      stop();
      return;
    }
    if (position === last) position = 0;
    timer = setInterval(() => go(position + 1), AUTOPLAY_MS);
    play.classList.add("is-playing");
    labels();
    draw();
  }

  slider.addEventListener("input", () => go(slider.value));
  const keys = (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.matches && target.matches("input, select, textarea") && target !== slider) return;
    if (target === slider) return; // the slider moves itself and fires "input"
    const moves = { ArrowLeft: position - 1, ArrowRight: position + 1, Home: 0, End: last, PageUp: position - 10, PageDown: position + 10 };
    if (event.key in moves) {
      event.preventDefault();
      go(moves[event.key]);
    }
  };
  document.addEventListener("keydown", keys);

  el.replaceChildren(
    h(
      "div",
      { class: "rp-page rv-page", "data-position": "0", "data-steps": String(last) },
      h(
        "header",
        { class: "rv-header" },
        title,
        h(
          "nav",
          { class: "rv-links", "aria-label": t("links") },
          h("a", { href: `/t/${tableId}`, "data-link": "" }, t("back_table")),
          h("a", { href: `/t/${tableId}/review`, "data-link": "" }, t("open_review")),
          h("a", { href: `/api/tables/${tableId}/record`, download: `marsdice-${tableId}.txt` }, t("download_record")),
        ),
      ),
      h(
        "div",
        { class: "rp-controls", role: "group", "aria-label": t("replay.controls") },
        first,
        prev,
        play,
        next,
        end,
        h("div", { class: "rp-slider-wrap" }, sliderLabel, slider),
      ),
      counter,
      h("p", { class: "rp-keys", text: t("replay.keys") }),
      h(
        "div",
        { class: "rp-layout" },
        h("div", { class: "rp-main" }, h("h2", { class: "sr-only", text: t("replay.board") }), board, h("section", { class: "rp-events-wrap" }, h("h2", { text: t("replay.events") }), events), chartBox),
        h(
          "aside",
          { class: "rp-side" },
          h("section", {}, h("h2", { text: t("replay.scores") }), scores),
          h("section", { class: "rp-moves-wrap" }, h("h2", { text: t("replay.moves", { count: last }) }), list),
        ),
      ),
    ),
  );
  labels();
  // /t/{id}/replay?step=K opens at step K (the review links each decision to the position before it)
  const asked = Number(new URLSearchParams(location.search).get("step"));
  if (Number.isInteger(asked) && asked > 0) position = Math.min(asked, last);
  draw();
  drawChart();
  return {
    destroy() {
      stop();
      document.removeEventListener("keydown", keys);
    },
    refresh() {
      moveButtons.forEach((item, i) => (item.firstElementChild.textContent = moveLabel(steps[i])));
      labels();
      draw();
    },
  };
}
