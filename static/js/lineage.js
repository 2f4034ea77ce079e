// Lineage graphs: scroll a large drawing so the current session (or the live
// tip) is in view, on page load and after htmx swaps a graph in.
// Progressive enhancement only: without it the graph is simply scrollable.
(function () {
  "use strict";
  function center(scope) {
    (scope || document).querySelectorAll(".lineage-graph .svg-wrap").forEach(function (wrap) {
      const node = wrap.querySelector("g.node.current") || wrap.querySelector("g.node.tip");
      if (!node || wrap.scrollHeight <= wrap.clientHeight && wrap.scrollWidth <= wrap.clientWidth) return;
      const box = wrap.getBoundingClientRect();
      const spot = node.getBoundingClientRect();
      wrap.scrollLeft += spot.left - box.left - (box.width - spot.width) / 2;
      wrap.scrollTop += spot.top - box.top - (box.height - spot.height) / 2;
    });
  }
  document.addEventListener("DOMContentLoaded", function () { center(); });
  document.addEventListener("htmx:afterSettle", function () { center(); });
})();
