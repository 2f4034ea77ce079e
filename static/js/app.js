// Keyboard navigation for tables marked data-keynav: j/k move, Enter opens.
// Everything here is progressive enhancement; every page works without it.
(function () {
  "use strict";
  let current = -1;
  function rows() {
    const table = document.querySelector("table[data-keynav]");
    return table ? Array.from(table.tBodies[0].rows) : [];
  }
  function focusRow(index) {
    const all = rows();
    if (!all.length) return;
    current = Math.max(0, Math.min(index, all.length - 1));
    all.forEach((r, i) => r.classList.toggle("kb-focus", i === current));
    const link = all[current].querySelector("a");
    if (link) link.focus();
  }
  document.addEventListener("keydown", function (event) {
    const target = event.target;
    if (target.closest("input, textarea, select, [contenteditable]")) return;
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    if (event.key === "j") { focusRow(current + 1); event.preventDefault(); }
    else if (event.key === "k") { focusRow(current - 1); event.preventDefault(); }
    else if (event.key === "/") {
      // The search box where the page has one (the Sessions page), else the id box.
      const search = document.querySelector("[data-search]") || document.getElementById("goto-id");
      if (search) { search.focus(); event.preventDefault(); }
    }
  });
  document.addEventListener("htmx:afterSwap", function () { current = -1; });
  // Regions marked data-poll-visible poll only while the tab is visible. A filter
  // in hx-trigger would do this with eval, which the Content-Security-Policy forbids.
  document.addEventListener("htmx:beforeRequest", function (event) {
    const elt = event.detail.elt;
    if (elt && elt.matches && elt.matches("[data-poll-visible]") && document.visibilityState !== "visible") {
      event.preventDefault();
    }
  });
})();
