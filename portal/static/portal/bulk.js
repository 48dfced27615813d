/* Bulk changes: the live progress of a change, and the choice of locations in the businesses
   list. No inline script: everything is wired through data- attributes, so the CSP holds. */
(function () {
  "use strict";

  function each(root, selector, fn) {
    Array.prototype.forEach.call(root.querySelectorAll(selector), fn);
  }

  // -- a change's progress ---------------------------------------------------------------------

  function render(root, data) {
    each(root, "[data-bulk-field]", function (el) {
      var name = el.getAttribute("data-bulk-field");
      if (name in data) { el.textContent = String(data[name]); }
    });
    each(root, "[data-bulk-bar]", function (bar) {
      var value = Number(data[bar.getAttribute("data-bulk-bar")]) || 0;
      bar.value = Math.max(0, Math.min(100, value));
      bar.textContent = bar.value + "%";
    });
    var badge = root.querySelector("[data-bulk-badge]");
    if (badge) {
      badge.className = "badge " + (data.badge || "");
      badge.textContent = data.state_label;
    }
    var note = root.querySelector('[data-bulk-field="note"]');
    if (note) { note.hidden = !data.note; }
    var paused = root.querySelector("[data-bulk-paused]");
    if (paused) { paused.hidden = !(data.state === "paused" && data.paused_reason); }
  }

  function watch(root) {
    if (root.getAttribute("data-moving") !== "true") { return; }
    var state = root.getAttribute("data-state");
    var interval = parseInt(root.getAttribute("data-interval"), 10) || 1500;
    window.portalPoll({
      url: root.getAttribute("data-url"),
      interval: interval,
      note: root.querySelector("[data-bulk-note]"),
      onData: function (data) {
        render(root, data);
        // A new state brings other buttons and other locations' states: the page again.
        if (data.state !== state) {
          window.location.reload();
          return null;
        }
        return data.moving ? interval : null;
      }
    });
  }

  // -- choosing locations in the businesses list -------------------------------------------------

  function wireSelection(form) {
    var boxes = document.querySelectorAll('input[type="checkbox"][form="' + form.id + '"]');
    var all = form.querySelector("[data-bulk-all]");
    var button = form.querySelector("[data-bulk-selected]");
    var count = form.querySelector("[data-bulk-count]");

    function update() {
      var chosen = Array.prototype.filter.call(boxes, function (box) { return box.checked; });
      if (button) { button.disabled = chosen.length === 0; }
      if (count) { count.textContent = chosen.length ? "(" + chosen.length + ")" : ""; }
      if (all) {
        all.checked = chosen.length > 0 && chosen.length === boxes.length;
        all.indeterminate = chosen.length > 0 && chosen.length < boxes.length;
      }
    }

    if (all) {
      all.closest("[hidden]") && (all.closest("[hidden]").hidden = false);
      all.addEventListener("change", function () {
        Array.prototype.forEach.call(boxes, function (box) { box.checked = all.checked; });
        update();
      });
    }
    Array.prototype.forEach.call(boxes, function (box) { box.addEventListener("change", update); });
    update();
  }

  function start() {
    each(document, "[data-bulk-progress]", watch);
    each(document, "form[data-bulk-selection]", wireSelection);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
