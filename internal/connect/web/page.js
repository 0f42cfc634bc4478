// The hosted Connect page: reads the link's state from /api/connect/<token>
// and lets the user connect accounts (OAuth, or key and field credentials)
// or reconnect one of theirs. With several applications on offer it shows a
// searchable list by category, then the chosen application's form.
"use strict";
(function () {
  const app = document.getElementById("app");
  const token = app.dataset.token;
  const api = (app.dataset.api || "") + "/api/connect/" + encodeURIComponent(token);
  const $ = (id) => document.getElementById(id);
  let view = null;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== false && v !== undefined && v !== null) e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c) e.append(c);
    return e;
  }

  async function call(method, path, body) {
    // credentials: the OAuth sign-in's browser cookie must be kept even
    // when the API is on another origin than this page.
    let res;
    try {
      res = await fetch(api + path, {
        method, headers: body ? { "Content-Type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined,
        credentials: "include",
      });
    } catch (_) {
      throw { code: "NETWORK" };
    }
    let data = null;
    try { data = await res.json(); } catch (_) { /* empty body */ }
    if (!res.ok) throw Object.assign({ status: res.status }, (data && data.error) || { code: "ERROR" });
    return data && data.data;
  }

  // sentence makes an API message read as a sentence.
  const sentence = (s) => {
    s = String(s || "").trim();
    if (!s) return "";
    s = s[0].toUpperCase() + s.slice(1);
    return /[.!?]$/.test(s) ? s : s + ".";
  };

  // friendly turns an API error into words for the person at the page.
  // fields are the form's fields (for their labels), connector the
  // application the form connects.
  function friendly(e, fields, connector) {
    switch (e.code) {
      case "NETWORK": return "The page could not reach the server. Check your connection and try again.";
      case "LINK_USED": return "This link was already used. Ask for a new one to connect another account.";
      case "LINK_EXPIRED": return "This link has expired. Ask for a new one.";
      case "NOT_FOUND": return "This link is not valid. Check that you copied all of it, or ask for a new one.";
      case "NAME_TAKEN": return "You already have an account with that name. Choose another name.";
      case "FORBIDDEN": return "This link does not offer that. Ask for a new link.";
      case "VALIDATION_ERROR": {
        const out = [];
        for (const i of e.issues || []) {
          const f = (fields || []).find((x) => i.path && i.path[0] === "fields" && x.name === i.path[1]);
          const label = f ? f.label : "";
          let msg;
          if (/refused/.test(i.message) && connector) {
            msg = connector.name + " did not accept these details. Check that you copied all of the key and that it is still valid, then try again.";
          } else if (i.code === "required" || /must not be empty|is required/.test(i.message)) {
            msg = label ? "Fill in " + label + "." : "Fill in every field.";
          } else {
            msg = label ? label + ": " + sentence(i.message) : sentence(i.message);
          }
          if (!out.includes(msg)) out.push(msg);
        }
        return out.length ? out.join(" ") : "Check what you entered and try again.";
      }
    }
    if (e.status >= 500 || e.code === "UPSTREAM_ERROR") return "Something went wrong on our side. Try again in a moment.";
    return "Something went wrong. Try again, or ask for a new link.";
  }

  function status(text, isError) {
    const s = $("status");
    s.textContent = text;
    s.className = isError ? "error" : "muted";
    s.setAttribute("role", isError ? "alert" : "status");
  }

  function brand(b) {
    document.documentElement.style.setProperty("--accent", b.accent || "#4f46e5");
    $("title").textContent = b.name ? "Connect your accounts to " + b.name : "Connect your accounts";
    document.title = b.name ? "Connect to " + b.name : "Connect your accounts";
    if (b.logo) document.querySelector(".brand-mark").style.backgroundImage = "url('" + b.logo + "')";
  }

  // generatedMark is a connector's initials on a colour derived from its id,
  // for connectors without a logo (or whose logo does not load).
  function generatedMark(c) {
    let h = 0;
    for (const ch of c.id) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    const words = c.name.replace(/[^\p{L}\p{N} ]/gu, " ").split(/\s+/).filter(Boolean);
    const initials = (words.length > 1 ? words[0][0] + words[1][0] : (words[0] || c.id).slice(0, 2)).toUpperCase();
    const m = el("span", { class: "mark generated", "aria-hidden": "true", text: initials });
    m.style.backgroundColor = "hsl(" + (h % 360) + " 55% 40%)";
    return m;
  }

  function mark(c) {
    if (!c.logo) return generatedMark(c);
    const img = el("img", { class: "mark", src: c.logo, alt: "" });
    img.addEventListener("error", () => img.replaceWith(generatedMark(c)));
    return img;
  }

  const categoryName = (id) => {
    if (!id) return "Other";
    const s = id.replace(/[-_]/g, " ");
    return s[0].toUpperCase() + s.slice(1);
  };

  function finish(account, connectorName, reconnected) {
    for (const id of ["picker", "connector", "accounts"]) $(id).hidden = true;
    $("status").textContent = "";
    const done = $("done");
    done.hidden = false;
    $("done-title").textContent = reconnected ? "Reconnected" : "Connected";
    $("done-text").textContent = connectorName + " is " + (reconnected ? "reconnected" : "connected") + " as " + (account.label || account.name) + ".";
    if (view.redirectUrl) {
      const u = new URL(view.redirectUrl);
      u.searchParams.set("status", "success");
      u.searchParams.set("connectionId", account.id);
      const link = $("done-link");
      link.href = u.toString();
      link.hidden = false;
      setTimeout(() => { window.location.assign(u.toString()); }, 3000);
    } else {
      $("done-close").hidden = false;
    }
    done.focus();
  }

  // methodBlock is the form of one auth config; reconnect is the account it
  // replaces the credential of, if any.
  function methodBlock(connector, cfg, showName, reconnect) {
    const box = el("div", { class: "method" });
    const err = el("p", { class: "error", role: "alert", hidden: true });
    const form = el("form", { novalidate: true });
    if (showName) form.append(el("p", { class: "muted", text: cfg.name }));
    // For OAuth these are the fields the sign-in needs first (a GitLab
    // host, an Okta domain); a field with a default may stay as it is.
    for (const f of cfg.fields) {
      const id = "f-" + cfg.id + "-" + f.name;
      form.append(el("label", { for: id, text: f.label + (f.optional ? " (optional)" : "") }));
      if (f.multiline) {
        // A key file: pasted, or read from a chosen file in the browser
        // (nothing is uploaded until the form is sent).
        const area = el("textarea", { id, name: f.name, rows: 6, autocomplete: "off", required: !f.optional,
          placeholder: f.placeholder || "", spellcheck: "false", title: f.description || false });
        form.append(area);
        if (f.accept) {
          const file = el("input", { type: "file", accept: f.accept, "aria-label": f.label + " file" });
          file.addEventListener("change", async () => {
            if (file.files.length) area.value = await file.files[0].text();
          });
          form.append(file);
        }
        continue;
      }
      form.append(el("input", { id, name: f.name, type: f.secret ? "password" : "text", autocomplete: "off", required: !f.default && !f.optional,
          placeholder: f.placeholder || "", value: f.default || false, spellcheck: "false", title: f.description || false,
          pattern: f.pattern || false }));
    }
    const readFields = () => {
      const fields = {};
      for (const f of cfg.fields) fields[f.name] = form.elements[f.name].value.trim();
      return fields;
    };
    const showError = (text) => { err.textContent = text; err.hidden = false; };
    // One message for what is left empty, before anything is sent.
    const missing = () => {
      const fields = readFields();
      const empty = cfg.fields.filter((f) => !f.optional && !f.default && !fields[f.name]).map((f) => f.label);
      if (empty.length === 0) {
        // A value in the wrong form (a Twilio Account SID starts with AC).
        const odd = cfg.fields.find((f) => f.pattern && fields[f.name] && form.elements[f.name].validity.patternMismatch);
        return odd ? odd.label + " is not in the expected form" + (odd.placeholder ? ", like " + odd.placeholder : "") + "." : "";
      }
      const last = empty.pop();
      return "Fill in " + (empty.length ? empty.join(", ") + " and " + last : last) + ".";
    };
    const oauth = cfg.type === "oauth2";
    const verb = reconnect ? "Reconnect " : "Connect ";
    const btn = el("button", { type: "submit", text: oauth ? verb + "with " + connector.name : verb + connector.name });
    form.append(btn, err);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      err.hidden = true;
      const empty = missing();
      if (empty) { showError(empty); return; }
      btn.disabled = true;
      const body = { authConfigId: cfg.id, fields: readFields() };
      if (reconnect) body.connectionId = reconnect.id;
      try {
        if (oauth) {
          const out = await call("POST", "/authorize", body);
          window.location.assign(out.url);
          return;
        }
        const acct = await call("POST", "/accounts", body);
        finish(acct, connector.name, !!reconnect);
      } catch (e) {
        showError(friendly(e, cfg.fields, connector));
        btn.disabled = false;
      }
    });
    box.append(form);
    return box;
  }

  // openConnector shows one connector's forms; with reconnect, only its
  // account's own auth config, replacing that account's credential.
  function openConnector(c, reconnect) {
    $("picker").hidden = true;
    $("done").hidden = true;
    const section = $("connector");
    section.hidden = false;
    const back = $("back");
    // A link made for one account reconnects only that account.
    back.hidden = (view.connectors.length < 2 && !reconnect) || !!view.connectionId;
    back.textContent = view.connectors.length < 2 ? "Connect another account instead" : "← All applications";
    $("connector-mark").replaceChildren(mark(c));
    $("connector-name").textContent = c.name;
    let configs = c.authConfigs;
    const note = $("connector-note");
    note.hidden = !reconnect;
    if (reconnect) {
      const own = configs.filter((cfg) => cfg.id === reconnect.authConfigId);
      if (own.length) configs = own;
      note.textContent = "Reconnecting " + (reconnect.label || reconnect.name) + ". The account keeps its name; only its sign-in is replaced.";
    }
    $("methods").replaceChildren(...configs.map((cfg) => methodBlock(c, cfg, configs.length > 1, reconnect)));
    const first = section.querySelector("input, textarea, button[type=submit]");
    if (first && view.connectors.length > 1) first.focus();
  }

  function showPicker() {
    $("connector").hidden = true;
    $("picker").hidden = false;
    filter();
  }

  function renderPicker() {
    const groups = new Map();
    for (const c of [...view.connectors].sort((a, b) => a.name.localeCompare(b.name))) {
      const k = categoryName(c.category);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(c);
    }
    const out = [];
    for (const k of [...groups.keys()].sort()) {
      const list = el("ul", { class: "picks" });
      for (const c of groups.get(k)) {
        const b = el("button", { type: "button", class: "pick" }, mark(c), el("span", { text: c.name }));
        b.addEventListener("click", () => openConnector(c));
        list.append(el("li", { "data-search": (c.name + " " + c.id + " " + k).toLowerCase() }, b));
      }
      out.push(el("div", { class: "group" }, el("h3", { text: k }), list));
    }
    $("groups").replaceChildren(...out);
  }

  function filter() {
    const q = $("search").value.trim().toLowerCase();
    let shown = 0;
    for (const g of $("groups").children) {
      let n = 0;
      for (const li of g.querySelectorAll("li")) {
        li.hidden = q !== "" && !li.dataset.search.includes(q);
        if (!li.hidden) n++;
      }
      g.hidden = n === 0;
      shown += n;
    }
    $("no-match").hidden = shown > 0;
  }

  function renderAccounts() {
    const list = $("account-list");
    list.replaceChildren();
    let broken = 0;
    for (const a of view.accounts) {
      const c = view.connectors.find((x) => x.id === a.connectorId);
      const name = el("span", { text: (a.label || a.name) + " · " + (c ? c.name : a.connectorId) });
      if (a.isDefault) name.append(el("span", { class: "badge", text: "default" }));
      const needs = a.status !== "active";
      if (needs) { broken++; name.append(el("span", { class: "badge warn", text: "needs reconnecting" })); }
      const actions = el("span", { class: "actions" });
      if (c && (!view.connectionId || view.connectionId === a.id)) {
        const again = el("button", { type: "button", class: needs ? "" : "secondary", text: "Reconnect",
          "aria-label": "Reconnect " + (a.label || a.name) + " (" + c.name + ")" });
        again.addEventListener("click", () => openConnector(c, a));
        actions.append(again);
      }
      if (view.selfManage) {
        const rename = el("button", { type: "button", class: "secondary", text: "Rename" });
        rename.addEventListener("click", async () => {
          const n = window.prompt("New name", a.name);
          if (!n) return;
          try { await call("PATCH", "/connections/" + a.id, { name: n }); a.name = n; renderAccounts(); }
          catch (e) { status(friendly(e), true); }
        });
        const remove = el("button", { type: "button", class: "secondary", text: "Remove" });
        remove.addEventListener("click", async () => {
          if (!window.confirm("Remove this account?")) return;
          try { await call("DELETE", "/connections/" + a.id); view.accounts = view.accounts.filter((x) => x.id !== a.id); renderAccounts(); }
          catch (e) { status(friendly(e), true); }
        });
        actions.append(rename, remove);
      }
      list.append(el("li", { class: "account" }, name, actions));
    }
    $("accounts").hidden = view.accounts.length === 0;
    return broken;
  }

  function render() {
    brand(view.branding);
    if (view.status === "used") { status("This link was already used. Ask for a new one to connect another account.", true); return; }
    if (view.status === "expired") { status("This link has expired. Ask for a new one.", true); return; }
    const broken = renderAccounts();
    if (view.connectors.length === 0) { status("This link offers no application you can connect.", true); return; }
    status(broken ? "An account of yours needs reconnecting: choose Reconnect next to it."
      : view.connectors.length > 1 ? "Choose an application and connect your account." : "Connect your account.");
    const own = view.connectionId && view.accounts.find((a) => a.id === view.connectionId);
    const ownConnector = own && view.connectors.find((c) => c.id === own.connectorId);
    if (ownConnector) { openConnector(ownConnector, own); return; }
    if (view.connectors.length === 1) {
      // A link for one application, whose account of the user needs
      // reconnecting (a session's reauth_required link): reconnect that
      // account, rather than connect a second one beside it.
      const c = view.connectors[0];
      openConnector(c, view.accounts.find((a) => a.connectorId === c.id && a.status !== "active"));
      return;
    }
    renderPicker();
    $("search").addEventListener("input", filter);
    showPicker();
  }

  $("back").addEventListener("click", () => { if (view.connectors.length > 1) showPicker(); else openConnector(view.connectors[0]); });
  call("GET", "").then((v) => { view = v; render(); }).catch((e) => status(friendly(e), true));
})();
