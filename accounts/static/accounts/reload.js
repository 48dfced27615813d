// Reload the page once a waiting refresh has had time to run (the server stops asking for it
// when the refresh is done or has waited too long).
(function () {
  var waiting = document.querySelector("[data-reload-after]");
  if (!waiting) { return; }
  var seconds = parseInt(waiting.getAttribute("data-reload-after"), 10) || 5;
  window.setTimeout(function () { window.location.reload(); }, seconds * 1000);
})();
