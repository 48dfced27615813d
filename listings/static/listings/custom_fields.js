// Shows the drop-down options field only for the drop-down types. Without JavaScript the
// field stays visible and the server explains when it must be empty or filled.
(function () {
  "use strict";
  var type = document.getElementById("id_type");
  var options = document.getElementById("id_drop_down_options");
  if (!type || !options) { return; }
  var field = options.closest(".field");
  function update() {
    var dropdown = type.value === "DROPDOWN_SINGLE" || type.value === "DROPDOWN_MULTI";
    var hasError = field.classList.contains("has-error");
    field.classList.toggle("is-hidden", !dropdown && !hasError && options.value.trim() === "");
  }
  type.addEventListener("change", update);
  update();
})();
