// ctxsim page script. Everything works without it (plain links step through
// the lesson); it adds the keyboard map. No inline scripts: the CSP forbids them.
(function () {
  "use strict";

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function follow(testid) {
    var a = document.querySelector('a[data-testid="' + testid + '"]');
    if (a) { a.click(); return true; }
    return false;
  }

  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
    var done = false;
    switch (e.key) {
      case "ArrowRight": done = follow("step-next"); break;
      case "ArrowLeft": done = follow("step-prev"); break;
      case "Home": done = follow("step-first"); break;
      case "End": done = follow("step-last"); break;
      case "Escape":
        if (location.hash.indexOf("#sheet-") === 0) {
          history.replaceState(null, "", location.pathname);
          done = true;
          var n = document.getElementById("narration");
          if (n) n.focus({ preventScroll: true });
        }
        break;
    }
    if (done) e.preventDefault();
  });
})();
