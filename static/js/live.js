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

  // New messages of the open session, through the page's own chunk view (role-checked,
  // escaped there): only when the whole transcript is on the page (no "load more" left).
  var appending = false;
  function appendMessages() {
    var box = document.getElementById("messages");
    var url = region.dataset.liveMessages;
    if (!box || !url || appending || box.querySelector(".load-more")) return;
    var shown = box.querySelectorAll("article.msg[id^='msg-']");
    var last = shown.length ? shown[shown.length - 1].id.slice(4) : "";
    if (last && !/^[0-9]+$/.test(last)) return;
    appending = true;
    fetch(last ? url + (url.indexOf("?") < 0 ? "?" : "&") + "after=" + last : url, {
      headers: { "HX-Request": "true" }, credentials: "same-origin"
    }).then(function (answer) {
      return answer.ok ? answer.text() : "";
    }).then(function (html) {
      var chunk = new DOMParser().parseFromString(html, "text/html");
      var empty = box.parentNode.querySelector("p.empty");
      if (empty && chunk.querySelector("article.msg")) empty.hidden = true;
      chunk.querySelectorAll("article.msg[id^='msg-']").forEach(function (article) {
        if (!document.getElementById(article.id)) {
          article.classList.add("live-appended");
          box.appendChild(document.adoptNode(article));
        }
      });
    }).catch(function () {}).then(function () { appending = false; });
  }

  function onSession(data) {
    var grew = false;
    data.changes.forEach(function (pair) {
      if (pair[0] !== watched) return;
      // "new": the poller met the session for the first time; not news on its own page.
      pair[1].forEach(function (k) { if (k !== "new") sessionKinds.add(k); });
      grew = grew || pair[1].indexOf("messages") >= 0;
    });
    if (grew) appendMessages();
    if (!sessionKinds.size && !data.reset) return;
    var labels = Array.from(sessionKinds).map(function (k) { return LABELS[k] || k; });
    text.textContent = "This session changed on Hermes" + (labels.length ? " (" + labels.join(" / ") + ")" : "");
    banner.hidden = false;
  }

  function onChanges(event) {
    var data = JSON.parse(event.data);
    region.dataset.liveLast = event.lastEventId; // the event the page has seen up to
    if (mode === "session") onSession(data); else onList(data);
  }

  // The index reloads its results when a sync it saw running ends ("index-refreshed").
  // While the stream is open the banner says what changed instead: the rows never
  // re-sort under the reader, unless they pressed Refresh themselves.
  var askedRefresh = false;
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var config = event.detail.requestConfig || {};
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    if (form && /\/index\/refresh\/?$/.test(form.getAttribute("action") || "")) askedRefresh = true;
    var trigger = config.triggeringEvent;
    if (!trigger || trigger.type !== "index-refreshed") return;
    if (askedRefresh) { askedRefresh = false; return; }
    if (source && source.readyState === EventSource.OPEN) event.preventDefault();
  });

  var source;
  var retry = null;
  var polling = false;
  function connect(url) {
    source = new EventSource(url);
    source.addEventListener("since", onChanges);
    source.addEventListener("changes", onChanges);
    source.addEventListener("status", function (event) {
      paused.hidden = !JSON.parse(event.data).paused;
    });
    source.addEventListener("poll", function () {
      polling = true; // too many streams here: the browser reconnects in 30 s (retry)
      paused.hidden = true;
    });
    source.addEventListener("open", function () { polling = false; paused.hidden = true; });
    source.addEventListener("error", function () {
      // The connection dropped: the browser reconnects by itself (an ended poll is not news).
      if (!polling) paused.hidden = false;
      if (source.readyState === EventSource.CLOSED && retry === null) {
        // Refused (e.g. logged out, or a server error): try again later.
        retry = window.setTimeout(function () { retry = null; connect(region.dataset.liveUrl); }, 30000);
      }
    });
  }
  connect(region.dataset.liveUrl);
})();
