// A game's leaderboard (/leaderboard/{game}, GET /api/leaderboard/{game}): the rated players,
// accounts and bots, in the server's order (best shown rating first); a bot's row says it is
// a bot, an account's name links to its player page. "/leaderboard" shows the first game
// /api/games lists.

import { h, put } from "./dom.js";

export async function mount(root, gameName, ctx) {
  const { t, i18n } = ctx;
  const games = await ctx.games();
  const name = gameName || games[0]?.name;
  if (!gameName && name) {
    history.replaceState(null, "", `/leaderboard/${encodeURIComponent(name)}`);
  }
  let data = null;
  let failure = null;
  try {
    data = await ctx.api.leaderboard(name);
  } catch (error) {
    failure = error;
  }

  function gameTitle(game) {
    const entry = games.find((g) => g.name === game);
    return t(`game.${game}`, { fallback: entry?.title || game });
  }

  function row(standing) {
    const bot = standing.kind === "bot";
    const shown = bot ? t(`bot.${standing.bot}`, { fallback: standing.name }) : standing.name;
    return h(
      "tr",
      { "data-kind": standing.kind, "data-name": standing.name },
      h("td", { class: "num", text: i18n.num(standing.rank) }),
      h(
        "th",
        { scope: "row" },
        bot ? h("span", { text: shown }) : h("a", { href: `/players/${encodeURIComponent(standing.name)}`, "data-link": true, text: shown }),
        " ",
        h("span", { class: `mark ${bot ? "bot-mark" : "account-mark"}`, text: t(bot ? "board.bot" : "board.account") }),
      ),
      h("td", { class: "num rating", text: i18n.num(standing.rating) }),
      h("td", { class: "num", text: i18n.num(standing.games) }),
    );
  }

  function draw() {
    const title = t("board.title", { game: gameTitle(name) });
    document.title = `${title} · ${t("app.name")}`;
    const switcher = h(
      "nav",
      { class: "row board-games", "aria-label": t("board.games") },
      ...games.map((g) =>
        h("a", {
          href: `/leaderboard/${encodeURIComponent(g.name)}`,
          "data-link": true,
          class: `btn small${g.name === name ? " primary" : ""}`,
          "aria-current": g.name === name ? "page" : null,
          text: gameTitle(g.name),
        }),
      ),
    );
    let body;
    if (failure) {
      body = h("p", { class: "error-box", role: "alert", text: failure.status === 404 ? t("board.no_game") : ctx.errorText(failure) });
    } else if (!data.standings.length) {
      body = h("p", { class: "hint", text: t("board.empty") });
    } else {
      body = h(
        "div",
        { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "board-caption" },
        h(
          "table",
          { class: "data-table leaderboard" },
          h("caption", { id: "board-caption", text: title }),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col", class: "num", text: t("board.rank") }),
              h("th", { scope: "col", text: t("board.player") }),
              h("th", { scope: "col", class: "num", text: t("board.rating") }),
              h("th", { scope: "col", class: "num", text: t("board.games_played") }),
            ),
          ),
          h("tbody", {}, ...data.standings.map(row)),
        ),
      );
    }
    put(
      root,
      h(
        "div",
        { class: "community-page leaderboard-page" },
        h("h1", { text: title }),
        switcher,
        h("p", { class: "hint", text: t("board.explain") }),
        h("section", { class: "panel" }, body),
      ),
    );
  }

  draw();
  return { destroy() {}, refresh: draw };
}
