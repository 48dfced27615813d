/* Sync pages: the live progress bar of a run and the "select all / none" of the start form.
   No inline script: everything is wired through data- attributes, so a strict CSP holds. */
(function () {
  "use strict";

  function each(root, selector, fn) {
    Array.prototype.forEach.call(root.querySelectorAll(selector), fn);
  }

  function setField(root, name, value) {
    each(root, '[data-sync-field="' + name + '"]', function (el) {
      el.textContent = String(value);
    });
  }

  function drawBar(bar, percent) {
    if (!bar) { return; }
    var clamped = Math.max(0, Math.min(100, Number(percent) || 0));
    bar.setAttribute("aria-valuenow", String(clamped));
    var fill = bar.firstElementChild;
    if (fill) { fill.style.width = clamped + "%"; }  // CSSOM, allowed under a strict CSP
  }

  function fillList(container, items, makeRow) {
    if (!container) { return; }
    while (container.firstChild) { container.removeChild(container.firstChild); }
    items.forEach(function (item) { container.appendChild(makeRow(item)); });
  }

  function render(root, data) {
    drawBar(root.querySelector("[data-sync-bar]"), data.percent);
    ["percent", "done", "total", "failed", "requests_made", "rate_limited", "duration"]
      .forEach(function (name) { setField(root, name, data[name]); });
    var badge = root.querySelector("[data-sync-badge]");
    if (badge) {
      badge.className = "badge " + data.badge;
      badge.textContent = data.status_label;
    }
    var note = root.querySelector("[data-sync-note]");
    if (note) {
      note.textContent = data.note || "";
      note.hidden = !data.note;
    }
    var countsSection = document.querySelector("[data-sync-counts-section]");
    if (countsSection && data.counts && data.counts.length) {
      fillList(document.querySelector("[data-sync-counts]"), data.counts, function (item) {
        var row = document.createElement("tr");
        var label = document.createElement("td");
        var value = document.createElement("td");
        label.textContent = item.label;
        value.textContent = String(item.value);
        row.appendChild(label);
        row.appendChild(value);
        return row;
      });
      countsSection.hidden = false;
    }
    var errorsSection = document.querySelector("[data-sync-errors-section]");
    if (errorsSection && data.errors && data.errors.length) {
      fillList(document.querySelector("[data-sync-errors]"), data.errors, function (text) {
        var li = document.createElement("li");
        li.textContent = text;
        return li;
      });
      errorsSection.hidden = false;
    }
  }

  function watch(root) {
    drawBar(root.querySelector("[data-sync-bar]"),
            root.querySelector("[data-sync-bar]").getAttribute("aria-valuenow"));
    if (root.getAttribute("data-finished") === "true") { return; }
    var interval = parseInt(root.getAttribute("data-interval"), 10) || 1500;
    window.portalPoll({
      url: root.getAttribute("data-url"),
      interval: interval,
      note: root.querySelector("[data-sync-note]"),
      onData: function (data) {
        render(root, data);
        if (data.finished) {
          root.setAttribute("data-finished", "true");
          return null;
        }
        return data.stale ? interval * 10 : interval;
      }
    });
  }

  function wireToggles() {
    each(document, "[data-sync-check]", function (button) {
      button.addEventListener("click", function () {
        var on = button.getAttribute("data-sync-check") === "all";
        var form = button.closest("form");
        each(form, 'input[type="checkbox"][name="resources"]', function (box) { box.checked = on; });
      });
    });
  }

  function start() {
    each(document, "[data-sync-progress]", watch);
    wireToggles();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
