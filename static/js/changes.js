// Progressive enhancement for the changes forms; every form works without it.
(function () {
  "use strict";
  if (window.hermesChanges) return; // the region and a page may both load this file
  window.hermesChanges = true;
  // htmx 2 does not swap 4xx/5xx answers. A refused change is a value to show
  // (field errors, the provider's verdict), so forms marked data-swap-errors
  // swap those answers in like any other.
  document.addEventListener("htmx:beforeSwap", function (event) {
    const elt = event.detail.requestConfig ? event.detail.requestConfig.elt : event.detail.elt;
    if (event.detail.xhr.status >= 400 && elt && elt.closest("[data-swap-errors]")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
  // Escape closes an inline rename/close form and returns focus to its link.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !event.target.closest) return;
    const form = event.target.closest("[data-inline-form]");
    const slot = form && form.closest("#change-slot");
    if (!slot) return;
    const link = document.getElementById(form.id === "close-form" ? "close-link" : "rename-link");
    slot.replaceChildren();
    if (link) link.focus();
  });
})();
