// toolsearch ui: validation as you type and the editor's pickers (edit the JSON textarea).
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const post = (url, body) => fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
    body: JSON.stringify(body || {}),
  }).then((r) => r.json());
  const debounce = (fn, ms) => { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); }; };

  function showErrors(el, result) {
    if (result.ok) { el.className = "status ok"; el.textContent = "Valid."; return; }
    el.className = "status bad";
    el.textContent = (result.errors || []).map((e) => (e.path || "<root>") + ": " + e.message).join("\n");
  }
  function watch(area, kind, prefix, status) {
    if (!area || !status) return;
    const check = debounce(() => post("/api/validate", {kind, text: area.value, prefix})
      .then((r) => showErrors(status, r)).catch(() => { status.textContent = "(validation unavailable)"; }), 250);
    area.addEventListener("input", check);
    check();
  }

  const config = document.getElementById("config");
  if (config) watch(config, config.dataset.kind, "", document.getElementById("config-status"));
  const rules = document.getElementById("rules");
  if (rules) watch(rules, "rules", "rules", document.getElementById("rules-status"));

  const status = document.getElementById("picker-status");
  function say(text, bad) { if (status) { status.className = "status " + (bad ? "bad" : "ok"); status.textContent = text; } }
  function edit(change) {
    let data;
    try { data = JSON.parse(config.value || "{}"); } catch (e) { say("Fix the JSON first: " + e.message, true); return; }
    if (typeof data !== "object" || data === null || Array.isArray(data)) { say("The configuration must be a JSON object.", true); return; }
    const note = change(data);
    if (typeof note === "string" && note.startsWith("!")) { say(note.slice(1), true); return; }
    config.value = JSON.stringify(data, null, 2);
    config.dispatchEvent(new Event("input"));
    say(note || "Added.", false);
  }
  function plainMap(data, key) {  // the field's object, or the first variant without rules
    let value = data[key];
    if (value === undefined || value === null) { value = data[key] = {}; }
    if (Array.isArray(value)) {
      let base = value.find((v) => !v.rules);
      if (!base) { base = {value: {}}; value.unshift(base); }
      if (!base.value) base.value = {};
      return base.value;
    }
    return value;
  }

  document.querySelectorAll("[data-add-tool]").forEach((button) => button.addEventListener("click", () => {
    const id = button.dataset.addTool;
    const input = document.querySelector('[data-override-for="' + CSS.escape(id) + '"]');
    const description = input ? input.value.trim() : "";
    edit((data) => { plainMap(data, "tools")[id] = description ? {description} : {}; return "Added tool " + id + "."; });
  }));

  function clientRef(data, client) {
    const map = plainMap(data, "mcp_clients");
    if (!map[client] || typeof map[client] !== "object") map[client] = {};
    return map[client];
  }
  document.querySelectorAll("[data-all-client]").forEach((button) => button.addEventListener("click", () => {
    const client = button.dataset.allClient;
    edit((data) => { clientRef(data, client).tools = "*"; return "Client " + client + ": every tool."; });
  }));
  document.querySelectorAll("[data-list-client]").forEach((button) => button.addEventListener("click", () => {
    const client = button.dataset.listClient;
    const list = document.getElementById("client-tools-" + client);
    list.textContent = "Listing tools (starting the servers)...";
    post("/api/clients/" + encodeURIComponent(client) + "/tools", {version: button.dataset.version || "draft"}).then((r) => {
      list.textContent = "";
      (r.tools || []).forEach((tool) => {
        const item = document.createElement("li");
        const name = document.createElement("code"); name.textContent = tool.id;
        const text = document.createElement("span"); text.className = "muted small"; text.textContent = " " + (tool.description || "").slice(0, 100) + " ";
        item.append(name, text);
        if (config) {  // in the agent editor: select the tool, optionally re-described
          const override = document.createElement("input");
          override.className = "override"; override.placeholder = "description override (optional)";
          override.dataset.clientOverrideFor = tool.id;
          const add = document.createElement("button");
          add.type = "button"; add.textContent = "Add"; add.dataset.addClientTool = tool.id;
          add.addEventListener("click", () => edit((data) => {
            const ref = clientRef(data, client);
            if (!ref.tools || typeof ref.tools !== "object") ref.tools = {};
            const description = override.value.trim();
            ref.tools[tool.id] = description ? {description} : {};
            return "Added " + tool.id + " from " + client + ".";
          }));
          item.append(add, override);
        }
        list.append(item);
      });
      Object.entries(r.failures || {}).forEach(([path, reason]) => {
        const item = document.createElement("li"); item.className = "failure";
        item.textContent = "Failed: " + path + ": " + reason; list.append(item);
      });
      (r.errors || []).forEach((e) => { const item = document.createElement("li"); item.className = "failure"; item.textContent = e.message; list.append(item); });
      if (!list.childElementCount) list.textContent = "No tools.";
    }).catch((e) => { list.textContent = "Listing failed: " + e; });
  }));
  document.querySelectorAll("[data-list-provider]").forEach((button) => button.addEventListener("click", () => {
    const provider = button.dataset.listProvider;
    const list = document.getElementById("provider-tools-" + provider);
    list.textContent = "Listing...";
    post("/api/providers/" + encodeURIComponent(provider) + "/tools", {}).then((r) => {
      list.textContent = "";
      if (r.failure) { const item = document.createElement("li"); item.className = "failure"; item.textContent = "Failed: " + r.failure; list.append(item); }
      (r.tools || []).forEach((tool) => {
        const item = document.createElement("li");
        const add = document.createElement("button"); add.type = "button"; add.textContent = "Add";
        add.dataset.addProviderTool = tool.id;
        add.addEventListener("click", () => edit((data) => {
          const map = plainMap(data, "tool_providers");
          if (!map[provider] || typeof map[provider] !== "object") map[provider] = {};
          if (!map[provider].tools || typeof map[provider].tools !== "object") map[provider].tools = {};
          map[provider].tools[tool.id] = {};
          return "Added " + tool.id + " from " + provider + ".";
        }));
        const name = document.createElement("code"); name.textContent = tool.id;
        item.append(name, document.createTextNode(" " + (tool.description || "").slice(0, 100) + " "));
        if (config) item.append(add);
        list.append(item);
      });
    });
  }));

  const addConditional = document.getElementById("add-conditional");
  if (addConditional) addConditional.addEventListener("click", () => {
    let group;
    try { group = JSON.parse(rules.value); } catch (e) { say("The rules are not valid JSON: " + e.message, true); return; }
    const ids = document.getElementById("conditional-tools").value.split(",").map((s) => s.trim()).filter(Boolean);
    if (!ids.length) { say("Name at least one tool id for the conditional set.", true); return; }
    edit((data) => {
      let tools = data.tools;
      if (tools === undefined || tools === null) tools = [];
      else if (!Array.isArray(tools)) tools = Object.keys(tools).length ? [{value: tools}] : [];
      const value = {}; ids.forEach((id) => { value[id] = {}; });
      tools.push({value, rules: group});
      data.tools = tools;
      return "Added a conditional set of " + ids.length + " tool(s).";
    });
  });
})();
