// The lobby: create a table (game, the game's options through its plugin, seats as people or
// bots, table options), the list of open and running tables (refreshed), join, watch, resume;
// the finished games (by game, by player) with their links.
// A game's defaults, settings and bots are what /api/games declares for it.

import { h as el, put } from "./dom.js";
import { gameLinks } from "./finished.js";

const REFRESH_MS = 3000;

export async function mount(root, ctx) {
  const { t, api } = ctx;
  const games = await ctx.games();
  let timer = null;
  let listKey = null;
  let alive = true;
  let gameName = games[0]?.name;
  let readOptions = () => ({});
  const seats = [{ kind: "human" }, { kind: "bot", bot: null }];

  const createBox = el("section", { class: "panel create-panel", "aria-labelledby": "create-title" });
  const listBox = el("section", { class: "panel tables-panel", "aria-labelledby": "tables-title" });
  const finishedBox = el("section", { class: "panel finished-panel", "aria-labelledby": "finished-title" });
  const intro = el("section", { class: "intro" });
  put(root, el("div", { class: "lobby" }, intro, el("div", { class: "lobby-grid" }, createBox, el("div", { class: "lobby-side" }, listBox, finishedBox))));
  const filters = { game: "", player: "" };

  function game() {
    return games.find((g) => g.name === gameName) || games[0];
  }

  /** Say a field's error next to it (the form's own line when none is there); `focus`: move
   * there (the first of several errors). */
  function showFieldError(form, field, message, focus = true) {
    const spot = form.querySelector(`[data-error-for="${CSS.escape(field)}"]`) || form.querySelector(".form-error");
    spot.textContent = spot.textContent ? `${spot.textContent} ${message}` : message;
    const input = form.querySelector(`[data-field="${CSS.escape(field)}"] input, [data-field="${CSS.escape(field)}"] select`);
    if (input) {
      input.setAttribute("aria-invalid", "true");
      if (focus) input.focus();
    }
  }

  async function renderCreate() {
    const info = game();
    const plugin = await ctx.plugin(info.name);
    const form = el("form", { class: "create-form", novalidate: true });
    const gameSelect = el(
      "select",
      { id: "create-game", onchange: () => ((gameName = gameSelect.value), renderCreate()) },
      ...games.map((g) => el("option", { value: g.name, selected: g.name === info.name, text: t(`game.${g.name}`, { fallback: g.title }) })),
    );
    const optionsBox = el("div", { class: "game-options" });
    readOptions = plugin.renderOptions(optionsBox, { t, i18n: ctx.i18n, game: info, players: seats.length });

    // seats
    const seatList = el("ol", { class: "seat-list" });
    const botChoices = info.bots || [];
    seats.forEach((seat, index) => {
      const id = `seat-kind-${index}`;
      const select = el(
        "select",
        {
          id,
          onchange: () => {
            const value = select.value;
            seats[index] = value === "human" ? { kind: "human" } : { kind: "bot", bot: value };
          },
        },
        el("option", { value: "human", text: t("lobby.seat_human") }),
        ...botChoices.map((bot) =>
          el("option", {
            value: bot,
            text: t(`bot.${bot}`, { fallback: bot }),
            title: t(`bot.${bot}.about`, { fallback: "" }),
          }),
        ),
      );
      // a new bot seat, or a bot of another game (the game was changed): the game's default opponent
      const bot = botChoices.includes(seat.bot) ? seat.bot : info.default_opponent;
      select.value = seat.kind === "human" || !bot ? "human" : bot;
      seats[index] = select.value === "human" ? { kind: "human" } : { kind: "bot", bot: select.value };
      const remove = el("button", {
        type: "button",
        class: "btn ghost small",
        "aria-label": t("lobby.remove_seat", { n: index + 1 }),
        text: "✕",
        disabled: seats.length <= info.min_players,
        onclick: () => {
          seats.splice(index, 1);
          renderCreate();
        },
      });
      seatList.append(el("li", { class: "seat-row" }, el("label", { for: id, text: t("seat.number", { n: index + 1 }) }), select, remove));
    });
    const addSeat = el("button", {
      type: "button",
      class: "btn small",
      text: `+ ${t("lobby.add_seat")}`,
      disabled: seats.length >= info.max_players,
      onclick: () => {
        seats.push({ kind: "bot", bot: null });
        renderCreate();
        createBox.querySelector(`#seat-kind-${seats.length - 1}`)?.focus();
      },
    });

    const tableDefaults = info.defaults.options;
    const hints = el("input", { type: "checkbox", id: "opt-hints", checked: tableDefaults.hints });
    const fool = el("input", { type: "checkbox", id: "opt-fool", checked: tableDefaults.fool_check });
    // (offered when the server declares the option: its default is the server's)
    const spectators = "spectator_chat" in tableDefaults ? el("input", { type: "checkbox", id: "opt-spectator-chat", checked: tableDefaults.spectator_chat }) : null;
    // (signed in, the server seats the account under its own name: the field starts with it)
    const nameInput = el("input", { id: "create-name", maxlength: 40, autocomplete: "nickname", value: ctx.session?.get().user?.name || api.savedName() });
    const seedInput = el("input", { id: "create-seed", maxlength: 64, autocomplete: "off" });
    const formError = el("p", { class: "form-error field-error", role: "alert" });

    form.append(
      el("div", { class: "field", "data-field": "game" }, el("label", { for: "create-game", text: t("lobby.game") }), gameSelect),
      el("fieldset", {}, el("legend", { text: t("lobby.options") }), optionsBox),
      el(
        "fieldset",
        { "data-field": "seats" },
        el("legend", { text: t("lobby.seats", { count: seats.length }) }),
        seatList,
        addSeat,
        el("span", { class: "field-error", "data-error-for": "seats" }),
      ),
      el(
        "fieldset",
        { class: "checks" },
        el("legend", { text: t("lobby.table_options") }),
        el("label", { class: "check", for: "opt-hints" }, hints, ` ${t("lobby.hints")}`),
        el("small", { class: "hint", text: t("lobby.hints_help") }),
        el("label", { class: "check", for: "opt-fool" }, fool, ` ${t("lobby.fool_check")}`),
        el("small", { class: "hint", text: t("lobby.fool_check_help") }),
        spectators ? el("label", { class: "check", for: "opt-spectator-chat" }, spectators, ` ${t("lobby.spectator_chat")}`) : null,
        spectators ? el("small", { class: "hint", text: t("lobby.spectator_chat_help") }) : null,
      ),
      el(
        "fieldset",
        { class: "you" },
        el("legend", { text: t("lobby.you") }),
        el("div", { class: "field", "data-field": "name" }, el("label", { for: "create-name", text: t("join.name") }), nameInput, el("span", { class: "field-error", "data-error-for": "name" })),
        el("div", { class: "field", "data-field": "seed" }, el("label", { for: "create-seed", text: t("join.seed") }), seedInput, el("small", { class: "hint", text: t("join.seed_hint") }), el("span", { class: "field-error", "data-error-for": "seed" })),
      ),
      formError,
      el("div", { class: "row" }, el("button", { type: "submit", class: "btn primary", id: "create-button", text: t("lobby.create") })),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      for (const spot of form.querySelectorAll(".field-error")) spot.textContent = "";
      for (const bad of form.querySelectorAll("[aria-invalid]")) bad.removeAttribute("aria-invalid");
      // every mistake at once, each next to its field; the focus on the first
      const errors = [];
      let variant;
      try {
        variant = readOptions(seats.length);
      } catch (failure) {
        const each = Array.isArray(failure?.errors) ? failure.errors : [failure];
        for (const one of each) errors.push([one?.field || "game", one?.message || String(one)]);
      }
      variant = { ...variant, players: seats.length };
      const humans = seats.filter((seat) => seat.kind === "human").length;
      const name = nameInput.value.trim();
      if (humans && !name) errors.push(["name", t("join.name_missing")]);
      if (!api.seedOk(seedInput.value.trim())) errors.push(["seed", t("join.seed_bad")]);
      if (errors.length) {
        errors.forEach(([field, message], index) => showFieldError(form, field, message, index === 0));
        return;
      }
      if (name) api.saveName(name);
      try {
        const created = await api.createTable({
          game: info.name,
          variant,
          seats: seats.map((seat) => (seat.kind === "human" ? { kind: "human" } : { kind: "bot", bot: seat.bot })),
          options: { hints: hints.checked, fool_check: fool.checked, ...(spectators ? { spectator_chat: spectators.checked } : {}) },
        });
        const first = created.seats.find((seat) => seat.kind === "human");
        if (first) {
          const body = { seat: first.seat, name };
          if (seedInput.value.trim()) body.seed = seedInput.value.trim();
          const joined = await api.join(created.id, body);
          api.saveSeat(created.id, joined.seat, joined.token);
        }
        ctx.navigate(`/t/${created.id}`);
      } catch (failure) {
        if (failure.field) {
          // the server names the field: say it there, with its own words on the value
          const path = String(failure.field);
          const field = path.startsWith("seats") ? "seats" : path.split(".").pop();
          const detail = failure.code === "bad_variant" && failure.message ? ` (${failure.message})` : "";
          showFieldError(form, field, ctx.errorText(failure) + detail);
        } else {
          formError.textContent = ctx.errorText(failure);
        }
      }
    });
    put(createBox, el("h2", { id: "create-title", text: t("lobby.create_title") }), form);
  }

  function seatText(seat) {
    if (seat.kind === "bot") return t(`bot.${seat.bot}`, { fallback: seat.bot });
    if (seat.taken) return seat.name + (seat.away ? ` (${t("scores.away")})` : "");
    return t("scores.open");
  }

  function variantText(table) {
    const v = table.variant || {};
    const parts = [t("lobby.players_n", { count: v.players ?? table.seats.length })];
    if (v.target !== undefined) parts.push(t("lobby.target_n", { count: v.target }));
    return parts.join(" · ");
  }

  async function refreshList() {
    let data;
    try {
      data = await api.tables();
    } catch (failure) {
      put(listBox, el("h2", { id: "tables-title", text: t("lobby.tables") }), el("p", { class: "error-box", text: ctx.errorText(failure) }));
      return;
    }
    if (!alive) return;
    // redrawn only when something changed, and the focused link keeps its focus (keyboard users)
    const key = `${ctx.i18n.lang()}|${JSON.stringify(data.tables.map((table) => [table, api.savedSeat(table.id)]))}`;
    if (key === listKey) return;
    listKey = key;
    const focused = listBox.contains(document.activeElement) ? document.activeElement.getAttribute("href") : null;
    const list = el("ul", { class: "table-list" });
    for (const table of data.tables) {
      const saved = api.savedSeat(table.id);
      const buttons = el("div", { class: "row table-actions" });
      if (saved && table.seats[saved.seat]) {
        buttons.append(el("a", { href: `/t/${table.id}`, "data-link": true, class: "btn primary", text: t("lobby.resume") }));
      } else if (table.status === "open") {
        for (const seat of table.seats) {
          if (seat.kind === "human" && !seat.taken) {
            buttons.append(
              el("a", { href: `/t/${table.id}?seat=${seat.seat + 1}`, "data-link": true, class: "btn primary", text: t("lobby.join_seat", { n: seat.seat + 1 }) }),
            );
          }
        }
      }
      buttons.append(el("a", { href: `/t/${table.id}`, "data-link": true, class: "btn ghost", text: t("lobby.watch") }));
      list.append(
        el(
          "li",
          { class: "table-item", "data-table": table.id },
          el(
            "div",
            { class: "table-item-head" },
            el("strong", { text: t(`game.${table.game}`, { fallback: table.game }) }),
            el("span", { class: "chip", "data-status": table.status, text: t(`status.${table.status}`) }),
            ratingChip(table),
            el("span", { class: "hint", text: variantText(table) }),
          ),
          el("ul", { class: "seat-pills" }, ...table.seats.map((seat) => el("li", { class: `pill ${seat.kind}${seat.taken ? "" : " free"}`, text: seatText(seat) }))),
          buttons,
        ),
      );
    }
    put(listBox,
      el("h2", { id: "tables-title", text: t("lobby.tables") }),
      data.tables.length ? list : el("p", { class: "hint", text: t("lobby.no_tables") }),
    );
    if (focused) listBox.querySelector(`a[href="${CSS.escape(focused)}"]`)?.focus();
  }

  const when = (iso) => {
    try {
      return new Intl.DateTimeFormat(ctx.i18n.lang(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
    } catch {
      return iso;
    }
  };

  /** Whether the table's game counts for the ratings: a running game whose every person is
   * signed in is rated; an open table of the rulebook's game will be if everyone signs in. */
  function ratingChip(table) {
    if (!table.ratable || table.status === "finished") return null;
    const people = table.seats.filter((seat) => seat.kind === "human");
    if (table.status === "running") {
      const rated = people.length > 0 && people.every((seat) => seat.account);
      return rated ? el("span", { class: "chip rating-chip", "data-status": "finished", text: t("lobby.rated") }) : null;
    }
    return el("span", { class: "chip rating-chip", "data-status": "open", title: t("lobby.ratable_hint"), text: t("lobby.ratable") });
  }

  /** One finished game: its game, when, each seat's place, name and score, its links. */
  function finishedItem(game) {
    const players = game.players.slice().sort((a, b) => a.placing - b.placing || a.seat - b.seat);
    return el(
      "li",
      { class: "table-item finished-item", "data-table": game.table },
      el(
        "div",
        { class: "table-item-head" },
        el("strong", { text: t(`game.${game.game}`, { fallback: game.game }) }),
        el("span", { class: "hint", text: when(game.finished_at) }),
        game.rated ? el("span", { class: "chip", "data-status": "finished", text: t("finished.rated") }) : null,
      ),
      el(
        "ol",
        { class: "finished-players" },
        ...players.map((p) =>
          el(
            "li",
            { class: p.won ? "winner" : null },
            `${t("end.place", { n: p.placing })} `,
            p.account ? el("a", { href: `/players/${encodeURIComponent(p.name)}`, "data-link": true, text: p.name }) : el("span", { text: p.name }),
            ` · ${t("end.points", { count: p.score })}`,
          ),
        ),
      ),
      gameLinks(ctx, game.table),
    );
  }

  const finishedStatus = el("p", { class: "hint finished-status", role: "status" });
  const finishedList = el("div", { class: "finished-list" });

  /** The finished games' filters (drawn again only for a new language: the focus stays). */
  function renderFinished() {
    const form = el("form", { class: "finished-filters row", novalidate: true, role: "search", "aria-label": t("finished.filter") });
    const gameSelect = el(
      "select",
      { id: "finished-game" },
      el("option", { value: "", text: t("finished.all_games") }),
      ...games.map((g) => el("option", { value: g.name, text: t(`game.${g.name}`, { fallback: g.title }) })),
    );
    gameSelect.value = filters.game;
    const playerInput = el("input", { id: "finished-player", maxlength: 64, autocomplete: "off", spellcheck: "false", value: filters.player });
    form.append(
      el("div", { class: "field" }, el("label", { for: "finished-game", text: t("lobby.game") }), gameSelect),
      el("div", { class: "field" }, el("label", { for: "finished-player", text: t("finished.player") }), playerInput),
      el("button", { type: "submit", class: "btn", id: "finished-show", text: t("finished.show") }),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      filters.game = gameSelect.value;
      filters.player = playerInput.value.trim();
      refreshFinished();
    });
    put(finishedBox, el("h2", { id: "finished-title", text: t("finished.title") }), form, finishedStatus, finishedList);
  }

  /** The latest finished games under the filters. */
  async function refreshFinished() {
    finishedStatus.textContent = t("finished.loading");
    try {
      const data = await api.finished({ game: filters.game, player: filters.player, limit: 20 });
      if (!alive) return;
      finishedStatus.textContent = data.games.length ? t("finished.count", { count: data.games.length }) : t("finished.none");
      put(finishedList, data.games.length ? el("ul", { class: "table-list" }, ...data.games.map(finishedItem)) : null);
    } catch (failure) {
      finishedStatus.textContent = "";
      const text = failure.status === 404 && filters.player ? t("finished.no_player", { name: filters.player }) : ctx.errorText(failure);
      put(finishedList, el("p", { class: "error-box", role: "alert", text }));
    }
  }

  function renderIntro() {
    put(intro, el("h1", { text: t("lobby.title") }), el("p", { class: "lead", text: t("lobby.lead") }));
  }

  async function tick() {
    if (!alive) return;
    if (!document.hidden) await refreshList();
    timer = setTimeout(tick, REFRESH_MS);
  }

  renderIntro();
  await renderCreate();
  renderFinished();
  await Promise.all([tick(), refreshFinished()]);

  return {
    destroy() {
      alive = false;
      clearTimeout(timer);
    },
    async refresh() {
      renderIntro();
      await renderCreate();
      listKey = null;
      renderFinished();
      await Promise.all([refreshList(), refreshFinished()]);
    },
  };
}
