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

/**
 * The shortcut a key press means, on any keyboard layout: `find(key)` is asked for the key's
 * own character when it is a Latin letter or a digit (QWERTY, AZERTY), else for the key's place
 * on a US keyboard (`event.code`: KeyG, Digit1, Numpad1), so a Russian or Greek layout, whose
 * letters are not Latin, presses the same buttons, and so do AZERTY's unshifted digits (&é").
 * Returns what `find` found, or null.
 */
export function keyOf(event, find) {
  const typed = event.key && event.key.length === 1 ? event.key.toLowerCase() : null;
  if (typed && /^[a-z0-9]$/.test(typed)) return find(typed) || null; // the layout's own Latin key
  const place = /^(?:Key([A-Z])|Digit([0-9])|Numpad([0-9]))$/.exec(event.code || "");
  if (!place) return null;
  return find((place[1] || place[2] || place[3]).toLowerCase()) || null;
}

/** Is this key press the rules' "?" (on any layout: Shift with the US "/" key too)? */
export function isHelpKey(event) {
  return event.key === "?" || (event.code === "Slash" && event.shiftKey);
}
