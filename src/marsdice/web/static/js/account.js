// The person's account (docs/browser.md, "Accounts"): who is signed in (the session is an
// HttpOnly cookie the page never sees: it asks GET /api/account), the header's area on every
// page ("Sign in", or the name with a menu: the profile, the account page, sign out), and the
// account page /account: sign in, sign up, change the password, sign out.

import { h, put } from "./dom.js";

/** The signed-in account as the page knows it: get() {user, signup, known}, refresh() (asks
 * the server), set(answer) (an account answer: sign-in, sign-up), subscribe(listener). */
export function createSession(api) {
  let state = Object.freeze({ user: null, signup: true, known: false });
  const listeners = new Set();
  const set = (answer) => {
    state = Object.freeze({ user: answer?.user ?? null, signup: answer?.signup ?? state.signup, known: true });
    for (const listener of [...listeners]) listener(state);
    return state;
  };
  return {
    get: () => state,
    set,
    async refresh() {
      try {
        return set(await api.account());
      } catch {
        return state; // (the server is away: the page goes on as a guest)
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** A path to go back to after signing in: only this site's own (never "//elsewhere"). */
export function safeNext(next) {
  return typeof next === "string" && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : null;
}

/** Sign out, say so and draw the page again (what it shows may depend on the account). */
export async function signOut(ctx) {
  try {
    await ctx.api.signOut();
  } catch (failure) {
    ctx.toast(ctx.errorText(failure), "error");
    return;
  }
  ctx.session.set({ user: null });
  ctx.toast(ctx.t("account.signed_out"));
  ctx.announce(ctx.t("account.signed_out"));
  ctx.navigate(location.pathname + location.search, true);
}

/** The header's account area: "Sign in", or the name opening a small menu (a disclosure:
 * Escape or a click elsewhere closes it). Returns a function that draws it again. */
export function mountAccountArea(box, ctx) {
  const { t } = ctx;
  let open = false;
  let button = null;
  let list = null;

  function setOpen(value, focusButton = false) {
    open = value;
    if (!button) return;
    button.setAttribute("aria-expanded", String(open));
    list.hidden = !open;
    if (!open && focusButton) button.focus();
  }

  function draw() {
    const { user, known } = ctx.session.get();
    button = null;
    list = null;
    open = false;
    if (!known) return put(box);
    if (!user) {
      const next = safeNext(location.pathname + location.search);
      const href = next && next !== "/account" ? `/account?next=${encodeURIComponent(next)}` : "/account";
      return put(box, h("a", { href, "data-link": true, class: "account-signin", text: t("account.sign_in") }));
    }
    button = h(
      "button",
      { type: "button", class: "account-button", "aria-expanded": "false", "aria-controls": "account-menu-list", onclick: () => setOpen(!open) },
      h("span", { class: "sr-only", text: `${t("account.menu")}: ` }),
      h("span", { class: "account-name", text: user.name }),
      h("span", { "aria-hidden": "true", text: " ▾" }),
    );
    list = h(
      "ul",
      { id: "account-menu-list", class: "account-menu-list", hidden: true },
      h("li", {}, h("a", { href: `/players/${encodeURIComponent(user.name)}`, "data-link": true, text: t("account.profile"), onclick: () => setOpen(false) })),
      h("li", {}, h("a", { href: "/account", "data-link": true, text: t("account.settings"), onclick: () => setOpen(false) })),
      h("li", {}, h("button", { type: "button", class: "account-signout", text: t("account.sign_out"), onclick: () => (setOpen(false), signOut(ctx)) })),
    );
    put(box, h("div", { class: "account-menu" }, button, list));
  }

  box.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && open) {
      event.preventDefault();
      setOpen(false, true);
    }
  });
  document.addEventListener("click", (event) => {
    if (open && !box.contains(event.target)) setOpen(false);
  });
  box.addEventListener("focusout", (event) => {
    if (open && event.relatedTarget && !box.contains(event.relatedTarget)) setOpen(false);
  });
  ctx.session.subscribe(draw);
  draw();
  return draw;
}

/** The field a server's answer names (a 422's `field`, or what its code is about). */
function fieldOf(failure, fields) {
  const byCode = {
    bad_name: "name",
    name_unavailable: "name",
    bad_password: fields.includes("new") ? "new" : "password",
    bad_credentials: "current", // (the password form's: the sign-in form says it under the form)
  };
  const named = failure?.field ? String(failure.field).split(".").pop() : byCode[failure?.code];
  return fields.includes(named) ? named : null;
}

/** The words for an account error (a 429 says how long to wait). */
function accountError(ctx, failure) {
  if (failure?.code === "too_many_attempts" && failure.retryAfter) return ctx.t("error.too_many_attempts_wait", { count: failure.retryAfter });
  if (failure?.code === "bad_request" && failure.field) {
    const field = String(failure.field).split(".").pop();
    if (ctx.i18n.has(`account.bad_${field}`)) return ctx.t(`account.bad_${field}`);
  }
  return ctx.errorText(failure);
}

/**
 * A small form: `fields` [{name, label, type, autocomplete, hint}], `submit(values)` resolving
 * on success. Every error goes next to its field (or under the form), the focus on it.
 */
function accountForm(ctx, id, title, fields, buttonText, submit) {
  const form = h("form", { class: "account-form", id, novalidate: true, "aria-labelledby": `${id}-title` });
  const inputs = {};
  const errors = {};
  form.append(h("h2", { id: `${id}-title`, text: title }));
  for (const field of fields) {
    const inputId = `${id}-${field.name}`;
    const errorId = `${inputId}-error`;
    const hintId = field.hint ? `${inputId}-hint` : null;
    inputs[field.name] = h("input", {
      id: inputId,
      name: field.name,
      type: field.type || "text",
      autocomplete: field.autocomplete,
      required: true,
      maxlength: field.maxlength || null,
      autocapitalize: field.type === "password" ? null : "none",
      spellcheck: "false",
      "aria-describedby": [hintId, errorId].filter(Boolean).join(" "),
    });
    errors[field.name] = h("span", { class: "field-error", id: errorId });
    form.append(
      h(
        "div",
        { class: "field" },
        h("label", { for: inputId, text: field.label }),
        inputs[field.name],
        field.hint ? h("small", { class: "hint", id: hintId, text: field.hint }) : null,
        errors[field.name],
      ),
    );
  }
  const formError = h("p", { class: "field-error form-error", role: "alert" });
  const button = h("button", { type: "submit", class: "btn primary", text: buttonText });
  form.append(formError, h("div", { class: "row" }, button));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    formError.textContent = "";
    for (const field of fields) {
      errors[field.name].textContent = "";
      inputs[field.name].removeAttribute("aria-invalid");
    }
    const values = Object.fromEntries(fields.map((field) => [field.name, inputs[field.name].value]));
    const missing = fields.find((field) => !values[field.name].trim());
    if (missing) {
      errors[missing.name].textContent = ctx.t("account.missing");
      inputs[missing.name].setAttribute("aria-invalid", "true");
      inputs[missing.name].focus();
      return;
    }
    button.disabled = true;
    try {
      await submit(values);
    } catch (failure) {
      const field = fieldOf(failure, fields.map((f) => f.name));
      const text = field === "current" && failure.code === "bad_credentials" ? ctx.t("account.wrong_current") : accountError(ctx, failure);
      if (field) {
        errors[field].textContent = text;
        inputs[field].setAttribute("aria-invalid", "true");
        inputs[field].focus();
      } else {
        formError.textContent = text;
      }
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** The account page: signed out, the sign-in and sign-up forms (then back to `?next=`);
 * signed in, the name, the password change and sign out. */
export async function mount(root, ctx, params) {
  const { t } = ctx;
  await ctx.session.refresh();
  const next = safeNext(params.get("next")) || null;

  function signedIn(answer, message) {
    ctx.session.set(answer);
    ctx.toast(message);
    ctx.announce(message);
    ctx.navigate(next || `/players/${encodeURIComponent(answer.user.name)}`);
  }

  function draw() {
    const { user, signup } = ctx.session.get();
    document.title = `${t(user ? "account.title" : "account.sign_in")} · ${t("app.name")}`;
    if (user) {
      const change = accountForm(
        ctx,
        "password-form",
        t("account.change_password"),
        [
          { name: "current", label: t("account.current_password"), type: "password", autocomplete: "current-password" },
          { name: "new", label: t("account.new_password"), type: "password", autocomplete: "new-password", hint: t("account.password_rules") },
        ],
        t("account.change_button"),
        async ({ current, new: fresh }) => {
          ctx.session.set(await ctx.api.changePassword(current, fresh));
          ctx.toast(t("account.password_changed"));
          ctx.announce(t("account.password_changed"));
          draw();
        },
      );
      put(
        root,
        h(
          "div",
          { class: "account-page" },
          h("h1", { text: t("account.title") }),
          h(
            "section",
            { class: "panel" },
            h("p", {}, t("account.signed_in_as"), " ", h("strong", { class: "account-who", text: user.name })),
            h(
              "p",
              { class: "row" },
              h("a", { href: `/players/${encodeURIComponent(user.name)}`, "data-link": true, class: "btn", text: t("account.profile") }),
              h("button", { type: "button", class: "btn ghost", id: "signout-button", text: t("account.sign_out"), onclick: () => signOut(ctx) }),
            ),
          ),
          h("section", { class: "panel" }, change),
        ),
      );
      return;
    }
    const signIn = accountForm(
      ctx,
      "signin-form",
      t("account.sign_in"),
      [
        { name: "name", label: t("account.name"), autocomplete: "username", maxlength: 64 },
        { name: "password", label: t("account.password"), type: "password", autocomplete: "current-password" },
      ],
      t("account.sign_in_button"),
      async ({ name, password }) => signedIn(await ctx.api.signIn(name.trim(), password), t("account.signed_in", { name: name.trim() })),
    );
    const signUp = signup
      ? accountForm(
          ctx,
          "signup-form",
          t("account.sign_up"),
          [
            { name: "name", label: t("account.name"), autocomplete: "username", maxlength: 24, hint: t("account.name_rules") },
            { name: "password", label: t("account.password"), type: "password", autocomplete: "new-password", hint: t("account.password_rules") },
          ],
          t("account.sign_up_button"),
          async ({ name, password }) => signedIn(await ctx.api.signUp(name.trim(), password), t("account.welcome", { name: name.trim() })),
        )
      : h("div", {}, h("h2", { text: t("account.sign_up") }), h("p", { class: "hint", text: t("account.signup_closed") }));
    put(
      root,
      h(
        "div",
        { class: "account-page" },
        h("h1", { text: t("account.sign_in") }),
        h("p", { class: "lead hint", text: t("account.why") }),
        h("div", { class: "account-grid" }, h("section", { class: "panel" }, signIn), h("section", { class: "panel" }, signUp)),
      ),
    );
  }

  draw();
  return { destroy() {}, refresh: draw };
}
