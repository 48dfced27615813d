// Polls a JSON view for a page that follows work in progress (a sync run, a bulk change):
// portalPoll({url, interval, note, onData}) fetches `url` every `interval` ms; `onData(data)`
// returns the delay before the next fetch, or null to stop. After five failures in a row it
// stops and says so in `note` (an element, shown).
(function () {
  "use strict";

  window.portalPoll = function (options) {
    var failures = 0;

    function schedule(delay) { window.setTimeout(poll, delay); }

    function poll() {
      window.fetch(options.url, {credentials: "same-origin", cache: "no-store",
                                 headers: {"Accept": "application/json"}})
        .then(function (response) {
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          return response.json();
        })
        .then(function (data) {
          failures = 0;
          var next = options.onData(data);
          if (next !== null && next !== undefined) { schedule(next); }
        })
        .catch(function () {
          failures += 1;
          if (failures < 5) {
            schedule(options.interval * (failures + 1));
          } else if (options.note) {
            options.note.textContent = "Live updates stopped (the portal did not answer). " +
              "Reload the page to try again.";
            options.note.hidden = false;
          }
        });
    }

    if (window.fetch) { schedule(options.interval); }
  };
}());
