// svbench report.html: the sample browser. No network, no dependencies.
// Fragment parameters (applied on load and on hashchange):
//   #outcome=wrong,invalid&q=text&open=<example_id>&page=N
// Timings for browser tests: body[data-first-paint-ms] (since navigation
// start), body[data-filter-ms] (last filter), #svb-list[data-visible-count].
(function () {
  "use strict";
  var PAGE = 100;
  var byId = function (id) { return document.getElementById(id); };
  var data = JSON.parse(byId("svb-data").textContent);
  var rows = data.rows; // [id, index, rollout, split, outcome, reward, profile, preview, hasTranscript]
  var OUT = data.outcomes;
  var details = null, messages = null, hay = null;
  var state = { sel: new Set(), q: "", page: 0, open: -1 };
  var visible = [];
  var list = byId("svb-list"), tbody = byId("svb-rows"), pane = byId("svb-detail");

  function loadDetails() {
    if (details === null) {
      var d = JSON.parse(byId("svb-details").textContent);
      details = d.details; messages = d.messages;
    }
  }
  function str(v) {
    if (v === null || v === undefined) return "";
    return typeof v === "string" ? v : JSON.stringify(v, null, 2);
  }
  function haystack() {
    if (hay === null) {
      loadDetails();
      hay = new Array(rows.length);
      for (var i = 0; i < rows.length; i++) {
        var r = rows[i], d = details[i], s = r[0] + "\n" + r[7];
        if (d) {
          s += "\n" + str(d.question) + "\n" + str(d.completion);
          if (d.error) s += "\n" + str(d.error);
        }
        hay[i] = s.toLowerCase();
      }
    }
    return hay;
  }

  function compute() {
    var t = performance.now();
    var q = state.q.trim().toLowerCase();
    var h = q ? haystack() : null, out = [], sel = state.sel, all = sel.size === 0;
    for (var i = 0; i < rows.length; i++) {
      if (!all && !sel.has(OUT[rows[i][4]])) continue;
      if (h && h[i].indexOf(q) < 0) continue;
      out.push(i);
    }
    visible = out;
    var pages = Math.max(1, Math.ceil(visible.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    if (state.page < 0) state.page = 0;
    document.body.dataset.filterMs = (performance.now() - t).toFixed(1);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function fmt(x) {
    if (x === null || x === undefined) return "—";
    return Number.isInteger(x) ? String(x) : x.toFixed(4);
  }
  // Milliseconds: one decimal, three below 1 ms (in-process tools take µs).
  function ms(x) {
    if (typeof x !== "number" || !isFinite(x)) return str(x);
    return x.toFixed(Math.abs(x) >= 1 || x === 0 ? 1 : 3);
  }

  function render() {
    var start = state.page * PAGE, end = Math.min(visible.length, start + PAGE);
    var frag = document.createDocumentFragment();
    for (var k = start; k < end; k++) {
      var i = visible[k], r = rows[i], tr = el("tr", "o-" + OUT[r[4]] + (i === state.open ? " open" : ""));
      tr.dataset.row = i; tr.dataset.id = r[0]; tr.tabIndex = 0;
      tr.appendChild(el("td", "", r[1] === null ? "" : r[1] + (r[2] ? "/" + r[2] : "")));
      tr.appendChild(el("td", "", r[0]));
      tr.appendChild(el("td", "badge", OUT[r[4]]));
      tr.appendChild(el("td", "", fmt(r[5])));
      tr.appendChild(el("td", "", r[7]));
      frag.appendChild(tr);
    }
    tbody.textContent = "";
    tbody.appendChild(frag);
    list.dataset.visibleCount = visible.length;
    var pages = Math.max(1, Math.ceil(visible.length / PAGE));
    byId("svb-page").textContent = "page " + (state.page + 1) + " of " + pages;
    byId("svb-prev").disabled = state.page === 0;
    byId("svb-next").disabled = state.page + 1 >= pages;
    byId("svb-status").textContent = visible.length === rows.length
      ? rows.length + " samples"
      : visible.length + " of " + rows.length + " samples match";
    var btns = document.querySelectorAll("#svb-outcomes button");
    for (var b = 0; b < btns.length; b++) {
      var o = btns[b].dataset.outcome;
      btns[b].classList.toggle("on", o === "" ? state.sel.size === 0 : state.sel.has(o));
    }
  }

  function section(title) { pane.appendChild(el("h4", "", title)); }
  function pre(text, cls) { pane.appendChild(el("pre", cls || "", text)); }
  function message(m) {
    var role = (m && m.role) || "?", box = el("div", "msg " + role);
    var head = role;
    if (m && m.tool_call_id) head += " · result of " + m.tool_call_id;
    if (m && m.name) head += " · " + m.name;
    box.appendChild(el("div", "role", head));
    var content = m ? m.content : m;
    if (content !== null && content !== undefined && content !== "") box.appendChild(el("pre", "", str(content)));
    var calls = (m && m.tool_calls) || [];
    for (var c = 0; c < calls.length; c++) {
      var f = calls[c].function || {}, args = f.arguments;
      if (typeof args === "string") {
        try { args = JSON.stringify(JSON.parse(args), null, 2); } catch (e) { /* shown as sent */ }
      }
      box.appendChild(el("div", "call", "tool call " + (calls[c].id || "") + ": " + (f.name || "?")));
      box.appendChild(el("pre", "", str(args)));
    }
    pane.appendChild(box);
  }
  function table(head, body) {
    var t = el("table", "small"), tr = el("tr");
    head.forEach(function (h) { tr.appendChild(el("th", "", h)); });
    t.appendChild(tr);
    body.forEach(function (cells) {
      var r = el("tr");
      cells.forEach(function (c) { r.appendChild(el("td", "", c)); });
      t.appendChild(r);
    });
    pane.appendChild(t);
  }

  // E4: the email with evidence over gold spans; text goes in via textContent only.
  function emailEvidence(segs) {
    section("email: quoted evidence over gold spans");
    var legend = el("p", "ev-legend");
    [["ev-m", "evidence matching a gold span"], ["ev-u", "evidence matching none"],
     ["gold-r", "gold span recalled"], ["gold-x", "gold span missed"],
     ["gold-o", "span not counted for this gold label"]].forEach(function (k) {
      legend.appendChild(el("span", k[0], k[1]));
      legend.appendChild(document.createTextNode(" "));
    });
    pane.appendChild(legend);
    var p = el("pre", "email");
    segs.forEach(function (s) {
      if (s.class) p.appendChild(el("mark", s.class, s.text));
      else p.appendChild(document.createTextNode(s.text));
    });
    pane.appendChild(p);
  }
  function openRow(i) {
    state.open = i;
    pane.textContent = "";
    if (i < 0) { pane.hidden = true; delete pane.dataset.openId; return; }
    var r = rows[i];
    pane.hidden = false;
    pane.dataset.openId = r[0];
    pane.className = "detail o-" + OUT[r[4]];
    var h = el("h3", "", r[0] + (r[2] ? " · rollout " + r[2] : "") + " ");
    h.appendChild(el("span", "badge", OUT[r[4]]));
    pane.appendChild(h);
    pane.appendChild(el("div", "", "reward " + fmt(r[5]) + (r[6] ? " · profile " + r[6] : "") + (r[3] ? " · split " + r[3] : "")));
    if (!r[8]) {
      pane.appendChild(el("p", "", "Transcript not embedded (see the note above the list)."));
      return;
    }
    loadDetails();
    var d = details[i];
    if (d.error || d.completion_error) {
      section("error");
      pre(str(d.error || d.completion_error), "err");
    }
    section("gold answer");
    pre(str(d.answer));
    if (d.email_evidence) emailEvidence(d.email_evidence);
    section("prompt");
    (d.prompt || []).forEach(function (k) { message(messages[k]); });
    if (d.prompt_raw !== undefined) pre(str(d.prompt_raw));
    var msgs = d.completion_messages || [];
    var turns = msgs.filter(function (m) { return m && m.role === "assistant"; }).length;
    section("completion: " + turns + " assistant turn" + (turns === 1 ? "" : "s") + ", " +
      msgs.length + " message" + (msgs.length === 1 ? "" : "s"));
    msgs.forEach(message);
    var tools = d.tool_interactions || [];
    if (tools.length) {
      section("tool interactions");
      table(["turn", "tool", "ok", "ms", "arguments", "error"], tools.map(function (t) {
        return [str(t.turn), str(t.tool), str(t.ok), ms(t.duration_ms), str(t.arguments), str(t.error)];
      }));
    }
    section("final completion");
    pre(d.completion === null || d.completion === undefined ? "(none)" : str(d.completion));
    section("parse");
    pre(str(d.parse));
    section("parsed answer");
    pre(d.parsed === undefined ? "null" : str(d.parsed));
    section("reward components");
    var rw = d.rewards || {};
    table(["component", "value"], Object.keys(rw).map(function (k) { return [k, fmt(rw[k])]; }).concat([["total", fmt(d.reward)]]));
    var extra = [];
    if (d.truncated) extra.push("truncated");
    if (d.turns !== undefined) extra.push("turns " + d.turns);
    if (d.latency_ms !== undefined) extra.push("latency " + ms(d.latency_ms) + " ms");
    if (extra.length) pane.appendChild(el("p", "status", extra.join(" · ")));
  }

  function fromHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ""));
    state.sel = new Set((p.get("outcome") || "").split(",").filter(function (o) { return OUT.indexOf(o) >= 0; }));
    state.q = p.get("q") || "";
    byId("svb-q").value = state.q;
    state.page = Math.max(0, (parseInt(p.get("page") || "1", 10) || 1) - 1);
    compute();
    var id = p.get("open"), target = -1;
    if (id !== null) {
      for (var i = 0; i < rows.length; i++) if (rows[i][0] === id) { target = i; break; }
      var pos = visible.indexOf(target);
      if (pos >= 0 && !p.get("page")) state.page = Math.floor(pos / PAGE);
      // A sample the filter hides is not shown open.
      if (pos < 0) target = -1;
    }
    openRow(target);
    render();
  }
  function toHash() {
    var p = new URLSearchParams();
    if (state.sel.size) p.set("outcome", Array.from(state.sel).join(","));
    if (state.q) p.set("q", state.q);
    if (state.page) p.set("page", String(state.page + 1));
    if (state.open >= 0) p.set("open", rows[state.open][0]);
    var h = p.toString();
    history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
  }

  // After a filter change: the open sample closes when the filter hides it
  // (also when nothing matches), so the pane never shows a hidden row.
  function refilter() {
    state.page = 0; compute();
    if (state.open >= 0 && visible.indexOf(state.open) < 0) openRow(-1);
    render(); toHash();
  }
  byId("svb-outcomes").addEventListener("click", function (e) {
    var b = e.target.closest("button");
    if (!b) return;
    var o = b.dataset.outcome;
    if (o === "") state.sel.clear();
    else if (state.sel.has(o)) state.sel.delete(o);
    else state.sel.add(o);
    refilter();
  });
  var timer = 0;
  byId("svb-q").addEventListener("input", function (e) {
    clearTimeout(timer);
    var v = e.target.value;
    timer = setTimeout(function () { state.q = v; refilter(); }, 120);
  });
  byId("svb-prev").addEventListener("click", function () { state.page--; compute(); render(); toHash(); });
  byId("svb-next").addEventListener("click", function () { state.page++; compute(); render(); toHash(); });
  function pick(e) {
    var tr = e.target.closest("tr");
    if (!tr || tr.dataset.row === undefined) return;
    var i = Number(tr.dataset.row);
    openRow(state.open === i ? -1 : i);
    render(); toHash();
    if (state.open >= 0) pane.scrollIntoView({ block: "nearest" });
  }
  tbody.addEventListener("click", pick);
  tbody.addEventListener("keydown", function (e) { if (e.key === "Enter") pick(e); });
  window.addEventListener("hashchange", fromHash);

  fromHash();
  document.body.dataset.firstPaintMs = performance.now().toFixed(1);
  document.body.dataset.ready = "1";
})();
