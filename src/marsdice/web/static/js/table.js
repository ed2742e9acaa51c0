// The generic table: joining a seat, the game's board (its plugin), whose turn and whose
// next, the score table, the legal actions as buttons with keyboard shortcuts, the turn log,
// the last-round notice, the fool-check confirmation, the hints panel, the fairness panel,
// the rules dialog and the end screen. Everything arrives through the WebSocket's `state`.

import { h as el, put } from "./dom.js";

const NAME_STORE = "marsdice.name";
const LOG_LIMIT = 300;


/** A player's seed as the server takes it: up to 64 printable ASCII characters. */
export function seedOk(seed) {
  return seed.length <= 64 && /^[\x20-\x7e]*$/.test(seed);
}

/** The turn logs kept in localStorage (a reload or a new tab of the same table keeps its
 * log): the 10 tables seen last. */
function keepLogs(tableId) {
  const INDEX = "marsdice.logs";
  let ids;
  try {
    ids = JSON.parse(localStorage.getItem(INDEX) || "[]");
  } catch {
    ids = [];
  }
  ids = [tableId, ...ids.filter((id) => id !== tableId)];
  for (const old of ids.slice(10)) localStorage.removeItem(`marsdice.log.${old}`);
  localStorage.setItem(INDEX, JSON.stringify(ids.slice(0, 10)));
}

function typing(target) {
  return target instanceof HTMLElement && target.closest("input, select, textarea, [contenteditable]");
}

/** A modal dialog: native <dialog> (the rest of the page inert, Escape closes) with focus
 * returned to where it was. */
function openDialog(dialog, focus) {
  const before = document.activeElement;
  dialog.addEventListener(
    "close",
    () => {
      if (before && document.contains(before)) before.focus();
    },
    { once: true },
  );
  dialog.showModal();
  (focus || dialog.querySelector("[autofocus], button, a, input"))?.focus();
}

