// "Find in this transcript": n / p go to the next / previous match.
// Progressive enhancement only: the links work without it.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.target.closest("input, textarea, select, [contenteditable]")) return;
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    const which = event.key === "n" ? "next" : event.key === "p" ? "previous" : null;
    if (!which) return;
    const link = document.querySelector('#transcript-find a[data-find="' + which + '"]');
    if (link) { event.preventDefault(); window.location.assign(link.href); }
  });
})();
