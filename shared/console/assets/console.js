// agent-registry console: keyboard shortcuts only. Every page works without this file.
// "/" focuses the first search or filter field; "g a" and "g t" go to agents and tools.
(function () {
  "use strict";
  var pending = null;
  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
    if (event.key === "/") {
      var field = document.querySelector("form.filters input, form.filters select");
      if (field) { event.preventDefault(); field.focus(); }
      return;
    }
    if (pending === "g" && (event.key === "a" || event.key === "t")) {
      window.location.assign(event.key === "a" ? "/console/agents" : "/console/tools");
    }
    pending = event.key === "g" ? "g" : null;
  });
})();
