// What every alfred view shares, on top of bridge.js: building elements; calling a tool through the host, on
// the session of the shown result (an isError result becomes a thrown Error with the server's message); the
// status and error lines (refs in them as small secondary text); telling the model what the person did; connect,
// then render each tool result, or put the error or cancellation where the content would have been.
// Exposes window.alfredView.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key in node && typeof value !== "string") node[key] = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
    return node;
  }

  function resultText(result) {
    const text = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
    return text.replace(/^Error:\s*/, "") || "The server refused the call.";
  }

  // An error result as a person reads it. The text is for the model ("Unknown ref 'recipe_99': this session knows
  // recipe_1..recipe_11; read recipes to get refs."); a ref the view was asked to show that is not there is said as
  // a sentence for people, naming what the view shows (<body data-thing="recipe">): "That recipe could not be found."
  const MISSING = { unknown_ref: "could not be found", invalid_ref: "could not be found", deleted_ref: "was deleted",
    pending_draft: "is a draft that is not saved yet" };
  function errorText(result) {
    const fields = ((result._meta || {})["alfred/error"]) || {};
    const thing = document.body.dataset.thing;
    if (thing && MISSING[fields.code]) return `That ${thing} ${MISSING[fields.code]}.`;
    // "to: a plan shows at most 28 days; …" names the argument for the model; a person reads the sentence
    const text = resultText(result);
    const named = fields.field ? `${fields.field}: ` : null;
    return named && text.startsWith(named) ? text.charAt(named.length).toUpperCase() + text.slice(named.length + 1) : text;
  }

  let session = null;       // the session the shown result came from: refs are per session, so calls name it

  async function call(name, args) {
    const result = await mcpApp.callTool(name, Object.assign({}, args, session ? { session } : {}));
    if (result.isError) throw new Error(resultText(result));
    return result.structuredContent || {};
  }

  // Text for a person: the refs in it (recipe_6, meal_12: the model's names for rows) as small secondary text, and
  // words with a hyphen (2026-01-12, read-only) kept whole, never broken at the hyphen on a narrow view.
  const REF = /^(?:gen_)?[a-z]+_[1-9][0-9]*$/;
  const PARTS = /(\b(?:gen_)?[a-z]+_[1-9][0-9]*\b|\S*\w-\w\S*)/;
  function withRefs(text) {
    return String(text || "").split(PARTS)
      .map((part, n) => (n % 2 ? el("span", { class: REF.test(part) ? "ref" : "nowrap", text: part }) : part))
      .filter((part) => part !== "");
  }

  function status(text) { $("status").replaceChildren(...withRefs(text)); }
  function fail(error) { status(""); $("error").replaceChildren(...withRefs((error && error.message) || String(error))); }
  function clearError() { $("error").textContent = ""; }

  function tellModel(text) {
    if (!mcpApp.hostCapabilities || !mcpApp.hostCapabilities.updateModelContext) return;
    mcpApp.updateModelContext({ content: [{ type: "text", text }] }).catch(() => {});
  }

  // A day as everything else a person reads writes it (the server's kitchen/dates.py): "Fri Nov 27"; part
  // "weekday" ("Fri") or "date" ("Nov 27") for a column head that sets the two apart.
  const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  function dayLabel(iso, part) {
    const [y, m, d] = iso.split("-").map(Number);
    const weekday = WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
    const date = `${MONTHS[m - 1]} ${d}`;
    return part === "weekday" ? weekday : part === "date" ? date : `${weekday} ${date}`;
  }
  // "Fri Nov 27 to Thu Dec 3" (the server's span_text).
  const spanLabel = (first, last) => first === last ? dayLabel(first) : `${dayLabel(first)} to ${dayLabel(last)}`;

  // Nothing to show (an error or a cancelled call): every loading placeholder ([data-failed]) says so instead, the
  // parts that wait for a result ([data-needs-result]) are hidden, and the message stands where the content would.
  function nothingToShow(message) {
    status("");
    document.body.dataset.state = "failed";
    for (const node of document.querySelectorAll("[data-failed]")) node.textContent = node.dataset.failed;
    for (const node of document.querySelectorAll("[data-needs-result]")) node.hidden = true;
    $("error").replaceChildren(...withRefs(message));
  }

  // Connect to the host; render each tool result (or show its error). `name` is the view's appInfo name.
  function start(name, render) {
    let shown = false;
    mcpApp.on("ui/notifications/tool-input", () => status("Loading…"));
    mcpApp.on("ui/notifications/tool-result", (result) => {
      status("");
      if (result.isError) { if (shown) fail(new Error(errorText(result))); else nothingToShow(errorText(result)); }
      else if (result.structuredContent) {
        shown = true; delete document.body.dataset.state;
        session = result.structuredContent.session || null; clearError(); render(result.structuredContent);
      }
    });
    mcpApp.on("ui/notifications/tool-cancelled", () => {
      if (shown) status("Cancelled."); else nothingToShow("The call was cancelled: there is nothing to show.");
    });
    mcpApp.connect({ name, version: "1.0.0" }, { availableDisplayModes: ["inline"] })
      .catch((error) => fail(new Error("Not connected to a host: " + error.message)));
  }

  window.alfredView = { $, el, call, status, fail, clearError, tellModel, dayLabel, spanLabel, start, withRefs };
})();