export async function mount(root, tableId, ctx, { seat: invitedSeat = null } = {}) {
  const { t, api, i18n } = ctx;
  let table = await api.table(tableId);
  const plugin = await ctx.plugin(table.game);
  await i18n.load(table.game);

  const saved = api.savedSeat(tableId);
  let mySeat = saved ? saved.seat : null;
  let state = null; // the newest state message
  let connection = null;
  let sentVersion = -1; // an action sent on this version awaits its answer
  let pendingAction = null;
  let endShown = false;
  let verifyResult = null;
  let lastNoticeText = null;
  let lastTurnAnnounced = null;
  let renderedVersion = -1;
  let joinKey = null;
  let keepFocus = false;
  let renderedBoard = null;
  let arrivedAt = 0;
  let connected = false;
  const logKey = `marsdice.log.${tableId}`;
  let log = [];
  try {
    log = JSON.parse(localStorage.getItem(logKey) || "[]");
  } catch {
    log = [];
  }

  // -- the page skeleton --
  const title = el("h1", { class: "table-title" });
  const statusChip = el("span", { class: "chip status-chip" });
  const connChip = el("span", { class: "chip conn-chip", role: "status" });
  const rulesButton = el("button", { type: "button", class: "btn ghost", "aria-keyshortcuts": "?" });
  const head = el(
    "header",
    { class: "table-head" },
    el("div", { class: "table-head-main" }, title, statusChip, connChip),
    el("div", { class: "table-head-tools" }, rulesButton),
  );
  const notice = el("p", { class: "notice last-round", role: "status", hidden: true });
  const joinPanel = el("section", { class: "panel join-panel", hidden: true });
  const invitePanel = el("section", { class: "panel invite-panel", hidden: true });
  const turnBanner = el("div", { class: "turn-banner", "aria-live": "off" });
  const boardBox = el("div", { class: "board" });
  const actionsTitle = el("h2", { class: "sr-only", id: "actions-title" });
  const actions = el("div", { class: "actions", role: "group", "aria-labelledby": "actions-title" });
  const actionsHelp = el("p", { class: "actions-help" });
  const actionBar = el("section", { class: "action-bar", "aria-labelledby": "actions-title" }, actionsTitle, actions, actionsHelp);
  const endPanel = el("section", { class: "panel end-panel", hidden: true, "aria-labelledby": "end-title" });
  const hintsPanel = el("section", { class: "panel hints-panel", hidden: true, "aria-labelledby": "hints-title" });
  const scoresPanel = el("section", { class: "panel scores-panel", "aria-labelledby": "scores-title" });
  const logPanel = el("section", { class: "panel log-panel", "aria-labelledby": "log-title" });
  const fairPanel = el("section", { class: "panel fair-panel", "aria-labelledby": "fair-title" });
  const confirmDialog = el("dialog", { class: "dialog confirm-dialog", "aria-labelledby": "confirm-title" });
  const endDialog = el("dialog", { class: "dialog end-dialog", "aria-labelledby": "end-dialog-title" });
  const rulesDialog = el("dialog", { class: "dialog rules-dialog", "aria-labelledby": "rules-title" });

  const page = el(
    "section",
    { class: `table-page game-${table.game}` },
    head,
    notice,
    joinPanel,
    invitePanel,
    el(
      "div",
      { class: "table-grid" },
      el(
        "div",
        { class: "play-col" },
        turnBanner,
        actionBar,
        boardBox,
        endPanel,
        hintsPanel,
      ),
      el("aside", { class: "side-col" }, scoresPanel, logPanel, fairPanel),
    ),
    confirmDialog,
    endDialog,
    rulesDialog,
  );
  put(root, page);

  // -- names and helpers --
  function names() {
    return table.seats.map((seat) => {
      if (seat.kind === "bot") return t(`bot.${seat.bot}`, { fallback: seat.bot });
      return seat.name || t("seat.number", { n: seat.seat + 1 });
    });
  }

  function pluginCtx(extra = {}) {
    return {
      t,
      i18n,
      lang: i18n.lang(),
      seat: mySeat,
      names: names(),
      announce: ctx.announce,
      ...extra,
    };
  }

  function options() {
    return { hints: false, fool_check: true, ...(table.options || {}) };
  }

  function turnSeat(view) {
    if (!view) return null;
    if (plugin.turnSeat) return plugin.turnSeat(view);
    return view.current_player >= 0 ? view.current_player : null;
  }

  function nextSeat(view) {
    if (!view) return null;
    if (plugin.nextSeat) return plugin.nextSeat(view);
    const seat = turnSeat(view);
    return seat === null ? null : (seat + 1) % view.players;
  }

  function finished() {
    return table.status === "finished" || state?.view?.phase === "over" || state?.view?.current_player === -2;
  }

  // -- rendering --
  function renderHead() {
    title.textContent = t(`game.${table.game}`, { fallback: table.game });
    title.append(el("span", { class: "table-id", text: ` #${table.id}` }));
    statusChip.textContent = t(`status.${table.status}`);
    statusChip.dataset.status = table.status;
    put(rulesButton,
      document.createTextNode(t("table.rules")),
      el("kbd", { "aria-hidden": "true", text: "?" }),
    );
    actionsTitle.textContent = t("table.your_move");
  }

  function renderJoin() {
    const open = table.status === "open";
    const seated = mySeat !== null;
    joinPanel.hidden = !open || seated;
    invitePanel.hidden = !open;
    // rebuilt only when the free seats (or the language) change, so typing is never lost
    const free = table.seats.filter((seat) => seat.kind === "human" && !seat.taken).map((seat) => seat.seat);
    const key = `${i18n.lang()}|${free.join(",")}|${mySeat}|${joinPanel.hidden}|${invitePanel.hidden}`;
    if (key === joinKey) return;
    joinKey = key;
    if (!joinPanel.hidden) {
      const free = table.seats.filter((seat) => seat.kind === "human" && !seat.taken);
      put(joinPanel, el("h2", { text: t("join.title") }));
      if (!free.length) {
        joinPanel.append(el("p", { text: t("join.full") }));
      } else {
        const form = el("form", { class: "join-form", novalidate: true });
        const choice = el("fieldset", { class: "seat-choice" }, el("legend", { text: t("join.seat") }));
        const wanted = free.some((s) => s.seat === invitedSeat) ? invitedSeat : free[0].seat;
        for (const seat of free) {
          const id = `join-seat-${seat.seat}`;
          choice.append(
            el(
              "label",
              { for: id, class: "radio" },
              el("input", { type: "radio", name: "seat", id, value: seat.seat, checked: seat.seat === wanted }),
              ` ${t("seat.number", { n: seat.seat + 1 })}`,
            ),
          );
        }
        const nameInput = el("input", {
          id: "join-name",
          name: "name",
          maxlength: 40,
          required: true,
          autocomplete: "nickname",
          value: localStorage.getItem(NAME_STORE) || "",
        });
        const seedInput = el("input", { id: "join-seed", name: "seed", maxlength: 64, autocomplete: "off" });
        const error = el("p", { class: "field-error", role: "alert" });
        form.append(
          choice,
          el("div", { class: "field" }, el("label", { for: "join-name", text: t("join.name") }), nameInput),
          el(
            "div",
            { class: "field" },
            el("label", { for: "join-seed", text: t("join.seed") }),
            seedInput,
            el("small", { class: "hint", text: t("join.seed_hint") }),
          ),
          error,
          el("div", { class: "row" }, el("button", { type: "submit", class: "btn primary", text: t("join.button") })),
        );
        form.addEventListener("submit", async (event) => {
          event.preventDefault();
          const seat = Number(new FormData(form).get("seat"));
          const name = nameInput.value.trim();
          if (!name) {
            error.textContent = t("join.name_missing");
            nameInput.focus();
            return;
          }
          if (!seedOk(seedInput.value.trim())) {
            error.textContent = t("join.seed_bad");
            seedInput.setAttribute("aria-invalid", "true");
            seedInput.focus();
            return;
          }
          localStorage.setItem(NAME_STORE, name);
          const body = { seat, name };
          if (seedInput.value.trim()) body.seed = seedInput.value.trim();
          try {
            const joined = await api.join(tableId, body);
            api.saveSeat(tableId, joined.seat, joined.token);
            mySeat = joined.seat;
            table = joined.table;
            connection.hello(joined.token);
            ctx.announce(t("join.joined", { n: joined.seat + 1 }));
            render();
          } catch (failure) {
            error.textContent = ctx.errorText(failure);
          }
        });
        joinPanel.append(form);
      }
      joinPanel.append(el("p", { class: "hint", text: t("join.spectating") }));
    }
    if (!invitePanel.hidden) {
      put(invitePanel, el("h2", { text: t("invite.title") }));
      const list = el("ul", { class: "invite-list" });
      for (const seat of table.seats) {
        if (seat.kind !== "human" || seat.taken) continue;
        const link = `${location.origin}/t/${table.id}?seat=${seat.seat}`;
        const input = el("input", {
          readonly: true,
          value: link,
          "aria-label": t("invite.link_for", { n: seat.seat + 1 }),
          class: "invite-link",
        });
        const copy = el("button", {
          type: "button",
          class: "btn",
          text: t("invite.copy"),
          onclick: async () => {
            input.select();
            try {
              await navigator.clipboard.writeText(link);
              ctx.toast(t("invite.copied"));
            } catch {
              document.execCommand?.("copy");
              ctx.toast(t("invite.copied"));
            }
          },
        });
        list.append(el("li", {}, el("span", { text: t("seat.number", { n: seat.seat + 1 }) }), input, copy));
      }
      invitePanel.append(list, el("p", { class: "hint", text: t("invite.waiting") }));
      if (mySeat !== null) {
        invitePanel.append(
          el("button", {
            type: "button",
            class: "btn ghost",
            text: t("join.leave"),
            onclick: async () => {
              const seatInfo = api.savedSeat(tableId);
              try {
                table = await api.leave(tableId, seatInfo.token);
              } catch (failure) {
                ctx.toast(ctx.errorText(failure), "error");
              }
              api.forgetSeat(tableId);
              mySeat = null;
              connection.hello(null);
              render();
            },
          }),
        );
      }
    }
  }

  function renderTurn() {
    const view = state?.view;
    put(turnBanner);
    if (!view) {
      turnBanner.append(el("p", { class: "turn-now", text: t("table.waiting_players") }));
      return;
    }
    if (finished()) {
      turnBanner.append(el("p", { class: "turn-now", text: t("table.game_over") }));
      turnBanner.dataset.mine = "false";
      return;
    }
    const seat = turnSeat(view);
    const next = nextSeat(view);
    const list = names();
    const mine = seat !== null && seat === mySeat;
    turnBanner.dataset.mine = String(mine);
    turnBanner.append(
      el("p", {
        class: "turn-now",
        text: mine ? `▶ ${t("table.your_turn")}` : `▶ ${t("table.turn_of", { name: list[seat] ?? "—" })}`,
      }),
    );
    if (next !== null && next !== undefined) {
      turnBanner.append(
        el("p", {
          class: "turn-next",
          text: t("table.next", { name: next === mySeat ? t("table.you") : list[next] }),
        }),
      );
    }
    if (mine && !lastTurnAnnounced) ctx.announce(t("table.your_turn"));
    lastTurnAnnounced = mine;
  }

  function adviceFor(action) {
    const advice = state?.advice;
    if (!advice || !Array.isArray(advice.choices)) return null;
    return advice.choices.find((choice) => choice.action === action) || null;
  }

  function renderActions() {
    const view = state?.view;
    // keyboard users keep their place: focus that was on the buttons comes back to the new ones
    const active = document.activeElement;
    if (actions.contains(active)) keepFocus = true;
    else if (active && active !== document.body && !actions.contains(active)) keepFocus = false;
    put(actions);
    const legal = view?.legal_actions || [];
    // an action sent on this state awaits its answer, or the connection is down: no second click
    const waiting = sentVersion === state?.version || !connected;
    actionBar.hidden = !view || finished();
    if (!legal.length) {
      const seat = turnSeat(view);
      let help = "";
      if (view && !finished()) {
        help = mySeat === null ? t("table.spectator") : "";
        if (seat !== null && seat !== undefined && seat !== mySeat) {
          help = `${help} ${t("table.waiting_for", { name: names()[seat] })}`.trim();
        }
      }
      actionsHelp.textContent = help;
      actions.hidden = true;
      return;
    }
    actions.hidden = false;
    // the advice for this move has come (it may follow the state): tests and styles can tell
    if (state.advice && state.advice.seat === mySeat) actions.dataset.advice = state.advice.method;
    else delete actions.dataset.advice;
    actionsHelp.textContent = t("table.shortcuts_help");
    for (const action of legal) {
      const { label, key, face } = plugin.actionLabel(action, view, pluginCtx());
      const button = el("button", {
        type: "button",
        class: `btn action ${face ? `face-${face}` : `act-${action}`}`,
        "data-action": action,
        "data-key": key || null,
        "aria-keyshortcuts": key ? key.toUpperCase() : null,
        "data-blunder": state.advice?.seat === mySeat && adviceFor(action)?.blunder ? "true" : null,
        disabled: waiting,
        onclick: () => choose(action),
      });
      button.append(el("span", { class: "action-label", text: label }));
      if (key) button.append(el("kbd", { "aria-hidden": "true", text: key.toUpperCase() }));
      actions.append(button);
    }
    if (keepFocus && (document.activeElement === document.body || !document.activeElement)) {
      actions.querySelector("button:not([disabled])")?.focus();
    }
  }

  function renderScores() {
    const view = state?.view;
    const list = names();
    const current = turnSeat(view);
    const winners = new Set(view?.winners || []);
    const tableEl = el("table", { class: "scores" });
    tableEl.append(
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { scope: "col", text: t("scores.player") }),
          el("th", { scope: "col", class: "num", text: t("scores.score") }),
          el("th", { scope: "col", class: "num", text: t("scores.turns") }),
        ),
      ),
    );
    const body = el("tbody");
    table.seats.forEach((seat, index) => {
      const marks = [];
      if (view && current === index && !finished()) marks.push(el("span", { class: "mark turn", text: `▶ ${t("scores.turn")}` }));
      if (index === mySeat) marks.push(el("span", { class: "mark you", text: t("scores.you") }));
      if (seat.kind === "bot") marks.push(el("span", { class: "mark bot", text: t("scores.bot") }));
      if (seat.away) marks.push(el("span", { class: "mark away", text: t("scores.away") }));
      if (seat.kind === "human" && !seat.taken) marks.push(el("span", { class: "mark open", text: t("scores.open") }));
      if (winners.has(index)) marks.push(el("span", { class: "mark winner", text: `★ ${t("scores.winner")}` }));
      const row = el(
        "tr",
        { class: [current === index && !finished() ? "current" : "", index === mySeat ? "me" : ""].join(" ").trim() || null },
        el("th", { scope: "row" }, el("span", { class: "player-name", text: list[index] }), ...marks),
        el("td", { class: "num score", text: view ? String(view.scores[index]) : "–" }),
        el("td", { class: "num", text: view ? String(view.turns[index]) : "–" }),
      );
      body.append(row);
    });
    tableEl.append(body);
    const target = view?.board?.target;
    put(scoresPanel,
      el("h2", { id: "scores-title", text: t("scores.title") }),
      tableEl,
      target ? el("p", { class: "hint", text: t(view.players === 1 ? "scores.target_solo" : "scores.target", { target }) }) : null,
    );
  }

  function recordEvents() {
    const view = state?.view;
    if (!view) return [];
    const lastVersion = log.length ? log[log.length - 1].v : -1;
    if (state.version <= lastVersion) return [];
    const fresh = (view.events || []).map((event) => ({ v: state.version, e: event }));
    log.push(...fresh);
    if (log.length > LOG_LIMIT) log = log.slice(-LOG_LIMIT);
    try {
      localStorage.setItem(logKey, JSON.stringify(log));
      keepLogs(tableId);
    } catch {
      /* storage full: the log lives on in memory */
    }
    return fresh;
  }

  function renderLog() {
    const list = el("ol", { class: "log", reversed: true });
    const pctx = pluginCtx();
    for (let i = log.length - 1; i >= 0; i--) {
      const entry = log[i];
      const seat = entry.e.seat;
      list.append(
        el(
          "li",
          { class: `ev ev-${entry.e.type}${entry.e.first ? " turn-start" : ""}`, "data-seat": seat ?? null },
          plugin.describeEvent(entry.e, pctx),
        ),
      );
    }
    put(logPanel,
      el("h2", { id: "log-title", text: t("log.title") }),
      log.length ? list : el("p", { class: "hint", text: t("log.empty") }),
    );
  }

  function renderHints() {
    const advice = state?.advice;
    const show = options().hints && advice && advice.choices?.some((choice) => choice.values);
    hintsPanel.hidden = !show;
    if (!show) return;
    const pctx = pluginCtx();
    const best = Math.min(...advice.choices.map((choice) => choice.loss ?? Infinity));
    const list = el("ul", { class: "hints" });
    for (const choice of advice.choices) {
      const isBest = choice.loss !== null && choice.loss === best;
      list.append(
        el(
          "li",
          { class: [isBest ? "best" : "", choice.blunder ? "blunder" : ""].join(" ").trim() || null },
          isBest ? el("span", { class: "mark best", text: `✓ ${t("hints.best")}` }) : null,
          choice.blunder ? el("span", { class: "mark blunder", text: `⚠ ${t("hints.blunder")}` }) : null,
          el("span", { text: plugin.describeChoice(choice, pctx) }),
        ),
      );
    }
    put(hintsPanel,
      el("h2", { id: "hints-title", text: t("hints.title", { name: names()[advice.seat] ?? "" }) }),
      list,
      el("p", { class: "hint", text: t(`hints.method.${advice.method}`, { fallback: advice.method }) + (advice.estimate && advice.method !== "planner-estimate" ? ` · ${t("hints.estimate")}` : "") }),
    );
  }

  function renderFair() {
    const parts = [el("h2", { id: "fair-title", text: t("fair.title") })];
    parts.push(el("p", { class: "hint", text: t("fair.explain") }));
    parts.push(
      el("p", {}, el("span", { class: "label", text: `${t("fair.commitment")} ` }), el("code", { class: "hash", text: table.commitment || "–" })),
    );
    const seeds = el("ul", { class: "seeds" });
    const list = names();
    for (const seat of table.seats) {
      if (seat.kind !== "human") continue;
      seeds.append(
        el("li", { text: `${list[seat.seat]}: ${seat.seeded ? `✓ ${t("fair.seeded")}` : `– ${t("fair.unseeded")}`}` }),
      );
    }
    if (seeds.childElementCount) parts.push(seeds);
    if (finished() && table.server_seed) {
      parts.push(
        el("p", {}, el("span", { class: "label", text: `${t("fair.server_seed")} ` }), el("code", { class: "hash", text: table.server_seed })),
      );
      if (verifyResult) {
        parts.push(
          el("p", {
            class: `verify ${verifyResult.fair ? "ok" : "bad"}`,
            role: "status",
            text: verifyResult.fair ? `✓ ${t("fair.verified")}` : `✗ ${t("fair.failed")}: ${verifyResult.message}`,
          }),
        );
      } else if (verifyResult === false) {
        parts.push(el("p", { class: "hint", text: t("fair.verify_unavailable") }));
      }
      parts.push(
        el("p", { class: "hint" }, t("fair.cli"), " ", el("code", { text: `marsdice verify ${table.id}.txt` })),
        el("p", {}, el("a", { href: api.recordUrl(table.id), download: `${table.id}.txt`, class: "btn", text: t("end.record") })),
      );
    }
    put(fairPanel, ...parts);
  }

  function endLinks() {
    return el(
      "p",
      { class: "row end-links" },
      el("a", { href: `/t/${table.id}/review`, "data-link": true, class: "btn primary", text: t("end.review") }),
      el("a", { href: `/t/${table.id}/replay`, "data-link": true, class: "btn", text: t("end.replay") }),
      el("a", { href: api.recordUrl(table.id), download: `${table.id}.txt`, class: "btn", text: t("end.record") }),
      el("a", { href: "/", "data-link": true, class: "btn ghost", text: t("nav.back_lobby") }),
    );
  }

  function ranking(view) {
    const list = names();
    const winners = new Set(view.winners);
    const order = view.scores
      .map((score, seat) => ({ seat, score, winner: winners.has(seat) }))
      .sort((a, b) => b.winner - a.winner || b.score - a.score || a.seat - b.seat);
    const ol = el("ol", { class: "ranking" });
    let place = 0;
    let prev = null;
    order.forEach((row, i) => {
      const key = `${row.winner}/${row.score}`;
      if (key !== prev) place = i + 1;
      prev = key;
      ol.append(
        el(
          "li",
          { class: row.winner ? "winner" : null },
          el("span", { class: "place", text: t("end.place", { n: place }) }),
          el("span", { class: "who", text: `${row.winner ? "★ " : ""}${list[row.seat]}${row.seat === mySeat ? ` (${t("table.you")})` : ""}` }),
          el("span", { class: "pts", text: t("end.points", { count: row.score }) }),
        ),
      );
    });
    return ol;
  }

  function renderEnd() {
    const view = state?.view;
    const over = view && finished();
    endPanel.hidden = !over;
    if (!over) return;
    const pctx = pluginCtx();
    const list = names();
    const headline =
      view.players === 1
        ? t("end.solo", { count: view.turns[0] })
        : view.winners.length === 1
        ? view.winners[0] === mySeat
          ? t("end.you_won")
          : t("end.winner", { name: list[view.winners[0]] })
        : t("end.shared", { names: new Intl.ListFormat(i18n.lang()).format(view.winners.map((s) => list[s])) });
    const breaks = plugin.tieBreaks ? plugin.tieBreaks(view, pctx) : [];
    const build = (id) => [
      el("h2", { id, text: t("end.title") }),
      el("p", { class: "end-headline", text: headline }),
      ranking(view),
      breaks.length
        ? el("div", { class: "tiebreaks" }, el("h3", { text: t("end.tiebreaks") }), el("ul", {}, ...breaks.map((line) => el("li", { text: line }))))
        : null,
      endLinks(),
    ];
    put(endPanel, ...build("end-title"));
    if (!endShown) {
      endShown = true;
      const parts = build("end-dialog-title");
      put(endDialog,
        el(
          "div",
          { class: "dialog-head" },
          parts[0],
          el("form", { method: "dialog" }, el("button", { class: "btn ghost", autofocus: true, "aria-label": t("dialog.close"), text: "✕" })),
        ),
        ...parts.slice(1),
      );
      ctx.announce(headline);
      openDialog(endDialog);
    }
  }

  function renderNotice() {
    const view = state?.view;
    const text = view && plugin.lastRoundNotice ? plugin.lastRoundNotice(view, pluginCtx()) : null;
    notice.hidden = !text;
    notice.textContent = text ? `⚑ ${text}` : "";
    if (text && text !== lastNoticeText) ctx.announce(text);
    lastNoticeText = text;
  }

  function renderBoard(fresh) {
    const view = state?.view;
    if (!view) {
      boardBox.dataset.empty = "true";
      put(boardBox, el("p", { class: "hint", text: t("table.not_started") }));
      return;
    }
    delete boardBox.dataset.empty;
    plugin.renderBoard(boardBox, view, pluginCtx({ freshVersion: fresh }));
  }

  function render() {
    // a step's dice roll for a moment after it arrives, even if the board is drawn again then
    const fresh = state ? state.version !== renderedVersion || performance.now() - arrivedAt < 1000 : false;
    renderHead();
    renderJoin();
    renderTurn();
    renderNotice();
    // the same step again (a seat joining sends it twice) is not drawn again: its dice roll once
    const boardKey = `${state ? state.version : -1}|${i18n.lang()}|${mySeat}`;
    if (boardKey !== renderedBoard) renderBoard(fresh && !reduceMotion());
    renderedBoard = boardKey;
    renderActions();
    renderScores();
    renderLog();
    renderHints();
    renderFair();
    renderEnd();
    if (state) renderedVersion = state.version;
    page.dataset.version = String(state ? state.version : -1);
    page.dataset.seat = mySeat === null ? "" : String(mySeat);
  }

  function reduceMotion() {
    return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  }

  // -- acting --
  function send(action) {
    if (!state) return;
    sentVersion = state.version;
    pendingAction = action;
    if (!connection.act(state.version, action)) {
      sentVersion = -1;
      ctx.toast(t("error.offline"), "error");
    }
    renderActions();
  }

  function choose(action) {
    if (!state || sentVersion === state.version) return;
    if (!(state.view?.legal_actions || []).includes(action)) return;
    const advice = adviceFor(action);
    const mine = state.advice && state.advice.seat === mySeat;
    if (options().fool_check && mine && advice?.blunder) {
      confirmBlunder(action, advice);
      return;
    }
    send(action);
  }

  /** What the move costs, in the review's unit for the advice's method (docs/review.md). */
  function lossLine(loss) {
    if (loss === null || loss === undefined) return null;
    const method = state.advice.method;
    if (method === "solo-expected-turns") return el("p", { text: t("confirm.loss_turns", { value: i18n.num(loss, 2) }) });
    if (method === "planner-estimate") return el("p", { text: t("confirm.loss_estimate", { value: i18n.num(loss, 2) }) });
    return el("p", { text: t("confirm.loss", { value: i18n.pct(loss, 1) }) });
  }

  function confirmBlunder(action, advice) {
    const { label } = plugin.actionLabel(action, state.view, pluginCtx());
    const others = (state.advice.choices || []).filter((choice) => !choice.blunder);
    const better = others.length
      ? others.map((choice) => plugin.actionLabel(choice.action, state.view, pluginCtx()).label).join(", ")
      : null;
    const play = el("button", { type: "button", class: "btn danger", "data-confirm": "play", text: t("confirm.play") });
    const back = el("button", { type: "button", class: "btn primary", "data-confirm": "back", text: t("confirm.back") });
    put(confirmDialog,
      el("h2", { id: "confirm-title", text: `⚠ ${t("confirm.title")}` }),
      el("p", { text: t("confirm.text", { action: label }) }),
      lossLine(advice.loss),
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

  // -- rules --
  async function showRules() {
    let html = null;
    for (const language of [i18n.lang(), "en"]) {
      try {
        const response = await fetch(`/static/rules/${language}/${table.game}.html`);
        if (response.ok) {
          html = await response.text();
          break;
        }
      } catch {
        /* try the next language */
      }
    }
    const body = el("div", { class: "rules-body" });
    body.innerHTML = html ?? `<p>${t("rules.missing")}</p>`;
    put(rulesDialog,
      el(
        "div",
        { class: "dialog-head" },
        el("h2", { id: "rules-title", text: t("rules.title", { game: t(`game.${table.game}`, { fallback: table.game }) }) }),
        el("form", { method: "dialog" }, el("button", { class: "btn ghost", "aria-label": t("dialog.close"), text: "✕" })),
      ),
      body,
    );
    openDialog(rulesDialog, rulesDialog.querySelector("button"));
  }
  rulesButton.addEventListener("click", showRules);

  // -- keyboard --
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target) || document.querySelector("dialog[open]")) return;
    if (event.key === "?") {
      event.preventDefault();
      showRules();
      return;
    }
    const key = event.key.toLowerCase();
    const button = actions.querySelector(`button[data-key="${CSS.escape(key)}"]`);
    if (button && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  }
  document.addEventListener("keydown", onKey);

  // -- the connection --
  async function onState(message) {
    const wasFinished = finished();
    if (!state || message.version !== state.version) arrivedAt = performance.now();
    // a game already over when the page opens shows its end in the page, not in a dialog
    if (!state && (message.table?.status === "finished" || message.view?.phase === "over")) endShown = true;
    state = message;
    if (message.table) table = message.table;
    if (message.seat !== undefined && message.seat !== null) mySeat = message.seat;
    else if (message.seat === null && !api.savedSeat(tableId)) mySeat = null;
    if (sentVersion !== -1 && message.version > sentVersion) {
      sentVersion = -1;
      pendingAction = null;
    }
    const fresh = recordEvents();
    const pctx = pluginCtx();
    for (const entry of fresh.slice(-3)) ctx.announce(plugin.describeEvent(entry.e, pctx));
    if (finished() && !wasFinished && verifyResult === null) {
      api.verify(tableId).then(
        (result) => {
          verifyResult = result;
          renderFair();
        },
        () => {
          verifyResult = false;
          renderFair();
        },
      );
    }
    if (message.view) document.title = `${message.your_turn ? "▶ " : ""}${t(`game.${table.game}`, { fallback: table.game })} · ${t("app.name")}`;
    render();
  }

  function onError(message) {
    if (message.code === "bad_token") {
      api.forgetSeat(tableId);
      mySeat = null;
      connection.hello(null);
    }
    if (message.code === "away" && api.savedSeat(tableId)) {
      connection.hello(api.savedSeat(tableId).token); // take the seat back
      return;
    }
    if (message.code === "stale_version" || message.code === "not_your_turn") {
      sentVersion = -1;
      renderActions();
      return; // a newer state is on its way
    }
    sentVersion = -1;
    ctx.toast(ctx.errorText(message), "error");
    renderActions();
  }

  function onStatus(status) {
    connChip.textContent = t(`conn.${status}`);
    connChip.dataset.conn = status;
    const was = connected;
    connected = status === "open";
    if (was !== connected && state) renderActions();
  }

  connection = new api.Connection(tableId, {
    token: saved ? saved.token : null,
    onState,
    onError,
    onStatus,
  });
  render();
  connection.open();

  return {
    destroy() {
      document.removeEventListener("keydown", onKey);
      connection.close();
    },
    refresh() {
      render();
      onStatus(connection.ws && connection.ws.readyState === WebSocket.OPEN ? "open" : "connecting");
    },
    state: () => state,
    pending: () => pendingAction,
  };
}
