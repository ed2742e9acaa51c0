// The review's picture (docs/review.md, "The chart"): each player's value over the game, drawn
// by the page as an SVG from the review's JSON. Win probabilities (exact or the approximation)
// and solo expected turns are lines, one per player, through the value after each of their
// decisions and rolls; Mars Attacks, whose values are the planner's estimates of one turn (no
// chance to win), is drawn as what each decision lost. Blunders and mistakes are marked with
// their symbols. The same numbers are in a table under the chart (screen readers, printing),
// and the SVG has a title and a description; colour is never the only signal (each player's
// line has its own dash and point shape, and a legend with names).

import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 720;
const H = 240;
const PAD = { left: 46, right: 14, top: 14, bottom: 30 };
const DASHES = ["", "7 4", "2 3", "10 3 2 3", "4 4", "1 5"];
const MARKED = { blunder: "??", mistake: "?" };
let serial = 0;

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

/** Each player's points: [{index, value, kind: "decision"|"roll", mark}] in game order. */
export function series(review) {
  const lines = review.players.map(() => []);
  const planner = review.method === "planner-estimate";
  for (const d of review.decisions) {
    const value = planner ? d.loss : d.value;
    if (value === null || value === undefined) continue;
    lines[d.seat].push({ index: d.index, value, kind: "decision", mark: d.mark, played: d.played });
  }
  if (!planner) {
    for (const step of review.luck) lines[step.seat].push({ index: step.index, value: step.after, kind: "roll", mark: null });
  }
  for (const line of lines) line.sort((a, b) => a.index - b.index);
  return lines;
}

/**
 * The chart and its table for `review` (players named `names`), or null when it has nothing
 * to draw. `fmt.value` words a value (the review page's units), `t` the review's texts.
 * Returns {node, mark(index)}: mark(index) draws the replay's "you are here" line.
 */
