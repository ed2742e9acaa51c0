// What the table's panels share: the seats' names, whether the game is over, the context a
// game's plugin is given (docs/browser.md) and modal dialogs.

/** Each seat's name as the table shows it: a bot by its translated name, a person by theirs. */
export function seatNames(table, t) {
  return table.seats.map((seat) => {
    if (seat.kind === "bot") return t(`bot.${seat.bot}`, { fallback: seat.bot });
    return seat.name || t("seat.number", { n: seat.seat + 1 });
  });
}

/** Is the game over (the table says so, or the view)? */
export function isOver(state) {
  const view = state.message?.view;
  return state.table.status === "finished" || view?.phase === "over" || view?.current_player === -2;
}

/** The context a plugin's functions receive: texts, the language, this page's seat, the names. */
export function pluginContext(state, ctx, extra = {}) {
  return {
    t: ctx.t,
    i18n: ctx.i18n,
    lang: ctx.i18n.lang(),
    seat: state.seat,
    names: seatNames(state.table, ctx.t),
    announce: ctx.announce,
    ...extra,
  };
}

/** A modal dialog: native <dialog> (the rest of the page inert, Escape closes) with focus
 * returned to where it was. */
export function openDialog(dialog, focus) {
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

/** Is a key press meant for a field (typing) rather than for a shortcut? */
export function typing(target) {
  return target instanceof HTMLElement && target.closest("input, select, textarea, [contenteditable]");
}
