// Live notices (hermes_ui/live/notice_views.py): the deletion queue and a review queue's page
// follow what other people do on the dashboard. A notice carries ids and a kind only; what
// the page shows comes from its own, role-checked view (htmx, the page's own URL).
(function () {
  "use strict";
  var region = document.getElementById("live-notices");
  if (!region || !window.EventSource || !window.htmx) return;
  var topic = region.dataset.liveTopic;
  var paused = document.getElementById("live-paused");
  var banner = document.getElementById("live-banner");
  var text = document.getElementById("live-text");
  var show = document.getElementById("live-show");
  var fresh = new Set(); // requests filed since the page was last drawn
  var changed = new Set(); // requests (or batches) decided or executed since then
  var reset = false;
  var source = null;
  var retry = null;
  var polling = false;
  region.hidden = false;

  function following() { return source && source.readyState === EventSource.OPEN; }

  // --- the deletion queue: "2 new requests · Show"; Show redraws the queue in place.
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }
  function sayDeletions() {
    var parts = [];
    if (fresh.size) parts.push(plural(fresh.size, "new request", "new requests"));
    if (changed.size) parts.push(plural(changed.size, "request changed", "requests changed"));
    if (!parts.length && reset) parts.push("Requests may have changed");
    if (!parts.length) return;
    text.textContent = parts.join(" · ");
    banner.hidden = false;
  }
  function onDeletion(data) {
    var key = data.batch_id ? "b" + data.batch_id : "r" + data.request_id;
    if (data.kind === "requested") fresh.add(key); else if (!fresh.has(key)) changed.add(key);
    sayDeletions();
  }
  if (show) {
    show.href = window.location.href;
    show.addEventListener("click", function (event) {
      var queue = document.getElementById("queue");
      if (!queue) return; // no queue on the page: the link reloads it
      event.preventDefault();
      fresh.clear(); changed.clear(); reset = false;
      banner.hidden = true;
      htmx.trigger(queue, "live-show");
    });
  }
  // While the stream is open the queue is redrawn only on Show (its timed refresh would
  // move rows under the reader); when the stream is down the timed refresh takes over.
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    if (topic !== "deletions" || !event.detail.elt || event.detail.elt.id !== "queue") return;
    var trigger = (event.detail.requestConfig || {}).triggeringEvent;
    if (trigger && trigger.type === "live-show") return;
    if (following()) event.preventDefault();
  });

  // --- a review queue's page: its progress and items redraw themselves.
  function onReview() {
    var part = document.getElementById("queue-live");
    if (part) htmx.trigger(part, "live-refresh");
  }

  function onNotice(event) {
    var data = JSON.parse(event.data);
    region.dataset.liveLast = event.lastEventId;
    if (topic === "deletions") onDeletion(data); else onReview(data);
  }
  function connect(url) {
    source = new EventSource(url);
    source.addEventListener("notice", onNotice);
    source.addEventListener("since", function () {
      reset = true;
      if (topic === "deletions") sayDeletions(); else onReview();
    });
    source.addEventListener("poll", function () { polling = true; paused.hidden = true; });
    source.addEventListener("open", function () {
      polling = false; paused.hidden = true; region.dataset.liveOpen = "true";
    });
    source.addEventListener("error", function () {
      delete region.dataset.liveOpen;
      if (!polling) paused.hidden = false;
      if (source.readyState === EventSource.CLOSED && retry === null) {
        retry = window.setTimeout(function () { retry = null; connect(region.dataset.liveUrl); }, 30000);
      }
    });
  }
  connect(region.dataset.liveUrl);
})();
