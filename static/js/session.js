// The session page: keys, side panels that open in place, and the message slots.
// Progressive enhancement only: every link and panel works without it.
(function () {
  "use strict";
  function typing(event) {
    return event.target.closest("input, textarea, select, [contenteditable]") ||
      event.metaKey || event.ctrlKey || event.altKey;
  }
  // A link to something inside a closed side panel (#notes, #review-labels) opens it.
  function openTarget() {
    if (!location.hash) return;
    let target = null;
    try { target = document.querySelector(location.hash); } catch (e) { return; }
    const panel = target && target.closest("details.side-panel");
    if (panel && !panel.open) { panel.open = true; target.scrollIntoView(); }
  }
  // Regions loaded once in view (hx-trigger="revealed": lineage, compare) wait while their
  // side panel is closed (htmx counts a hidden element as in view), and load when it opens.
  document.addEventListener("htmx:beforeRequest", function (event) {
    const elt = event.detail.elt;
    if (elt && elt.closest && elt.matches('[hx-trigger="revealed"]') &&
        elt.closest("details.side-panel:not([open])")) {
      event.preventDefault();
    }
  });
  document.addEventListener("toggle", function (event) {
    const panel = event.target;
    if (!panel.matches || !panel.matches("details.side-panel") || !panel.open || !window.htmx) return;
    panel.querySelectorAll('[hx-trigger="revealed"]').forEach(function (elt) { htmx.trigger(elt, "revealed"); });
  }, true);
  // A message's notes or correction form opens in a slot made on the first click.
  document.addEventListener("click", function (event) {
    const link = event.target.closest && event.target.closest(".msg-review .notes-link, .msg-review .correct-link");
    if (!link) return;
    const region = link.closest(".msg-review");
    const id = region.id.replace("msg-review-", "msg-slot-");
    if (!document.getElementById(id)) {
      const slot = document.createElement("div");
      slot.className = "msg-slot";
      slot.id = id;
      slot.setAttribute("aria-live", "polite");
      region.appendChild(slot);
    }
  }, true);
  // "Write a message…" (key w) replaces the chat region with the whole box: its text box
  // takes the focus once it has arrived.
  let writing = false;
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("#chat-open")) writing = true;
  }, true);
  document.addEventListener("htmx:afterSettle", function () {
    const box = writing && document.querySelector("#chat-form textarea[name=message]");
    if (box) { writing = false; box.focus(); }
  });
  let current = -1;
  function moveMessage(step) {
    const all = Array.from(document.querySelectorAll("#messages article.msg"));
    if (!all.length) return;
    if (current < 0 || current >= all.length || !all[current].isConnected) {
      // Start from the message at the top of the window.
      current = all.findIndex((m) => m.getBoundingClientRect().bottom > 0) - (step > 0 ? 1 : 0);
    }
    current = Math.max(0, Math.min(current + step, all.length - 1));
    all.forEach((m, i) => m.classList.toggle("kb-focus", i === current));
    all[current].scrollIntoView({ block: "start" });
  }
  document.addEventListener("keydown", function (event) {
    if (typing(event)) return;
    const key = event.key;
    if (key === "j" || key === "k") { moveMessage(key === "j" ? 1 : -1); event.preventDefault(); return; }
    if (key === "End" || key === "Home") {
      const link = document.getElementById(key === "End" ? "transcript-latest" : "transcript-start");
      if (link) { event.preventDefault(); window.location.assign(link.href); }
      else if (key === "End") {
        const all = document.querySelectorAll("#messages article.msg");
        if (all.length) { event.preventDefault(); all[all.length - 1].scrollIntoView({ block: "end" }); }
      }
      return;
    }
    if (key.length !== 1) return;
    const write = key === "w" && document.getElementById("chat-open");
    if (write) { event.preventDefault(); write.click(); return; }
    const panel = document.querySelector('details.side-panel[data-panel-key="' + key + '"]');
    if (!panel) return;
    event.preventDefault();
    panel.open = !panel.open;
    if (panel.open) { panel.scrollIntoView({ block: "nearest" }); panel.querySelector("summary").focus(); }
  });
  window.addEventListener("hashchange", openTarget);
  document.addEventListener("DOMContentLoaded", openTarget);
  if (document.readyState !== "loading") openTarget();
})();
