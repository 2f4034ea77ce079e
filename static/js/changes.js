// Progressive enhancement for the session page's inline change forms; every form works without it.
(function () {
  "use strict";
  if (window.hermesChanges) return; // a swapped-in copy of the region loads this file again
  window.hermesChanges = true;
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
