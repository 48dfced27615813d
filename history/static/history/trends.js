// A business's page: its trends card is put in place once the page is shown, so that the page
// never waits for it; without this script the card links to the trends page.
(function () {
  document.querySelectorAll("[data-trends-src]").forEach(function (card) {
    fetch(card.getAttribute("data-trends-src"), {credentials: "same-origin",
                                                 headers: {"Accept": "text/html"}})
      .then(function (response) {
        if (!response.ok) { throw new Error(String(response.status)); }
        return response.text();
      })
      .then(function (html) { card.innerHTML = html; })
      .catch(function () { /* the link in the card still leads to the trends */ });
  });
})();
