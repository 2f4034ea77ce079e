// Live notices (hermes_ui/live/notice_views.py): the deletion queue and a review queue's page
// follow what other people do on the dashboard. A notice carries ids and a kind only; the
// page redraws its part through its own, role-checked view (htmx, the page's own URL).
(function () {
  "use strict";
  var region = document.getElementById("live-notices");
  if (!region || !window.EventSource || !window.htmx) return;
  var topic = region.dataset.liveTopic;
  var part = topic === "deletions" ? "queue" : "queue-live"; // the element redrawn
  var paused = document.getElementById("live-paused");
  var touched = new Set(); // deletion requests a notice named since the page was drawn
  var redraws = 0;
  var source = null;
  var retry = null;
  var polling = false;
  region.hidden = false;

  function following() { return source && source.readyState === EventSource.OPEN; }

  function redraw() {
    var elt = document.getElementById(part);
    if (elt) htmx.trigger(elt, "live-refresh"); // debounced by its hx-trigger (delay)
  }

  // While the stream is open the deletion queue is redrawn when a notice says so, not
  // every few seconds; when the stream is down its timed refresh takes over again.
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt || elt.id !== part) return;
    var trigger = (event.detail.requestConfig || {}).triggeringEvent;
    if (trigger && trigger.type === "live-refresh") {
      redraws += 1;
      region.dataset.liveRedraws = String(redraws);
    } else if (topic === "deletions" && following()) {
      event.preventDefault();
    }
  });
  // The requests a notice named are marked where they are in the redrawn queue.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    if (topic !== "deletions") return;
    touched.forEach(function (id) {
      var row = document.getElementById("deletion-" + id);
      if (row) row.classList.add("live-changed");
    });
  });

  function onNotice(event) {
    var data = JSON.parse(event.data);
    region.dataset.liveLast = event.lastEventId;
    if (typeof data.request_id === "number") touched.add(data.request_id);
    redraw();
  }
  function connect(url) {
    source = new EventSource(url);
    source.addEventListener("notice", onNotice);
    source.addEventListener("since", redraw); // too much was missed: redraw all of it
    source.addEventListener("poll", function () { polling = true; paused.hidden = true; });
    source.addEventListener("open", function () {
      polling = false; paused.hidden = true; region.dataset.liveOpen = "true";
    });
    source.addEventListener("error", function () {
      delete region.dataset.liveOpen;
      // The deletion queue falls back to its timed refresh: nothing is paused there.
      if (!polling && topic !== "deletions") paused.hidden = false;
      if (source.readyState === EventSource.CLOSED && retry === null) {
        retry = window.setTimeout(function () { retry = null; connect(region.dataset.liveUrl); }, 30000);
      }
    });
  }
  connect(region.dataset.liveUrl);
})();
