// The overview of a reseller or an enterprise: figures the provider must be asked for are put
// in their card once the page is shown; without this script the card links to them.
(function () {
  document.querySelectorAll("[data-rollup-src]").forEach(function (card) {
    var status = card.querySelector("[data-rollup-status]");
    if (status) { status.textContent = "Asking the provider…"; }
    fetch(card.getAttribute("data-rollup-src"), {credentials: "same-origin",
                                                  headers: {"Accept": "text/html"}})
      .then(function (response) {
        if (!response.ok) { throw new Error(String(response.status)); }
        return response.text();
      })
      .then(function (html) { card.innerHTML = html; })
      .catch(function () {
        if (status) { status.textContent = "The provider could not be asked just now; the link opens the figures on a page of their own."; }
      });
  });
})();
