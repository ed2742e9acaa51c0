// Taking a seat (the join form: seat, name, seed) and the invite links to the free seats, while
// the table is open (leaving a seat is table/seat.js').

import { h as el, put } from "../dom.js";

export function createJoin({ store, ctx, tableId, connection, invitedSeat }) {
  const { t, api, i18n } = ctx;
  const joinPanel = el("section", { class: "panel join-panel", hidden: true });
  const invitePanel = el("section", { class: "panel invite-panel", hidden: true });
  let drawn = null; // what the panels were drawn for: typing is never lost to a redraw

  function joinForm(free) {
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
      value: ctx.session?.get().user?.name || api.savedName(), // (an account plays under its own name)
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
      if (!api.seedOk(seedInput.value.trim())) {
        error.textContent = t("join.seed_bad");
        seedInput.setAttribute("aria-invalid", "true");
        seedInput.focus();
        return;
      }
      api.saveName(name);
      const body = { seat, name };
      if (seedInput.value.trim()) body.seed = seedInput.value.trim();
      try {
        const joined = await api.join(tableId, body);
        api.saveSeat(tableId, joined.seat, joined.token);
        connection.hello(joined.token);
        ctx.announce(t("join.joined", { n: joined.seat + 1 }));
        store.set({ seat: joined.seat, table: joined.table });
      } catch (failure) {
        error.textContent = ctx.errorText(failure);
      }
    });
    return form;
  }

  function inviteList(state) {
    const { table } = state;
    const list = el("ul", { class: "invite-list" });
    for (const seat of table.seats) {
      if (seat.kind !== "human" || seat.taken) continue;
      const link = `${location.origin}/t/${table.id}?seat=${seat.seat + 1}`; // (seat N, from 1)
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
    return list;
  }

  function render(state) {
    const { table, seat: mySeat } = state;
    const open = table.status === "open";
    joinPanel.hidden = !open || mySeat !== null;
    invitePanel.hidden = !open;
    // drawn again only when the free seats (or the language) change
    const free = table.seats.filter((seat) => seat.kind === "human" && !seat.taken);
    const key = `${i18n.lang()}|${free.map((seat) => seat.seat).join(",")}|${mySeat}|${joinPanel.hidden}|${invitePanel.hidden}`;
    if (key === drawn) return;
    drawn = key;
    if (!joinPanel.hidden) {
      put(joinPanel, el("h2", { text: t("join.title") }));
      joinPanel.append(free.length ? joinForm(free) : el("p", { text: t("join.full") }));
      joinPanel.append(el("p", { class: "hint", text: t("join.spectating") }));
    }
    if (!invitePanel.hidden) {
      put(invitePanel, el("h2", { text: t("invite.title") }), inviteList(state), el("p", { class: "hint", text: t("invite.waiting") }));
    }
  }

  return { nodes: [joinPanel, invitePanel], render };
}
