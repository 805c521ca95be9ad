// ctxsim page script. Everything works without it (plain links step through
// the lesson); it adds the keyboard map, autoplay and the speaker-notes
// window that follows the presenter. No inline scripts: the CSP forbids them.
(function () {
  "use strict";

  var autoplay = { on: false, paused: false, delay: 3000, timer: 0 };
  var notesChannel = "BroadcastChannel" in window ? new BroadcastChannel("ctxsim-presenter") : null;

  function app() { return document.getElementById("app"); }
  function view() { var a = app(); return a ? a.getAttribute("data-view") : ""; }
  function q(sel) { return document.querySelector(sel); }

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function follow(sel) {
    var a = q(sel);
    if (a && a.tagName === "A") { a.click(); return true; }
    return false;
  }
  function step(name) { return follow('a[data-action="step-' + name + '"]'); }

  // ---- navigation without htmx (scripts on, htmx missing) falls back to links

  function go(url) {
    if (window.htmx) {
      window.htmx.ajax("GET", url, { target: "#app", select: "#app", swap: "outerHTML" }).then(function () {
        if (location.pathname !== url) history.pushState({ htmx: true }, "", url);
      });
    } else {
      location.assign(url);
    }
  }

  // ---- autoplay: steps on a timer, pauses by itself on decisive frames

  function note(text) {
    var n = q('[data-slot="autoplay-note"]');
    if (n) n.textContent = text;
  }
  function renderAutoplay() {
    var b = q('[data-action="autoplay"]');
    if (b) b.setAttribute("aria-pressed", autoplay.on && !autoplay.paused ? "true" : "false");
    document.querySelectorAll("[data-speed]").forEach(function (s) {
      var on = Number(s.getAttribute("data-speed")) === autoplay.delay;
      s.classList.toggle("is-active", on);
      s.setAttribute("aria-pressed", on ? "true" : "false");
    });
    note(autoplay.on && autoplay.paused ? pausedText() : "");
  }
  // text returns a message of the page's language from the catalog
  // (messages.js, generated from catalog/*.yaml).
  function text(key) {
    var all = window.ctxsimMessages || {};
    var m = all[document.documentElement.lang] || all.en || {};
    return m[key] || key;
  }
  function pausedText() { return text("paused"); }
  function schedule() {
    clearTimeout(autoplay.timer);
    if (!autoplay.on || autoplay.paused) return;
    autoplay.timer = setTimeout(function () {
      if (!step("next")) { stopAutoplay(); }
    }, autoplay.delay);
  }
  function startAutoplay() { autoplay.on = true; autoplay.paused = false; renderAutoplay(); schedule(); }
  function stopAutoplay() { autoplay.on = false; autoplay.paused = false; clearTimeout(autoplay.timer); renderAutoplay(); }
  function resumeAutoplay() {
    autoplay.paused = false;
    renderAutoplay();
    if (!step("next")) stopAutoplay();
  }
  function afterStep() {
    var a = app();
    if (autoplay.on) {
      autoplay.paused = !!a && a.getAttribute("data-decisive") === "true";
      renderAutoplay();
      schedule();
    }
  }

  // ---- keyboard map

  function toggleHelp() {
    var h = document.getElementById("keys-help");
    if (h) h.hidden = !h.hidden;
  }

  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
    var done = false;
    switch (e.key) {
      case "ArrowRight": done = step("next"); break;
      case "ArrowLeft": done = step("prev"); break;
      case "Home": done = step("first"); break;
      case "End": done = step("last"); break;
      case " ":
        if (autoplay.on && autoplay.paused) { resumeAutoplay(); done = true; }
        else if (autoplay.on) { stopAutoplay(); done = true; }
        else if (view() === "present" || view() === "compare") { done = step("next"); }
        break;
      case "c": done = follow('a[data-action="compare"]'); break;
      case "p": done = follow('a[data-action="present"]'); break;
      case "a": autoplay.on ? stopAutoplay() : startAutoplay(); done = true; break;
      case "f":
        if (document.fullscreenElement) document.exitFullscreen();
        else if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(function () {});
        done = true;
        break;
      case "?": toggleHelp(); done = true; break;
      case "Escape":
        var h = document.getElementById("keys-help");
        if (h && !h.hidden) { h.hidden = true; done = true; break; }
        if (location.hash.indexOf("#sheet-") === 0) {
          history.replaceState(null, "", location.pathname);
          var n = document.getElementById("narration");
          if (n) n.focus({ preventScroll: true });
          done = true;
        }
        break;
      default:
        if (/^[1-9]$/.test(e.key)) done = follow('a[data-key="' + e.key + '"]');
    }
    if (done) e.preventDefault();
  });

  document.addEventListener("click", function (e) {
    var t = e.target.closest ? e.target.closest("[data-action], [data-speed]") : null;
    if (!t) return;
    if (t.hasAttribute("data-speed")) {
      autoplay.delay = Number(t.getAttribute("data-speed"));
      renderAutoplay();
      schedule();
    } else if (t.getAttribute("data-action") === "autoplay") {
      if (!autoplay.on) startAutoplay();
      else if (autoplay.paused) resumeAutoplay();
      else stopAutoplay();
    } else if (t.getAttribute("data-action") === "keys") {
      toggleHelp();
    } else if (t.getAttribute("data-action") === "print") {
      window.print();
    }
  });

  // ---- speaker notes follow the presenter (same browser, second window)

  function announce() {
    if (!notesChannel || view() !== "present") return;
    var notes = q('a[data-action="notes"]');
    if (notes) notesChannel.postMessage({ notes: notes.getAttribute("href") });
  }
  if (notesChannel) {
    notesChannel.onmessage = function (ev) {
      if (view() !== "notes" || !ev.data || !ev.data.notes) return;
      if (ev.data.notes !== location.pathname) go(ev.data.notes);
    };
  }

  // ---- every page load and every swap

  function settle() {
    document.querySelectorAll(".js-only[hidden]").forEach(function (el) { el.hidden = false; });
    renderAutoplay();
    announce();
  }
  document.addEventListener("DOMContentLoaded", settle);
  document.addEventListener("htmx:afterSettle", function () { settle(); afterStep(); });
  window.addEventListener("popstate", function () { setTimeout(settle, 0); });
})();