export function reviewChart(review, names, t, fmt) {
  const lines = series(review);
  const points = lines.flat();
  if (!points.length) return null;
  const planner = review.method === "planner-estimate";
  const solo = review.unit === "expected turns";
  const last = Math.max(...points.map((p) => p.index), 1);
  const top = planner || solo ? Math.max(...points.map((p) => p.value), planner ? review.thresholds.blunder : 1) * 1.08 : 1;
  const x = (index) => PAD.left + ((W - PAD.left - PAD.right) * (index - 1)) / Math.max(last - 1, 1);
  const y = (value) => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * value) / top;
  const id = `rv-chart-${(serial += 1)}`;
  const kind = planner ? "loss" : solo ? "turns" : review.method === "approximation" ? "rating" : "win";
  const title = t(`chart.title.${kind}`);
  const root = svg("svg", {
    class: "rv-chart-svg",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-labelledby": `${id}-title ${id}-desc`,
    preserveAspectRatio: "xMidYMid meet",
  });
  const desc = lines
    .map((line, seat) => {
      if (!line.length) return t("chart.desc_none", { name: names[seat] });
      const marks = line.filter((p) => MARKED[p.mark]).length;
      if (planner) return t("chart.desc_loss", { name: names[seat], count: marks, total: fmt.loss(line.reduce((s, p) => s + p.value, 0)) });
      return t("chart.desc_line", { name: names[seat], first: fmt.value(line[0].value), last: fmt.value(line[line.length - 1].value), count: marks });
    })
    .join(" ");
  root.append(svg("title", { id: `${id}-title` }, title), svg("desc", { id: `${id}-desc` }, desc));

  // the grid: quarters of the scale, labelled
  const grid = svg("g", { class: "rv-grid", "aria-hidden": "true" });
  for (let q = 0; q <= 4; q += 1) {
    const value = (top * q) / 4;
    grid.append(
      svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(value), y2: y(value) }),
      svg("text", { x: PAD.left - 6, y: y(value) + 4, "text-anchor": "end" }, planner || solo ? fmt.axis(value) : `${Math.round(100 * value)}%`),
    );
  }
  grid.append(svg("text", { x: W - PAD.right, y: H - 8, "text-anchor": "end" }, t("chart.axis_steps", { count: last })));
  grid.append(svg("text", { x: PAD.left, y: H - 8, "text-anchor": "start" }, "1"));
  root.append(grid);

  // the players: lines (or bars of loss), points, marks
  lines.forEach((line, seat) => {
    const group = svg("g", { class: `rv-series seat-c${seat % 6}`, "data-seat": seat, "aria-hidden": "true" });
    if (planner) {
      const width = Math.max(2, Math.min(8, (W - PAD.left - PAD.right) / (last * 1.2)));
      for (const p of line) {
        if (p.value <= 0) continue;
        group.append(svg("rect", { class: "rv-bar", x: x(p.index) - width / 2, width, y: y(p.value), height: Math.max(0, y(0) - y(p.value)) }));
      }
    } else if (line.length) {
      const d = line.map((p, i) => `${i ? "L" : "M"}${x(p.index).toFixed(1)} ${y(p.value).toFixed(1)}`).join(" ");
      group.append(svg("path", { class: "rv-line", d, "stroke-dasharray": DASHES[seat % DASHES.length] || null }));
    }
    for (const p of line) {
      const symbol = MARKED[p.mark];
      if (!symbol) continue;
      group.append(
        svg("circle", { class: `rv-point mark-${p.mark}`, cx: x(p.index), cy: y(p.value), r: p.mark === "blunder" ? 5 : 3.5 }),
        svg("text", { class: `rv-point-label mark-${p.mark}`, x: x(p.index), y: y(p.value) - 8, "text-anchor": "middle" }, symbol),
      );
    }
    root.append(group);
  });
  const here = svg("line", { class: "rv-here", x1: 0, x2: 0, y1: PAD.top, y2: H - PAD.bottom, visibility: "hidden", "aria-hidden": "true" });
  root.append(here);

  const legend = h(
    "ul",
    { class: "rv-legend" },
    names.map((name, seat) =>
      h(
        "li",
        { class: `seat-c${seat % 6}` },
        h("span", { class: `rv-legend-line${planner ? " is-bar" : ""}`, "data-dash": String(seat % DASHES.length), "aria-hidden": "true" }),
        name,
      ),
    ),
    h("li", { class: "rv-legend-marks" }, `?? ${t("mark.blunder")} · ? ${t("mark.mistake")}`),
  );

  // the same numbers as a table (every point of every player, in game order)
  const rows = points
    .slice()
    .sort((a, b) => a.index - b.index)
    .map((p) => {
      const seat = lines.findIndex((line) => line.includes(p));
      return h(
        "tr",
        { class: p.mark && MARKED[p.mark] ? `mark-${p.mark}` : null },
        h("td", { text: `#${p.index}` }),
        h("td", { text: names[seat] }),
        h("td", { text: t(p.kind === "roll" ? "chart.kind_roll" : "chart.kind_decision") }),
        h("td", { text: planner ? fmt.loss(p.value) : fmt.value(p.value) }),
        h("td", { text: p.mark && MARKED[p.mark] ? `${MARKED[p.mark]} ${t(`mark.${p.mark}`)}` : "" }),
      );
    });
  const table = h(
    "details",
    { class: "rv-chart-table" },
    h("summary", { text: t("chart.table") }),
    h(
      "div",
      { class: "rv-table-scroll", tabindex: "0", role: "region", "aria-label": t("chart.table") },
      h(
        "table",
        {},
        h("caption", { class: "sr-only", text: title }),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            [t("chart.col_step"), t("chart.col_player"), t("chart.col_kind"), t(planner ? "chart.col_loss" : "chart.col_value"), t("chart.col_mark")].map((text) => h("th", { scope: "col", text })),
          ),
        ),
        h("tbody", {}, rows),
      ),
    ),
  );
  // on a phone the chart keeps a readable size and scrolls sideways in its own box (the page
  // itself never scrolls sideways)
  const scroller = h("div", { class: "rv-chart-scroll", tabindex: "0", role: "group", "aria-label": title }, root);
  const node = h(
    "figure",
    { class: "rv-chart" },
    scroller,
    h("figcaption", {}, h("span", { class: "rv-chart-title", text: title }), " ", h("span", { class: "rv-chart-note", text: t(`chart.note.${kind}`) })),
    legend,
    table,
  );
  return {
    node,
    mark(index) {
      if (!index) {
        here.setAttribute("visibility", "hidden");
        return;
      }
      here.setAttribute("x1", x(index));
      here.setAttribute("x2", x(index));
      here.setAttribute("visibility", "visible");
    },
  };
}

