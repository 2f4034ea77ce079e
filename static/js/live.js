// Live updates (hermes_ui/live): follows the endpoint's change events and says what changed.
// Events carry session ids and change kinds only; anything shown comes from the page itself
// ("Show" reloads it, with its filter) or from the normal, role-checked views.
(function () {
  "use strict";
  var region = document.getElementById("live-region");
  if (!region || !window.EventSource) return;
  var mode = region.dataset.liveMode;
  var watched = region.dataset.liveSession;
  var banner = document.getElementById("live-banner");
  var text = document.getElementById("live-text");
  var paused = document.getElementById("live-paused");
  var show = document.getElementById("live-show");
  var seen = new Set(); // ids changed since the page was drawn
  var extra = 0; // changes left out of events (too many to list)
  var sessionKinds = new Set();
  var LABELS = { messages: "new messages", renamed: "renamed", closed: "closed", reopened: "reopened", gone: "deleted", "new": "new", changed: "changed" };
  region.hidden = false;
  show.href = window.location.href;
  show.addEventListener("click", function (event) {
    event.preventDefault();
    window.location.reload();
  });

  function rowsById() {
    var rows = {};
    document.querySelectorAll("table.sessions tbody tr").forEach(function (row) {
      var code = row.querySelector("code[title]");
      if (code) rows[code.getAttribute("title")] = row;
    });
    return rows;
  }

  function markRow(row, kinds) {
    row.classList.add("live-changed");
    row.dataset.liveKinds = kinds.join(" ");
    var cell = row.querySelector("td.title") || row.cells[1] || row.cells[0];
    var badge = row.querySelector(".live-badge");
    if (!badge && cell) {
      badge = document.createElement("span");
      badge.className = "live-badge";
      cell.appendChild(document.createTextNode(" "));
      cell.appendChild(badge);
    }
    if (badge) badge.textContent = kinds.map(function (k) { return LABELS[k] || k; }).join(", ");
  }

  function onList(data) {
    var rows = rowsById();
    data.changes.forEach(function (pair) {
      seen.add(pair[0]);
      if (rows[pair[0]]) markRow(rows[pair[0]], pair[1]);
    });
    extra += data.more || 0;
    var n = seen.size + extra;
    if (data.reset || n) {
      text.textContent = data.reset && !n ? "Sessions may have changed" : n + " new or changed session" + (n === 1 ? "" : "s");
      banner.hidden = false;
    }
  }

  function onSession(data) {
    data.changes.forEach(function (pair) {
      if (pair[0] === watched) pair[1].forEach(function (k) { sessionKinds.add(k); });
    });
    if (!sessionKinds.size && !data.reset) return;
    var labels = Array.from(sessionKinds).map(function (k) { return LABELS[k] || k; });
    text.textContent = "This session changed on Hermes" + (labels.length ? " (" + labels.join(" / ") + ")" : "");
    banner.hidden = false;
  }

  function onChanges(event) {
    var data = JSON.parse(event.data);
    if (mode === "session") onSession(data); else onList(data);
  }

  var source;
  var retry = null;
  function connect(url) {
    source = new EventSource(url);
    source.addEventListener("since", onChanges);
    source.addEventListener("changes", onChanges);
    source.addEventListener("status", function (event) {
      paused.hidden = !JSON.parse(event.data).paused;
    });
    source.addEventListener("poll", function () {
      paused.hidden = true; // too many streams: the browser reconnects every 30 s (retry)
    });
    source.addEventListener("open", function () { paused.hidden = true; });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED && retry === null) {
        paused.hidden = false; // refused (e.g. logged out): try again later
        retry = window.setTimeout(function () { retry = null; connect(region.dataset.liveUrl); }, 30000);
      }
    });
  }
  connect(region.dataset.liveUrl);
})();
