// Keyboard review (the form works without it): 1-9 choose in the current field, j/k move
// between messages with fields, Esc leaves a text field, Ctrl+Enter completes and opens
// the next item. Keys are ignored while typing in a text field. No inline code (CSP).
(function () {
  "use strict";
  const form = document.getElementById("rv-form");
  if (!form) return;
  const complete = document.getElementById("rv-complete");
  let current = null;

  function fields() { return Array.from(document.querySelectorAll(".rv-field")); }
  function messages() { return Array.from(document.querySelectorAll(".rv-msg.rv-has-fields")); }
  function typing(el) {
    if (!el || !el.tagName) return false;
    if (el.tagName === "TEXTAREA" || el.isContentEditable) return true;
    return el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(el.type);
  }
  function setCurrent(field, focus) {
    if (!field) return;
    if (current) current.classList.remove("rv-current");
    current = field;
    field.classList.add("rv-current");
    if (focus) {
      const input = field.querySelector("input:checked") || field.querySelector("input, textarea");
      if (input) input.focus({ preventScroll: true });
    }
  }
  function currentMessage() {
    return current ? current.closest(".rv-msg") : null;
  }
  function moveMessage(step) {
    const list = messages();
    if (!list.length) return;
    let index = list.indexOf(currentMessage());
    index = index < 0 ? (step > 0 ? 0 : list.length - 1) : Math.min(Math.max(index + step, 0), list.length - 1);
    const target = list[index];
    list.forEach((m) => m.classList.remove("rv-current-msg"));
    target.classList.add("rv-current-msg");
    target.scrollIntoView({ block: "center" });
    setCurrent(target.querySelector(".rv-field"), true);
  }
  function choose(field, n) {
    const radios = Array.from(field.querySelectorAll("input[type=radio]"));
    if (radios.length) {
      const radio = radios[n - 1];
      if (radio && !radio.disabled) { radio.checked = true; radio.focus({ preventScroll: true }); }
      return;
    }
    const number = field.querySelector("input[type=number]");
    if (number && !number.disabled) number.value = String(n);
  }

  document.addEventListener("focusin", function (event) {
    const field = event.target.closest && event.target.closest(".rv-field");
    if (field) setCurrent(field, false);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      if (complete) { event.preventDefault(); form.requestSubmit(complete); }
      return;
    }
    if (event.key === "Escape" && typing(event.target)) { event.target.blur(); return; }
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    if (/^[1-9]$/.test(event.key) && current) {
      event.preventDefault();
      choose(current, Number(event.key));
    } else if (event.key === "j" || event.key === "k") {
      event.preventDefault();
      moveMessage(event.key === "j" ? 1 : -1);
    }
  });
  const first = fields().find((f) => !f.closest(".rv-msg")) || fields()[0];
  setCurrent(first, Boolean(complete));
  document.body.classList.add("rv-keys-on");
})();
