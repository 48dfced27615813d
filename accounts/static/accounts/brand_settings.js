// The brand settings page: a live preview of the header and of the page's links and buttons as
// the owner types, a colour picker beside each colour field, and the contrast of each colour
// against what it is used with (the same rule as the server's, which has the last word).
(function () {
  "use strict";
  var nameInput = document.getElementById("id_product_name");
  var nameShown = document.getElementById("brand-preview-name");
  var preview = document.getElementById("brand-preview");
  if (!nameInput || !nameShown || !preview) { return; }
  var MIN_CONTRAST = 4.5;
  var WHITE = "#ffffff";
  var PAGE = "#f5f6f8";
  // What each colour meets on the pages (accounts/brand_rules.py).
  var USES = {
    primary_colour: { against: [WHITE], words: "with the header's white text", property: "--preview-primary" },
    accent_colour: { against: [PAGE, WHITE], words: "with the page's light grey and white", property: "--preview-accent" }
  };

  function normalise(value) {
    var text = (value || "").trim().toLowerCase();
    if (text && text.charAt(0) !== "#") { text = "#" + text; }
    if (/^#[0-9a-f]{3}$/.test(text)) {
      text = "#" + text.charAt(1) + text.charAt(1) + text.charAt(2) + text.charAt(2) + text.charAt(3) + text.charAt(3);
    }
    return /^#[0-9a-f]{6}$/.test(text) ? text : "";
  }

  function channel(value) {
    var c = value / 255;
    return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  }

  function luminance(colour) {
    var r = parseInt(colour.substr(1, 2), 16), g = parseInt(colour.substr(3, 2), 16), b = parseInt(colour.substr(5, 2), 16);
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  }

  function contrast(a, b) {
    var la = luminance(a), lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  }

  function ratioText(ratio) {
    var text = ratio.toFixed(1);
    if (parseFloat(text) >= MIN_CONTRAST && ratio < MIN_CONTRAST) { text = (Math.floor(ratio * 100) / 100).toFixed(2); }
    return text;
  }

  function showColour(name) {
    var input = document.getElementById("id_" + name);
    var note = document.getElementById("id_" + name + "_contrast");
    var use = USES[name];
    var colour = normalise(input.value);
    if (colour) {
      preview.style.setProperty(use.property, colour);
    } else {
      preview.style.removeProperty(use.property);
    }
    if (!note) { return; }
    if (!input.value.trim()) {
      note.textContent = "The portal's own colour.";
      note.classList.remove("bad");
      return;
    }
    if (!colour) {
      note.textContent = "Not a colour yet: # and six hexadecimal digits, such as " + input.dataset.default + ".";
      note.classList.add("bad");
      return;
    }
    var worst = Math.min.apply(null, use.against.map(function (other) { return contrast(colour, other); }));
    if (worst >= MIN_CONTRAST) {
      note.textContent = "Contrast " + use.words + ": " + ratioText(worst) + ":1, readable.";
      note.classList.remove("bad");
    } else {
      note.textContent = "Contrast " + use.words + ": " + ratioText(worst) + ":1, under the " + MIN_CONTRAST + ":1 needed. Choose a darker colour.";
      note.classList.add("bad");
    }
  }

  function addPicker(name) {
    var input = document.getElementById("id_" + name);
    if (!input) { return; }
    var pair = document.createElement("div");
    pair.className = "brand-colour-pair";
    input.parentNode.insertBefore(pair, input);
    pair.appendChild(input);
    var picker = document.createElement("input");
    picker.type = "color";
    picker.setAttribute("aria-label", "Pick the " + (name === "primary_colour" ? "header" : "accent") + " colour");
    picker.value = normalise(input.value) || input.dataset.default;
    pair.appendChild(picker);
    picker.addEventListener("input", function () {
      input.value = picker.value;
      showColour(name);
    });
    input.addEventListener("input", function () {
      var colour = normalise(input.value);
      if (colour) { picker.value = colour; }
      showColour(name);
    });
    showColour(name);
  }

  function showName() {
    nameShown.textContent = nameInput.value.trim() || nameShown.dataset.default;
  }
  nameInput.addEventListener("input", showName);
  showName();
  Object.keys(USES).forEach(addPicker);
}());
