// The docsieve console: a page over the public API, nothing else. Every action is an API call a
// client could make. The session's refresh token lives in an HttpOnly cookie the page cannot read
// (POST /v1/auth/session); the access token is kept in this module's memory only, and renewed through
// /v1/auth/session/refresh when it expires or the page is reloaded.

import { TEXTS, ERRORS } from "/console/assets/texts.js";

const BROWSER = { "X-Docsieve-Browser": "1" };
const state = { access: null, me: null, lang: pickLanguage() };
const main = document.getElementById("main");

// ---------------------------------------------------------------- texts

function pickLanguage() {
  const saved = localStorage.getItem("docsieve.language");
  if (saved === "en" || saved === "tr") return saved;
  return (navigator.language || "en").toLowerCase().startsWith("tr") ? "tr" : "en";
}

/** The text `key` in the page's language, `{name}` placeholders filled from `values`. */
export function t(key, values = {}) {
  const text = (TEXTS[state.lang] && TEXTS[state.lang][key]) || TEXTS.en[key] || key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in values ? String(values[name]) : ""));
}

function applyStaticTexts() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  document.getElementById("language").value = state.lang;
}

// ---------------------------------------------------------------- DOM helpers

/** An element: `h("p", {class: "x", onclick: f}, "text", child)`. Text is never parsed as HTML. */
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function announce(text) {
  const region = document.getElementById("announce");
  region.textContent = "";
  setTimeout(() => { region.textContent = text; }, 50);
}

/** A labelled input. */
export function field(id, label, attributes) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, name: id, required: true, ...attributes }));
}

// ---------------------------------------------------------------- API

/** The sentence for an API error, with what to do next. */
export function errorText(status, body) {
  const code = body && body.code;
  if (code === "validation_error" && Array.isArray(body.detail)) {
    const fields = body.detail.map((d) => `${(d.loc || []).slice(-1)[0] || ""}: ${d.msg}`).join("; ");
    return `${t("error_validation")} ${fields}`;
  }
  if (code && ERRORS[code]) return ERRORS[code][state.lang] || ERRORS[code].en;
  if (status === 0) return t("error_unreachable");
  const detail = body && typeof body.detail === "string" ? body.detail : "";
  return `${t("error_unknown", { status })}${detail ? " " + detail : ""}`;
}

async function send(method, path, options = {}) {
  const headers = { ...(options.headers || {}) };
  if (state.access && !options.anonymous) headers.Authorization = `Bearer ${state.access}`;
  let body;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form) {
    body = options.form;
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body, credentials: "same-origin" });
  } catch (error) {
    return { ok: false, status: 0, body: null };
  }
  if (options.raw && response.ok) return { ok: true, status: response.status, response };
  let parsed = null;
  const type = response.headers.get("content-type") || "";
  if (type.includes("json")) {
    try { parsed = await response.json(); } catch (error) { parsed = null; }
  }
  return { ok: response.ok, status: response.status, body: parsed };
}

/** Calls the API with the session's access token; renews the session once when it expired. */
export async function api(method, path, options = {}) {
  let answer = await send(method, path, options);
  if (answer.status === 401 && state.access && !options.anonymous) {
    if (await renew()) answer = await send(method, path, options);
    else signedOut();
  }
  return answer;
}

async function renew() {
  const answer = await send("POST", "/v1/auth/session/refresh", { headers: BROWSER, anonymous: true });
  state.access = answer.ok ? answer.body.data.access_token : null;
  return answer.ok;
}

/** The signed-in user (`GET /v1/me`), or null. */
export function me() {
  return state.me;
}

async function loadMe() {
  const answer = await api("GET", "/v1/me");
  state.me = answer.ok ? answer.body.data : null;
}

function signedOut() {
  state.access = null;
  state.me = null;
  location.hash = "#/sign-in";
}

// ---------------------------------------------------------------- lists and files

/** A table of `rows` under `columns` ([heading, cell(row)]); a sentence when there are none. */
export function table(id, caption, columns, rows) {
  if (!rows.length) return h("p", { id, class: "muted" }, t("nothing_yet"));
  // Focusable, so that a keyboard can scroll a table wider than the screen.
  return h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": caption }, h("table", { id },
    h("caption", { class: "visually-hidden" }, caption),
    h("thead", {}, h("tr", {}, columns.map(([heading]) => h("th", { scope: "col" }, heading)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, columns.map(([, cell]) => h("td", {}, cell(row))))))));
}

/** Paging links under a list: the API's `page`, `page_size` and `total`. */
export function pager(data, go) {
  const pages = Math.max(1, Math.ceil(data.total / data.page_size));
  return h("nav", { class: "pager", "aria-label": t("pages") },
    h("button", { type: "button", class: "secondary", disabled: data.page <= 1, onclick: () => go(data.page - 1) }, t("previous")),
    h("span", {}, t("page_of", { page: data.page, pages, total: data.total })),
    h("button", { type: "button", class: "secondary", disabled: data.page >= pages, onclick: () => go(data.page + 1) }, t("next")));
}

