// Shows the drop-down options field only for the drop-down types, and the default as a date
// picker for a date field (a text box for the others). Without JavaScript every field stays
// visible and the server explains which one a type takes.
(function () {
  "use strict";
  var type = document.getElementById("id_type");
  if (!type) { return; }

  function toggle(input, shown) {
    if (!input) { return; }
    var field = input.closest(".field");
    var keep = field.classList.contains("has-error") || input.value.trim() !== "";
    field.classList.toggle("is-hidden", !shown && !keep);
  }

  function update() {
    var dropdown = type.value === "DROPDOWN_SINGLE" || type.value === "DROPDOWN_MULTI";
    var date = type.value === "DATE";
    toggle(document.getElementById("id_drop_down_options"), dropdown);
    toggle(document.getElementById("id_default_value"), !date);
    toggle(document.getElementById("id_default_date"), date);
  }

  type.addEventListener("change", update);
  update();
})();
