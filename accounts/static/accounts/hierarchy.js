// "Add a level": appends an empty row to the hierarchy formset (the form works without this).
(function () {
  var button = document.getElementById("add-level");
  var template = document.getElementById("level-template");
  var total = document.getElementById("id_levels-TOTAL_FORMS");
  var body = document.querySelector("#levels-table tbody");
  if (!button || !template || !total || !body) { return; }
  button.hidden = false;
  button.addEventListener("click", function () {
    var index = parseInt(total.value, 10);
    var html = template.innerHTML.replace(/__prefix__/g, String(index))
      .replace(/Level new/g, "Level " + (index + 1)).replace(/level new/g, "level " + (index + 1));
    body.insertAdjacentHTML("beforeend", html);
    total.value = String(index + 1);
    var inputs = body.querySelectorAll("tr:last-child input[type=text]");
    if (inputs.length) { inputs[0].focus(); }
  });
})();
