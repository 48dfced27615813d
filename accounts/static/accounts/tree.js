// Expand or collapse every node of the hierarchy tree at once (the tree works without this).
(function () {
  var buttons = document.querySelectorAll(".tree-toggle");
  buttons.forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var open = button.dataset.open === "true";
      document.querySelectorAll(".tree details").forEach(function (node) { node.open = open; });
    });
  });
})();
