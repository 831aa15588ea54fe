// View side of MCP Apps (io.modelcontextprotocol/ui, spec 2026-01-26): JSON-RPC 2.0 over postMessage.
// No dependencies, no network. Exposes window.mcpApp.
(function () {
  "use strict";
  const PROTOCOL_VERSION = "2026-01-26";
  const parent = window.parent;
  const pending = new Map();
  const listeners = {};            // method -> [fn]
  let nextId = 1;
  let hostContext = {};
  let hostCapabilities = {};
  let hostInfo = null;
  let lastSize = null;

  function post(message) { parent.postMessage(message, "*"); }
  function notify(method, params) { post({ jsonrpc: "2.0", method, params: params || {} }); }

  function request(method, params, timeoutMs) {
    const id = nextId++;
    post({ jsonrpc: "2.0", id, method, params: params || {} });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { pending.delete(id); reject(new Error(method + " timed out")); }, timeoutMs || 30000);
      pending.set(id, { resolve, reject, timer });
    });
  }

  function emit(method, params) { (listeners[method] || []).forEach((fn) => { try { fn(params); } catch (e) { console.error(e); } }); }
  function on(method, fn) { (listeners[method] = listeners[method] || []).push(fn); }

  function applyContext(ctx) {
    const root = document.documentElement;
    if (ctx.theme) { root.setAttribute("data-theme", ctx.theme); root.style.colorScheme = ctx.theme; }
    const vars = ctx.styles && ctx.styles.variables;
    if (vars) for (const [k, v] of Object.entries(vars)) if (typeof v === "string" && k.startsWith("--")) root.style.setProperty(k, v);
    const fonts = ctx.styles && ctx.styles.css && ctx.styles.css.fonts;
    if (fonts && !document.getElementById("__mcp-host-fonts")) {
      const style = document.createElement("style"); style.id = "__mcp-host-fonts"; style.textContent = fonts; document.head.appendChild(style);
    }
  }

  window.addEventListener("message", (event) => {
    if (event.source !== parent) return;                       // only the host speaks to us
    const msg = event.data;
    if (!msg || msg.jsonrpc !== "2.0") return;
    if (msg.method === undefined && msg.id !== undefined) {      // response to one of our requests
      const p = pending.get(msg.id); if (!p) return;
      pending.delete(msg.id); clearTimeout(p.timer);
      if (msg.error) { const e = new Error(msg.error.message || "error"); e.code = msg.error.code; e.data = msg.error.data; p.reject(e); }
      else p.resolve(msg.result);
      return;
    }
    if (msg.id !== undefined) {                                   // request from host
      let result = {};
      if (msg.method === "ui/resource-teardown") emit("teardown", msg.params);
      else if (msg.method !== "ping") { post({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } }); return; }
      post({ jsonrpc: "2.0", id: msg.id, result });
      return;
    }
    if (msg.method === "ui/notifications/host-context-changed") {
      hostContext = Object.assign({}, hostContext, msg.params); applyContext(msg.params || {});
    }
    emit(msg.method, msg.params || {});
  });

  function reportSize() {
    const root = document.documentElement;
    const saved = root.style.height; root.style.height = "max-content";
    const height = Math.ceil(root.getBoundingClientRect().height); root.style.height = saved;
    const width = Math.ceil(window.innerWidth);
    if (!lastSize || lastSize.width !== width || lastSize.height !== height) {
      lastSize = { width, height }; notify("ui/notifications/size-changed", lastSize);
    }
  }

  async function connect(appInfo, appCapabilities) {
    const result = await request("ui/initialize", {
      appInfo: appInfo, appCapabilities: appCapabilities || {}, protocolVersion: PROTOCOL_VERSION,
    });
    hostContext = result.hostContext || {}; hostCapabilities = result.hostCapabilities || {}; hostInfo = result.hostInfo || null;
    applyContext(hostContext);
    notify("ui/notifications/initialized", {});
    let queued = false;
    const schedule = () => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; reportSize(); }); } };
    const observer = new ResizeObserver(schedule); observer.observe(document.documentElement); observer.observe(document.body);
    schedule();
    return result;
  }

  window.mcpApp = {
    connect,
    on,                                                       // on("ui/notifications/tool-result", fn)
    get hostContext() { return hostContext; },
    get hostCapabilities() { return hostCapabilities; },
    get hostInfo() { return hostInfo; },
    callTool: (name, args) => request("tools/call", { name, arguments: args || {} }),
    readResource: (uri) => request("resources/read", { uri }),
    openLink: (url) => request("ui/open-link", { url }),
    sendMessage: (text) => request("ui/message", { role: "user", content: [{ type: "text", text }] }),
    updateModelContext: (params) => request("ui/update-model-context", params),
    log: (level, data) => notify("notifications/message", { level, data }),
  };
})();
