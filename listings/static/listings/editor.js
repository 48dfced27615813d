// The listing editor's small helpers. The page works without them: blank rows and inputs are
// always offered, and a reload shows the provider's answer.
(function () {
  "use strict";

  // Renumber "name_3" / "id_prefix-name_3" / "... row 4" from one row index to the next.
  function renumber(element, from, to) {
    ["name", "id", "for"].forEach(function (attr) {
      var value = element.getAttribute(attr);
      if (value) element.setAttribute(attr, value.replace(new RegExp("_" + from + "$"), "_" + to));
    });
    var label = element.getAttribute("aria-label");
    if (label) element.setAttribute("aria-label", label.replace(new RegExp(String(from + 1) + "$"), String(to + 1)));
  }

  function clear(element) {
    if (element.type === "checkbox") element.checked = false;
    else if (element.tagName === "SELECT") element.selectedIndex = element.name.match(/-kind_\d+$/) ? element.selectedIndex : 0;
    else element.value = "";
  }

  function addButton(container, label, onClick) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "add-row";
    button.textContent = label;
    button.addEventListener("click", onClick);
    // A button cannot follow a tbody: it goes after the table's wrapper.
    var anchor = container.tagName === "TBODY" ? container.closest(".table-wrap") : container;
    anchor.insertAdjacentElement("afterend", button);
    return button;
  }

  // Rows (hours ranges, special hours, attributes, action links): clone the last row.
  document.querySelectorAll("[data-rows]").forEach(function (container) {
    if (container.querySelector("[disabled]")) return;
    addButton(container, container.getAttribute("data-add-label") || "Add a row", function () {
      var rows = container.querySelectorAll("[data-row]");
      var last = rows[rows.length - 1];
      var copy = last.cloneNode(true);
      var from = rows.length - 1, to = rows.length;
      copy.querySelectorAll("input, select, label").forEach(function (element) {
        renumber(element, from, to);
        if (element.tagName !== "LABEL") clear(element);
      });
      copy.querySelectorAll(".field-error").forEach(function (error) { error.remove(); });
      container.appendChild(copy);
      var first = copy.querySelector("input, select");
      if (first) first.focus();
    });
  });

  // Repeated inputs (categories, languages...): add another input.
  document.querySelectorAll("[data-repeat]").forEach(function (container) {
    var inputs = container.querySelectorAll("input");
    if (!inputs.length || inputs[0].disabled) return;
    var max = parseInt(inputs[0].getAttribute("data-max") || "0", 10);
    var button = addButton(container, "Add another", function () {
      var all = container.querySelectorAll("input");
      var last = all[all.length - 1];
      var copy = last.cloneNode(true);
      renumber(copy, all.length - 1, all.length);
      copy.value = "";
      container.appendChild(copy);
      copy.focus();
      if (max && all.length + 1 >= max) button.disabled = true;
    });
    if (max && inputs.length >= max) button.disabled = true;
  });

  // A focused field stays above the sticky "Review changes" bar. The stylesheet's scroll
  // padding covers the keyboard's moves, but a textarea scrolls only its caret into view and
  // may stay half under the bar.
  var bar = document.querySelector(".sticky-actions");
  if (bar) {
    document.addEventListener("focusin", function (event) {
      var field = event.target;
      if (!field.closest || !field.closest(".listing-editor") || bar.contains(field)) return;
      var box = field.getBoundingClientRect();
      var top = bar.getBoundingClientRect().top;
      if (box.bottom > top && box.height < top) window.scrollBy(0, box.bottom - top + 8);
    });
  }

  // Follow a pending change until the provider answers, then show the answer.
  var state = document.querySelector("[data-poll-url]");
  if (state && window.fetch) {
    var url = state.getAttribute("data-poll-url");
    var initial = state.getAttribute("data-state");
    var timer = window.setInterval(function () {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (data && data.state !== initial && data.state !== "sending") {
            window.clearInterval(timer);
            window.location.reload();
          }
        })
        .catch(function () { /* try again at the next tick */ });
    }, 3000);
  }
})();