/**
 * A line chart of plain values over steps (a player's rating after each rated game), drawn
 * like the review's (same styles: one dash and colour per line, a legend, the numbers as a
 * table under it). `lines`: [{name, points: [{x, value, when}]}], `x` counted from 1 over all
 * lines; `text`: {title, desc, axis (the x axis' label for `last`), table, columns: [step,
 * line, when, value]}; `format(value)` words a value. Null when there is nothing to draw.
 */
export function lineChart(lines, text, format) {
  const points = lines.flatMap((line) => line.points);
  if (!points.length) return null;
  const last = Math.max(...points.map((p) => p.x), 1);
  let lo = Math.min(...points.map((p) => p.value));
  let hi = Math.max(...points.map((p) => p.value));
  const room = Math.max((hi - lo) * 0.1, 10);
  lo -= room;
  hi += room;
  const x = (step) => PAD.left + ((W - PAD.left - PAD.right) * (step - 1)) / Math.max(last - 1, 1);
  const y = (value) => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * (value - lo)) / (hi - lo);
  const id = `rv-chart-${(serial += 1)}`;
  const root = svg("svg", {
    class: "rv-chart-svg",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-labelledby": `${id}-title ${id}-desc`,
    preserveAspectRatio: "xMidYMid meet",
  });
  root.append(svg("title", { id: `${id}-title` }, text.title), svg("desc", { id: `${id}-desc` }, text.desc));
  const grid = svg("g", { class: "rv-grid", "aria-hidden": "true" });
  for (let q = 0; q <= 4; q += 1) {
    const value = lo + ((hi - lo) * q) / 4;
    grid.append(
      svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(value), y2: y(value) }),
      svg("text", { x: PAD.left - 6, y: y(value) + 4, "text-anchor": "end" }, format(Math.round(value))),
    );
  }
  grid.append(svg("text", { x: W - PAD.right, y: H - 8, "text-anchor": "end" }, text.axis));
  grid.append(svg("text", { x: PAD.left, y: H - 8, "text-anchor": "start" }, "1"));
  root.append(grid);
  lines.forEach((line, index) => {
    const group = svg("g", { class: `rv-series seat-c${index % 6}`, "data-line": index, "aria-hidden": "true" });
    const sorted = line.points.slice().sort((a, b) => a.x - b.x);
    if (sorted.length > 1) {
      const d = sorted.map((p, i) => `${i ? "L" : "M"}${x(p.x).toFixed(1)} ${y(p.value).toFixed(1)}`).join(" ");
      group.append(svg("path", { class: "rv-line", d, "stroke-dasharray": DASHES[index % DASHES.length] || null }));
    }
    for (const p of sorted) group.append(svg("circle", { class: "rv-point chart-point", cx: x(p.x), cy: y(p.value), r: 3.5 }));
    root.append(group);
  });
  const legend = h(
    "ul",
    { class: "rv-legend" },
    lines.map((line, index) =>
      h("li", { class: `seat-c${index % 6}` }, h("span", { class: "rv-legend-line", "data-dash": String(index % DASHES.length), "aria-hidden": "true" }), line.name),
    ),
  );
  const rows = lines
    .flatMap((line) => line.points.map((p) => ({ ...p, name: line.name })))
    .sort((a, b) => a.x - b.x)
    .map((p) => h("tr", {}, h("td", { text: `#${p.x}` }), h("td", { text: p.name }), h("td", { text: p.when }), h("td", { text: format(p.value) })));
  const table = h(
    "details",
    { class: "rv-chart-table" },
    h("summary", { text: text.table }),
    h(
      "div",
      { class: "rv-table-scroll", tabindex: "0", role: "region", "aria-label": text.table },
      h(
        "table",
        {},
        h("caption", { class: "sr-only", text: text.title }),
        h("thead", {}, h("tr", {}, text.columns.map((column) => h("th", { scope: "col", text: column })))),
        h("tbody", {}, rows),
      ),
    ),
  );
  const scroller = h("div", { class: "rv-chart-scroll", tabindex: "0", role: "group", "aria-label": text.title }, root);
  return h("figure", { class: "rv-chart" }, scroller, h("figcaption", {}, h("span", { class: "rv-chart-title", text: text.title })), legend, table);
}
