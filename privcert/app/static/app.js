// The workbench's one script (no inline script: the Content-Security-Policy forbids it).
// Makes each definition drawn on the implication map a keyboard-usable button that shows its arrows (the map
// scrolled to the chosen definition), and
// moves the focus to the content an update brings (a result, an error), so that a keyboard or screen-reader
// user continues from there rather than from the top of the page.
(function () {
  "use strict";
  function wireMap(root) {
    var map = (root || document).querySelector ? (root || document).querySelector("#map") : null;
    if (!map || map.dataset.wired) { return; }
    map.dataset.wired = "1";
    var names = JSON.parse(map.dataset.definitions || "[]");
    var ids = JSON.parse(map.dataset.ids || "[]");
    map.querySelectorAll("svg text").forEach(function (text) {
      var index = names.indexOf(text.textContent.trim());
      if (index < 0) { return; }
      var show = function () {
        var pick = document.getElementById("definition-pick");
        if (pick) { pick.value = ids[index]; }
        htmx.ajax("GET", "/explore/definition?id=" + encodeURIComponent(ids[index]), "#definition")
          .then(function () { focusRegion(document.getElementById("definition")); });
      };
      text.setAttribute("role", "button");
      text.setAttribute("tabindex", "0");
      text.setAttribute("aria-label", "Show the arrows of " + names[index]);
      text.classList.add("definition-node");
      text.addEventListener("click", show);
      text.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); show(); }
      });
    });
    // The map is drawn with labels of a readable size and scrolls: it opens at the chosen definition.
    var pick = document.getElementById("definition-pick");
    var chosen = pick ? names[ids.indexOf(pick.value)] : null;
    map.querySelectorAll("svg text").forEach(function (text) {
      if (text.textContent.trim() === chosen) { centre(map, text); }
    });
  }
  function centre(frame, item) {
    var box = item.getBoundingClientRect(), outer = frame.getBoundingClientRect();
    frame.scrollLeft += box.left + box.width / 2 - (outer.left + frame.clientWidth / 2);
    frame.scrollTop += box.top + box.height / 2 - (outer.top + frame.clientHeight / 2);
  }
  function focusRegion(region) {
    if (!region || !region.isConnected) { return; }
    if (!region.hasAttribute("tabindex")) { region.setAttribute("tabindex", "-1"); }
    region.focus();
  }
  document.addEventListener("DOMContentLoaded", function () { wireMap(document); });
  // Only an update the user asked for (a form sent, a button pressed) takes the focus: never one that
  // polls (a job's progress) or follows typing (the policy's live check).
  document.addEventListener("htmx:afterSwap", function (event) {
    var trigger = (event.detail.requestConfig || {}).triggeringEvent;
    if (!trigger || (trigger.type !== "submit" && trigger.type !== "click")) { return; }
    var target = event.detail.target;
    focusRegion(target && target.isConnected ? target : document.getElementById(target && target.id));
  });
  document.addEventListener("htmx:afterSwap", function () { wireMap(document); });
  // Errors of any form go to the page's message area, where they are announced.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var status = event.detail.xhr.status;
    if (status >= 400) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
      event.detail.target = document.getElementById("messages");
    } else if (event.detail.target && event.detail.target.id !== "messages") {
      var messages = document.getElementById("messages");
      if (messages) { messages.innerHTML = ""; }
    }
  });
})();
