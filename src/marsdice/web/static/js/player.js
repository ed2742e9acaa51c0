// A player's page (/players/{name}, GET /api/players/{name}): per game the games played and
// won, the win rate by seat count and the average score; the ratings; the rating after each
// rated game as a chart (js/chart.js, drawn like the review's); the latest games, each with
// its links (the table's end, the replay, the review, the record).

import { lineChart } from "./chart.js";
import { h, put } from "./dom.js";
import { gameLinks } from "./finished.js";

export async function mount(root, name, ctx) {
  const { t, i18n } = ctx;
  const games = await ctx.games().catch(() => []);
  let data = null;
  let failure = null;
  try {
    data = await ctx.api.player(name);
  } catch (error) {
    failure = error;
  }
  const gameTitle = (game) => t(`game.${game}`, { fallback: games.find((g) => g.name === game)?.title || game });
  const when = (iso) => {
    try {
      return new Intl.DateTimeFormat(i18n.lang(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
    } catch {
      return iso;
    }
  };
  const day = (iso) => {
    try {
      return new Intl.DateTimeFormat(i18n.lang(), { dateStyle: "long" }).format(new Date(iso));
    } catch {
      return iso;
    }
  };

  /** Each rating with its game. */
  function ratingsByGame() {
    return (data.ratings || []).map((r) => [r.game, r]);
  }

  function summaryCard(game, entry) {
    const seatRows = Object.entries(entry.by_seats || {})
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([seats, line]) =>
        h(
          "tr",
          { "data-seats": seats },
          h("th", { scope: "row", text: t("player.seats_n", { count: Number(seats) }) }),
          h("td", { class: "num", text: i18n.num(line.played) }),
          h("td", { class: "num", text: i18n.num(line.won) }),
          h("td", { class: "num", text: i18n.pct(line.win_rate) }),
        ),
      );
    const stat = (label, value, key) => h("div", { class: "stat", "data-stat": key }, h("dt", { text: label }), h("dd", { text: value }));
    return h(
      "section",
      { class: "panel player-game", "data-game": game, "aria-labelledby": `player-game-${game}` },
      h("h2", { id: `player-game-${game}`, text: gameTitle(game) }),
      h(
        "dl",
        { class: "stats" },
        stat(t("player.played"), i18n.num(entry.played), "played"),
        stat(t("player.won"), i18n.num(entry.won), "won"),
        stat(t("player.win_rate"), i18n.pct(entry.win_rate), "win_rate"),
        stat(t("player.average_score"), i18n.num(entry.average_score, 1), "average_score"),
      ),
      h(
        "div",
        { class: "table-scroll" },
        h(
          "table",
          { class: "data-table by-seats" },
          h("caption", { text: t("player.by_seats", { game: gameTitle(game) }) }),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col", text: t("player.table_size") }),
              h("th", { scope: "col", class: "num", text: t("player.played") }),
              h("th", { scope: "col", class: "num", text: t("player.won") }),
              h("th", { scope: "col", class: "num", text: t("player.win_rate") }),
            ),
          ),
          h("tbody", {}, seatRows),
        ),
      ),
    );
  }

  function ratingsSection() {
    const paired = ratingsByGame();
    return h(
      "section",
      { class: "panel player-ratings", "aria-labelledby": "player-ratings-title" },
      h("h2", { id: "player-ratings-title", text: t("player.ratings") }),
      paired.length
        ? h(
            "ul",
            { class: "rating-list" },
            ...paired.map(([game, r]) =>
              h(
                "li",
                { "data-game": game || "" },
                game ? h("a", { href: `/leaderboard/${encodeURIComponent(game)}`, "data-link": true, text: gameTitle(game) }) : null,
                game ? ": " : null,
                h("strong", { class: "rating", text: i18n.num(r.rating) }),
                " ",
                h("span", { class: "hint", text: t("player.rated_games", { count: r.games }) }),
              ),
            ),
          )
        : h("p", { class: "hint", text: t("player.no_ratings") }),
      ratingChart(),
    );
  }

  function ratingChart() {
    // oldest first: each rated game a step, one line per game
    const rated = data.history.filter((g) => g.rated && g.rating !== null && g.rating !== undefined).slice().reverse();
    if (!rated.length) return null;
    const byGame = new Map();
    rated.forEach((g, index) => {
      if (!byGame.has(g.game)) byGame.set(g.game, []);
      byGame.get(g.game).push({ x: index + 1, value: g.rating, when: `${gameTitle(g.game)} · ${when(g.finished_at)}` });
    });
    const lines = [...byGame].map(([game, points]) => ({ name: gameTitle(game), points }));
    const desc = lines
      .map((line) => t("player.chart_line", { game: line.name, first: i18n.num(line.points[0].value), last: i18n.num(line.points[line.points.length - 1].value) }))
      .join(" ");
    const chart = lineChart(
      lines,
      {
        title: t("player.chart_title"),
        desc,
        axis: t("player.chart_axis", { count: rated.length }),
        table: t("player.chart_table"),
        columns: [t("player.col_game_n"), t("player.col_game"), t("player.col_when"), t("player.col_rating")],
      },
      (value) => i18n.num(value),
    );
    return chart ? h("div", { class: "player-chart" }, chart) : null;
  }

  function historyItem(g) {
    const names = g.players
      .slice()
      .sort((a, b) => a.placing - b.placing || a.seat - b.seat)
      .map((p) => `${t("end.place", { n: p.placing })} ${p.name}`);
    const change = g.rated && g.rating !== null && g.rating_before !== null ? g.rating - g.rating_before : null;
    return h(
      "li",
      { class: "history-item", "data-table": g.table },
      h(
        "p",
        { class: "history-head" },
        h("strong", { text: gameTitle(g.game) }),
        " · ",
        h("span", { text: when(g.finished_at) }),
        " · ",
        h("span", { class: g.won ? "won" : null, text: g.won ? t("player.won_game") : t("player.place_of", { place: g.placing, seats: g.seats }) }),
        " · ",
        h("span", { text: t("end.points", { count: g.score }) }),
        change !== null
          ? h("span", { class: "rating-change", text: ` · ${t("player.rating_after", { rating: i18n.num(g.rating), change: `${change >= 0 ? "+" : "−"}${i18n.num(Math.abs(change))}` })}` })
          : h("span", { class: "hint", text: ` · ${t("player.unrated")}` }),
      ),
      h("p", { class: "hint history-players", text: names.join(", ") }),
      gameLinks(ctx, g.table),
    );
  }

  function draw() {
    if (failure) {
      document.title = `${t("player.title", { name })} · ${t("app.name")}`;
      put(
        root,
        h(
          "div",
          { class: "community-page" },
          h("h1", { text: t("player.title", { name }) }),
          h("p", { class: "error-box", role: "alert", text: failure.status === 404 ? t("player.not_found", { name }) : ctx.errorText(failure) }),
          h("a", { href: "/", "data-link": true, text: t("nav.back_lobby") }),
        ),
      );
      return;
    }
    const shown = data.player.name;
    document.title = `${t("player.title", { name: shown })} · ${t("app.name")}`;
    const summaries = Object.entries(data.summary || {});
    put(
      root,
      h(
        "div",
        { class: "community-page player-page" },
        h("h1", { text: t("player.title", { name: shown }) }),
        h("p", { class: "hint", text: t("player.since", { date: day(data.player.created_at) }) }),
        summaries.length ? h("div", { class: "player-games" }, ...summaries.map(([game, entry]) => summaryCard(game, entry))) : h("p", { class: "hint", text: t("player.no_games") }),
        ratingsSection(),
        h(
          "section",
          { class: "panel player-history", "aria-labelledby": "player-history-title" },
          h("h2", { id: "player-history-title", text: t("player.history") }),
          data.history.length ? h("ol", { class: "history-list" }, ...data.history.map(historyItem)) : h("p", { class: "hint", text: t("player.no_games") }),
        ),
      ),
    );
  }

  draw();
  return { destroy() {}, refresh: draw };
}
