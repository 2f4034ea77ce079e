// Selection on the index page: shift-click ranges, "this page" and "all matching".
// Progressive enhancement (the boxes post without it); no inline handlers (CSP).
(function () {
  "use strict";
  let last = null;
  function boxes() {
    return Array.from(document.querySelectorAll("form[data-selection] [data-select-row]"));
  }
  document.addEventListener("click", function (event) {
    const box = event.target.closest && event.target.closest("[data-select-row]");
    if (!box) return;
    const all = boxes();
    if (event.shiftKey && last && last !== box && all.includes(last)) {
      const [a, b] = [all.indexOf(last), all.indexOf(box)].sort((x, y) => x - y);
      all.slice(a, b + 1).forEach((other) => { other.checked = box.checked; });
    }
    last = box;
  });
  document.addEventListener("change", function (event) {
    const target = event.target;
    if (target.matches && target.matches("[data-select-page]")) {
      boxes().forEach((box) => { box.checked = target.checked; });
    } else if (target.matches && target.matches("[data-select-all]")) {
      // The server resolves "all matching": the row boxes do not count then.
      boxes().forEach((box) => { box.disabled = target.checked; });
    }
  });
  document.addEventListener("htmx:afterSwap", function () { last = null; });
})();