export function when(stamp) {
  return stamp ? new Date(stamp).toLocaleString(document.documentElement.lang) : "–";
}

/**
 * Fetches a file with the session's token and hands it to the browser as a download (a POST when
 * `json` or `form` is given: its body). Without a `name`, the answer's Content-Disposition names it.
 */
export async function download(path, name, status, json, form) {
  const post = json !== undefined || form !== undefined;
  const answer = await api(post ? "POST" : "GET", path, { raw: true, json, form });
  if (!answer.ok) {
    status.replaceChildren(failure(answer));
    return;
  }
  if (!name) {
    const disposition = answer.response.headers.get("content-disposition") || "";
    const named = /filename="([^"]+)"/.exec(disposition);
    name = named ? named[1] : "document";
  }
  const url = URL.createObjectURL(await answer.response.blob());
  const link = h("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  status.replaceChildren(ok(t("downloaded", { name })));
}

// ---------------------------------------------------------------- routing

const ROUTES = {};
const PUBLIC = new Set(["sign-in", "sign-up", "forgot", "verify-email", "reset-password", "accept-invitation"]);
const NAVIGATION = [["try", "nav_try"]];

/** Adds pages to the main navigation: `[[route, text key], ...]`. */
export function nav(entries) {
  NAVIGATION.push(...entries);
}

/** Registers a page: `render(params)` fills `main`. */
export function page(name, render) {
  ROUTES[name] = render;
}

function currentRoute() {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  return { name: path || (state.access ? "try" : "sign-in"), params: new URLSearchParams(query || "") };
}

function renderNavigation(active) {
  const nav = document.getElementById("nav");
  nav.replaceChildren();
  if (!state.access) return;
  for (const [name, key] of NAVIGATION) {
    nav.append(h("a", { href: `#/${name}`, "aria-current": name === active ? "page" : false }, t(key)));
  }
}

async function route() {
  const { name, params } = currentRoute();
  if (!PUBLIC.has(name) && !state.access) {
    location.hash = "#/sign-in";
    return;
  }
  const render = ROUTES[name] || ROUTES["not-found"];
  document.getElementById("sign-out").hidden = !state.access;
  renderNavigation(name);
  main.replaceChildren();
  await render(params);
  const heading = main.querySelector("h1");
  document.title = `${heading ? heading.textContent + " · " : ""}docsieve`;
  main.focus();
}

// ---------------------------------------------------------------- pages: accounts

/** An API error as a sentence, read out at once. */
export function failure(answer) {
  return h("p", { class: "message error", role: "alert" }, errorText(answer.status, answer.body));
}

/** A success message. */
export function ok(text) {
  return h("p", { class: "message ok", role: "status" }, text);
}

/** A form whose submit runs `action(values)`; its answer (a message) appears below the form. */
export function form(id, children, submitLabel, action) {
  const outcome = h("div", { id: `${id}-outcome` });
  const button = h("button", { type: "submit" }, submitLabel);
  const node = h("form", { id, class: "narrow", novalidate: false }, children, button);
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    outcome.replaceChildren();
    try {
      const shown = await action(Object.fromEntries(new FormData(node)));
      if (shown) outcome.replaceChildren(shown);
    } finally {
      button.disabled = false;
    }
  });
  return [node, outcome];
}

/** The email and password fields of a sign-in. */
function credentials() {
  return [
    field("email", t("email"), { type: "email", autocomplete: "username" }),
    field("password", t("password"), { type: "password", autocomplete: "current-password" }),
  ];
}

/** Opens a browser session (`POST /v1/auth/session`) with `{email, password}`. */
async function signIn(values) {
  const answer = await send("POST", "/v1/auth/session", {
    headers: BROWSER, json: { email: values.email, password: values.password }, anonymous: true,
  });
  if (answer.ok) {
    state.access = answer.body.data.access_token;
    await loadMe();
  }
  return answer;
}

page("sign-in", () => {
  main.append(h("h1", {}, t("sign_in_title")));
  main.append(...form("sign-in-form", [
    ...credentials(),
  ], t("sign_in"), async (values) => {
    const answer = await signIn(values);
    if (!answer.ok) return failure(answer);
    location.hash = "#/try";
    return null;
  }));
  main.append(h("p", {}, h("a", { href: "#/sign-up" }, t("no_account")), " · ",
    h("a", { href: "#/forgot" }, t("forgot_password"))));
});

