// At phone width app.css shows each row of a table as a card, one value a line; each cell then
// needs its column's name, which is copied here from the table's header (data-label) so that
// no template repeats it. Rows added later (an editor's "Add another", a progress refresh) get
// theirs too.
(function () {
  "use strict";

  // Header text only screen readers get ("Actions" over a column of buttons) names no line.
  var UNSEEN = ".visually-hidden, .settings-sr-only";

  function headerName(cell) {
    var copy = cell.cloneNode(true);
    copy.querySelectorAll(UNSEEN).forEach(function (el) { el.remove(); });
    // The arrow of the sorted column belongs to the header's link, not to each value.
    return copy.textContent.replace(/[▲▼]/g, "").replace(/\s+/g, " ").trim();
  }

  function hasOwnLabel(cell) {
    return Array.prototype.some.call(cell.querySelectorAll("label"), function (label) {
      return !label.matches(UNSEEN);
    });
  }

  function label(table) {
    var head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
    if (!head) return;
    var names = [];
    Array.prototype.forEach.call(head.cells, function (cell) {
      var name = headerName(cell);
      for (var i = 0; i < cell.colSpan; i += 1) names.push(name);
    });
    // Styled as blocks, some browsers stop announcing a table as one; the roles keep it.
    table.setAttribute("role", "table");
    Array.prototype.forEach.call(table.querySelectorAll(":scope > thead, :scope > tbody"),
      function (group) { group.setAttribute("role", "rowgroup"); });
    Array.prototype.forEach.call(head.cells, function (cell) {
      cell.setAttribute("role", "columnheader");
    });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        row.setAttribute("role", "row");
        var column = 0;
        Array.prototype.forEach.call(row.cells, function (cell) {
          var name = cell.colSpan === 1 ? names[column] : "";
          // A row's own header is the card's title; a field with a label in view needs no other.
          if (cell.tagName === "TH") {
            cell.setAttribute("role", "rowheader");
          } else {
            cell.setAttribute("role", "cell");
            if (name && !hasOwnLabel(cell)) cell.dataset.label = name;
            else delete cell.dataset.label;
          }
          column += cell.colSpan;
        });
      });
    });
    head.setAttribute("role", "row");
  }

  function labelAll() {
    document.querySelectorAll(".table-wrap table").forEach(label);
  }

  labelAll();
  var pending = false;
  new MutationObserver(function (mutations) {
    var rows = mutations.some(function (mutation) {
      return Array.prototype.some.call(mutation.addedNodes, function (node) {
        return node.nodeType === 1 && (node.matches("tr, table, tbody, .table-wrap")
          || node.querySelector("tr"));
      });
    });
    if (!rows || pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; labelAll(); });
  }).observe(document.body, {childList: true, subtree: true});
}());
