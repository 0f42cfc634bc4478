// The hosted Connect page: reads the link's state from /api/connect/<token>
// and lets the user connect accounts (OAuth, or key and field credentials).
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
    const res = await fetch(api + path, {
      method, headers: body ? { "Content-Type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined,
      credentials: "include",
    });
    let data = null;
    try { data = await res.json(); } catch (_) { /* empty body */ }
    if (!res.ok) {
      const err = (data && data.error) || { code: "ERROR", message: "Something went wrong (" + res.status + ")." };
      throw err;
    }
    return data && data.data;
  }

  function status(text, isError) {
    const s = $("status");
    s.textContent = text;
    s.className = isError ? "error" : "muted";
    s.setAttribute("role", isError ? "alert" : "status");
  }

  function brand(b) {
    document.documentElement.style.setProperty("--accent", b.accent || "#4f46e5");
    $("title").textContent = "Connect your accounts to " + b.name;
    document.title = "Connect to " + b.name;
    if (b.logo) document.querySelector(".brand-mark").style.backgroundImage = "url('" + b.logo + "')";
  }

  function finish(account, connectorName) {
    $("connectors").hidden = true;
    $("accounts").hidden = true;
    $("status").textContent = "";
    const done = $("done");
    done.hidden = false;
    $("done-title").textContent = "Connected";
    $("done-text").textContent = connectorName + " is connected as " + (account.label || account.name) + ".";
    if (view.redirectUrl) {
      const u = new URL(view.redirectUrl);
      u.searchParams.set("status", "success");
      u.searchParams.set("connectionId", account.id);
      const link = $("done-link");
      link.href = u.toString();
      link.hidden = false;
      setTimeout(() => { window.location.assign(u.toString()); }, 1500);
    }
    done.focus();
  }

  function methodBlock(connector, cfg) {
    const box = el("div", { class: "method" });
    const err = el("p", { class: "error", role: "alert", hidden: true });
    const form = el("form", { novalidate: true });
    form.append(el("p", { class: "muted", text: cfg.name }));
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
          placeholder: f.placeholder || "", value: f.default || false, spellcheck: "false", title: f.description || false }));
    }
    const readFields = () => {
      const fields = {};
      for (const f of cfg.fields) fields[f.name] = form.elements[f.name].value.trim();
      return fields;
    };
    const showError = (e) => {
      err.textContent = e.message + (e.issues ? " " + e.issues.map((i) => i.message).join("; ") : "");
      err.hidden = false;
    };
    if (cfg.type === "oauth2") {
      // A link made to reconnect an account (more permissions for it)
      // reconnects it when the sign-in names no account; say so.
      const again = view.reconnect && view.reconnect.connectorId === connector.id;
      const btn = el("button", { type: "submit", text: (again ? "Reconnect with " : "Connect with ") + connector.name });
      form.append(btn, err);
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        btn.disabled = true;
        err.hidden = true;
        try {
          const out = await call("POST", "/authorize", { authConfigId: cfg.id, fields: readFields() });
          window.location.assign(out.url);
        } catch (e) { showError(e); btn.disabled = false; }
      });
      box.append(form);
      return box;
    }
    const btn = el("button", { type: "submit", text: "Connect " + connector.name });
    form.append(btn, err);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      btn.disabled = true;
      err.hidden = true;
      try {
        const acct = await call("POST", "/accounts", { authConfigId: cfg.id, fields: readFields() });
        finish(acct, connector.name);
      } catch (e) {
        showError(e);
        btn.disabled = false;
      }
    });
    box.append(form);
    return box;
  }

  function renderAccounts() {
    const list = $("account-list");
    list.replaceChildren();
    for (const a of view.accounts) {
      const name = el("span", { text: (a.label || a.name) + " · " + a.connectorId });
      if (a.isDefault) name.append(el("span", { class: "badge", text: "default" }));
      if (a.status !== "active") name.append(el("span", { class: "badge warn", text: "needs reconnecting" }));
      const row = el("li", { class: "account" }, name);
      if (view.selfManage) {
        const rename = el("button", { type: "button", class: "secondary", text: "Rename" });
        rename.addEventListener("click", async () => {
          const n = window.prompt("New name", a.name);
          if (!n) return;
          try { await call("PATCH", "/connections/" + a.id, { name: n }); a.name = n; renderAccounts(); }
          catch (e) { status(e.message, true); }
        });
        const remove = el("button", { type: "button", class: "secondary", text: "Remove" });
        remove.addEventListener("click", async () => {
          if (!window.confirm("Remove this account?")) return;
          try { await call("DELETE", "/connections/" + a.id); view.accounts = view.accounts.filter((x) => x.id !== a.id); renderAccounts(); }
          catch (e) { status(e.message, true); }
        });
        row.append(el("span", {}, rename, " ", remove));
      }
      list.append(row);
    }
    $("accounts").hidden = view.accounts.length === 0;
  }

  function render() {
    brand(view.branding);
    if (view.status === "used") { status("This link was already used. Ask for a new one to connect another account.", true); return; }
    if (view.status === "expired") { status("This link has expired. Ask for a new one.", true); return; }
    if (view.reconnect) status("Reconnect your account " + (view.reconnect.label || view.reconnect.name) + " to give it the access it needs.");
    else status("Choose an application and connect your account.");
    renderAccounts();
    const list = $("connector-list");
    list.replaceChildren();
    for (const c of view.connectors) {
      const head = el("div", { class: "connector-head" }, el("h3", { text: c.name }));
      if (c.logo) head.prepend(el("img", { src: c.logo, alt: "" }));
      const item = el("li", {}, head);
      for (const cfg of c.authConfigs) item.append(methodBlock(c, cfg));
      list.append(item);
    }
    $("connectors").hidden = view.connectors.length === 0;
    if (view.connectors.length === 0) status("This link offers no application you can connect.", true);
  }

  call("GET", "").then((v) => { view = v; render(); }).catch((e) => status(e.message, true));
})();