page("sign-up", () => {
  main.append(h("h1", {}, t("sign_up_title")));
  main.append(...form("sign-up-form", [
    field("email", t("email"), { type: "email", autocomplete: "username" }),
    field("password", t("new_password"), { type: "password", autocomplete: "new-password", minlength: 8 }),
  ], t("sign_up"), async (values) => {
    const answer = await send("POST", "/v1/auth/signup", {
      json: { email: values.email, password: values.password }, anonymous: true,
    });
    if (!answer.ok) return failure(answer);
    return ok(t("signed_up", { email: answer.body.data.email }));
  }));
  main.append(h("p", {}, h("a", { href: "#/sign-in" }, t("have_account"))));
});

page("forgot", () => {
  main.append(h("h1", {}, t("forgot_title")));
  main.append(...form("forgot-form", [
    field("email", t("email"), { type: "email", autocomplete: "username" }),
  ], t("send_reset"), async (values) => {
    const answer = await send("POST", "/v1/auth/forgot-password", { json: { email: values.email }, anonymous: true });
    if (!answer.ok) return failure(answer);
    return ok(t("reset_sent"));
  }));
});

// The pages the mails link to (/verify-email, /reset-password and /accept-invitation send the
// browser here with the mail's token). A page acts only when the person asks: a mail scanner that
// opens the link uses nothing up.

/** The mail's token, or a sentence saying the link is incomplete. */
function tokenOf(params) {
  const token = params.get("token") || "";
  if (!token) main.append(h("p", { class: "message error", role: "alert" }, t("link_without_token")));
  return token;
}

page("verify-email", (params) => {
  main.append(h("h1", {}, t("verify_title")), h("p", {}, t("verify_intro")));
  const token = tokenOf(params);
  if (!token) return;
  main.append(...form("verify-form", [], t("verify_button"), async () => {
    const answer = await send("POST", "/v1/auth/verify-email", { json: { token }, anonymous: true });
    if (!answer.ok) return failure(answer);
    return h("div", {}, ok(t("verified")), h("p", {}, h("a", { href: "#/sign-in" }, t("sign_in"))));
  }));
});

page("reset-password", (params) => {
  main.append(h("h1", {}, t("reset_title")), h("p", {}, t("reset_intro")));
  const token = tokenOf(params);
  if (!token) return;
  main.append(...form("reset-form", [
    field("new_password", t("new_password"), { type: "password", autocomplete: "new-password", minlength: 8 }),
  ], t("reset_button"), async (values) => {
    const answer = await send("POST", "/v1/auth/reset-password", {
      json: { token, new_password: values.new_password }, anonymous: true,
    });
    if (!answer.ok) return failure(answer);
    return h("div", {}, ok(t("password_changed")), h("p", {}, h("a", { href: "#/sign-in" }, t("sign_in"))));
  }));
});

page("accept-invitation", (params) => {
  main.append(h("h1", {}, t("join_title")));
  const token = tokenOf(params);
  if (!token) return;
  const join = async () => {
    const answer = await api("POST", "/v1/team/accept", { json: { token } });
    if (!answer.ok) return failure(answer);
    // The session is renewed so that its token acts in the team joined.
    if (await renew()) await loadMe();
    renderNavigation("team");
    document.getElementById("sign-out").hidden = false;
    return h("div", {}, ok(t("joined", { role: t(`role_${answer.body.data.role}`) })),
      h("p", {}, h("a", { href: "#/team" }, t("nav_team"))));
  };
  if (state.access) {
    main.append(h("p", {}, t("join_signed_in", { email: state.me ? state.me.email : "" })));
    main.append(...form("accept-form", [], t("join_button"), join));
    return;
  }
  // Not signed in: sign in with the invited address, then join, in one step.
  main.append(h("p", {}, t("join_intro")));
  main.append(...form("accept-form", [
    ...credentials(),
  ], t("join_sign_in_button"), async (values) => {
    const signed = await signIn(values);
    if (!signed.ok) return failure(signed);
    return join();
  }));
  main.append(h("p", {}, h("a", { href: "#/sign-up" }, t("no_account"))));
});

page("not-found", () => {
  main.append(h("h1", {}, t("not_found_title")), h("p", {}, h("a", { href: "#/try" }, t("nav_try"))));
});

// ---------------------------------------------------------------- start

document.getElementById("language").addEventListener("change", (event) => {
  state.lang = event.target.value;
  localStorage.setItem("docsieve.language", state.lang);
  applyStaticTexts();
  route();
});

document.getElementById("sign-out").addEventListener("click", async () => {
  await send("DELETE", "/v1/auth/session", { headers: BROWSER, anonymous: true });
  announce(t("signed_out"));
  signedOut();
});

window.addEventListener("hashchange", route);

async function start() {
  applyStaticTexts();
  await import("/console/assets/try.js");
  await import("/console/assets/work.js");
  await import("/console/assets/admin.js");
  if (await renew()) await loadMe();
  await route();
}

start();
