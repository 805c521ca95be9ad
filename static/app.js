// ctxsim page script. Everything works without it: every control is a
// plain link to a full page. It adds navigation without reloads (fetch the
// next page, swap #app, animate the window from one step to the next), the
// keyboard map, autoplay, the block sheet's Escape, the speaker-notes
// window that follows the presenter, and loads room.js where a room is
// used. No inline scripts: the CSP forbids them.
(function () {
  "use strict";

  var reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)");
  var autoplay = { on: false, paused: false, delay: 3000, timer: 0, wasDecisive: false };
  var notesChannel = "BroadcastChannel" in window ? new BroadcastChannel("ctxsim-presenter") : null;
  var nav = { seq: 0 };
  var sheet = { open: null, opener: null };

  function app() { return document.getElementById("app"); }
  function view() { var a = app(); return a ? a.getAttribute("data-view") : ""; }
  function q(sel, root) { return (root || document).querySelector(sel); }
  function qa(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function typing(el) { return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)); }

  // text is a message of the page's language (messages.js, from the
  // catalog), once withMessages has loaded it. No page shows one when it
  // first paints (they are autoplay's pause note, a static copy's query
  // note, the upload form's notes and room.js's words, which room.js waits
  // for through ctxsimNav.withMessages), so a first visit does not load
  // them.
  function text(key) {
    var all = window.ctxsimMessages || {};
    var m = all[document.documentElement.lang] || all.en || {};
    return m[key] || key;
  }
  var messagesWaiting = null; // callbacks while messages.js loads
  function withMessages(fn) {
    var src = document.body.getAttribute("data-messages-js");
    if (window.ctxsimMessages || !src) { fn(); return; }
    if (!messagesWaiting) {
      messagesWaiting = [];
      var s = document.createElement("script");
      s.src = src;
      s.onload = s.onerror = function () {
        var w = messagesWaiting;
        messagesWaiting = null;
        if (!window.ctxsimMessages) s.remove(); // failed: the next call tries again
        w.forEach(function (f) { f(); });
      };
      document.head.appendChild(s);
    }
    messagesWaiting.push(fn);
  }

  // ---- navigation: fetch the page, swap #app, animate, keep focus

  function follow(sel) {
    var a = q(sel);
    if (a && a.tagName === "A") { a.click(); return true; }
    return false;
  }
  function step(name) { return follow('a[data-action="step-' + name + '"]'); }

  // go shows url in this tab. It resolves once the page is swapped in.
  // With opts.soft a failed fetch or an error answer rejects instead of
  // loading the page in full (room.js retries: a browser error page would
  // end following).
  function go(url, opts) {
    opts = opts || {};
    if (!window.fetch || !window.DOMParser || !app()) { location.assign(url); return Promise.resolve(); }
    var seq = ++nav.seq;
    busy(true);
    return fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (res) {
      if (opts.soft && !res.ok) throw new Error(url + ": " + res.status);
      return res.text().then(function (html) { return { url: res.url, html: html }; });
    }).then(function (r) {
      if (seq !== nav.seq) return; // a later navigation won
      swap(r.html, r.url, opts);
      busy(false);
    }).catch(function (e) {
      if (!opts.soft) { location.assign(url); return; }
      if (seq === nav.seq) busy(false);
      throw e;
    });
  }

  // busy marks a navigation in flight on <html data-nav> (tests wait on it).
  function busy(on) { document.documentElement.setAttribute("data-nav", on ? "busy" : "idle"); }

  function swap(html, url, opts) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var next = doc.getElementById("app");
    var cur = app();
    if (!next || !cur || next.getAttribute("data-view") === "handout") { location.assign(url); return; }
    var before = snapshot();
    var focused = focusKey(document.activeElement);
    closeSheet(false);
    cur.replaceWith(document.importNode(next, true));
    syncSessionBar(doc);
    document.title = doc.title;
    var path = new URL(url, location.href);
    if (opts.push) history.pushState({ ctxsim: 1 }, "", path.pathname + path.search);
    else if (opts.replace) history.replaceState({ ctxsim: 1 }, "", path.pathname + path.search);
    animate(before);
    restoreFocus(opts.focus || focused);
    settle();
    afterStep();
    document.dispatchEvent(new CustomEvent("ctxsim:swapped"));
  }

  document.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    var a = e.target.closest ? e.target.closest("a[href]") : null;
    if (!a || !app() || !app().contains(a)) return;
    var href = a.getAttribute("href") || "";
    if (href.indexOf("#sheet-") === 0) { e.preventDefault(); openSheet(href.slice(1), a); return; }
    if (sheet.open && a.classList.contains("sheet-close")) { e.preventDefault(); closeSheet(true); return; }
    if (href.charAt(0) === "#" || a.target || a.hasAttribute("download") || a.getAttribute("data-boost") === "false") return;
    var u = new URL(a.href, location.href);
    if (u.origin !== location.origin) return;
    e.preventDefault();
    go(u.pathname + u.search, { push: true, focus: focusKey(a) });
  });

  window.addEventListener("popstate", function () {
    if (app() && app().getAttribute("data-view") !== "handout") go(location.pathname + location.search, {});
  });

  // focusKey names a control so the same control can take focus again on
  // the next page (where it is a new element): by its data-control (the
  // links and fields that do nothing else here) or data-action.
  function focusKey(el) {
    if (!el || el === document.body || !app() || !app().contains(el)) return "";
    var t = el.getAttribute("data-control") || el.getAttribute("data-action");
    if (t) return '[data-control="' + t + '"],[data-action="' + t + '"]';
    if (el.getAttribute("data-row")) return '[data-row="' + el.getAttribute("data-row") + '"]';
    return "";
  }
  function restoreFocus(key) {
    if (!key) return;
    var el = q(key, app());
    if (el && el.getAttribute("aria-disabled") === "true") el = q('[data-action="step-prev"]', app()) || el;
    if (!el) return;
    if (el.tagName === "SPAN") el.setAttribute("tabindex", "-1");
    el.focus({ preventScroll: true });
  }

  // ---- the windows, animated by block id (FLIP): blocks move and resize
  // from where they were in the pane of the same name (data-pane: the
  // request's window, a sub-agent's beside it, a comparison's sides); a new
  // block grows from nothing; a summary grows out of the range it
  // replaces, so the range is seen to collapse into it. Each pane's meter
  // (data-meter) counts from its old total.

  function snapshot() {
    var out = {};
    qa("svg.win").forEach(function (svg) {
      var pane = svg.getAttribute("data-pane") || "";
      qa("rect[data-block]", svg).forEach(function (r) {
        out[pane + "|" + r.getAttribute("data-id")] = { y: +r.getAttribute("y"), h: +r.getAttribute("height") };
      });
    });
    qa("[data-meter]").forEach(function (m) {
      out["meter|" + m.getAttribute("data-meter")] = { total: +m.getAttribute("data-total"), text: m.textContent };
    });
    return out;
  }

  function animate(before) {
    var n = 0;
    document.documentElement.setAttribute("data-animated", "0");
    if (reduced && reduced.matches) return;
    var a = app();
    var ms = a && a.getAttribute("data-motion") === "slow" ? 700 : 320;
    var ease = "cubic-bezier(.2,.8,.2,1)";
    qa("svg.win").forEach(function (svg) {
      var pane = svg.getAttribute("data-pane") || "";
      qa("rect[data-block]", svg).forEach(function (r) {
        var y = +r.getAttribute("y"), h = +r.getAttribute("height");
        var old = before[pane + "|" + r.getAttribute("data-id")] || unionOf(before, pane, r.getAttribute("data-covers"));
        var from;
        if (old) {
          if (Math.abs(old.y - y) < 0.01 && Math.abs(old.h - h) < 0.01) return;
          from = "translate(0px," + (old.y - y) + "px) scale(1," + (h > 0 ? old.h / h : 1) + ")";
        } else {
          from = "scale(1,0)";
        }
        r.animate([{ transform: from }, { transform: "none" }], { duration: ms, easing: ease });
        n++;
      });
      qa(".lbl,.lbl-size,.bdg,.bdg-t,.exc,.co,.co-group,.leader,.mark,.mark-leader", svg).forEach(function (t) {
        t.animate([{ opacity: 0 }, { opacity: 0, offset: 0.5 }, { opacity: 1 }], { duration: ms, easing: "ease-out" });
      });
    });
    qa("[data-meter]").forEach(function (m) { countMeter(m, before["meter|" + m.getAttribute("data-meter")], ms); });
    document.documentElement.setAttribute("data-animated", String(n));
  }

  // unionOf is the extent, before the swap, of the blocks a summary covers.
  function unionOf(before, pane, covers) {
    if (!covers) return null;
    var top = Infinity, bottom = -Infinity;
    covers.split(" ").forEach(function (id) {
      var b = before[pane + "|" + id];
      if (b) { top = Math.min(top, b.y); bottom = Math.max(bottom, b.y + b.h); }
    });
    return top < bottom ? { y: top, h: bottom - top } : null;
  }

  // countMeter counts the meter from its old total to the new one, where
  // both read in thousands ("47.9k / 50k"). Its clock starts at its first
  // frame (an earlier timestamp would ease backwards, past the old total),
  // and every value it shows lies between the old total and the new one.
  function countMeter(m, old, ms) {
    var to = +m.getAttribute("data-total");
    var parts = m.textContent.split(" / ");
    if (!old || old.total === to || parts.length !== 2 || !/k$/.test(parts[0]) || !/k /.test(old.text)) return;
    var from = old.total, lo = Math.min(from, to), hi = Math.max(from, to), t0 = -1, final = m.textContent;
    m.textContent = old.text;
    function frame(now) {
      if (t0 < 0) t0 = now;
      var k = Math.min(Math.max((now - t0) / ms, 0), 1);
      var v = Math.min(Math.max(from + (to - from) * (1 - Math.pow(1 - k, 3)), lo), hi);
      m.textContent = k < 1 ? (v / 1000).toFixed(1) + "k / " + parts[1] : final;
      if (k < 1) requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
  }

  // ---- the block sheet: a dialog that Escape closes, focus back where it was

  function openSheet(id, opener) {
    var s = document.getElementById(id);
    if (!s) return;
    closeSheet(false);
    s.classList.add("is-open");
    s.setAttribute("aria-modal", "true");
    sheet.open = s;
    sheet.opener = focusKey(opener) || "";
    var c = q(".sheet-close", s);
    if (c) c.focus({ preventScroll: true });
    loadText(s);
  }

  // A sheet's text is not in the page: its pre links to it (data-text) and
  // it is loaded when the sheet opens, once. The plain URL first (texts are
  // content-addressed, so the browser keeps one copy for every page); a
  // server that no longer holds it finds it again from the page's path
  // (?at=). Where loading fails the link stays.
  function loadText(s) {
    var pre = q("pre[data-text]", s);
    if (!pre || pre.hasAttribute("data-loaded")) return;
    pre.setAttribute("data-loaded", "busy");
    var u = pre.getAttribute("data-text");
    var at = app() && app().getAttribute("data-state-url");
    function get(url) { return fetch(url, { credentials: "same-origin" }); }
    get(u).then(function (r) {
      if (r.status === 404 && at && !isStatic()) return get(u + "?at=" + encodeURIComponent(at));
      return r;
    }).then(function (r) {
      if (!r.ok) throw new Error("text " + r.status);
      return r.text();
    }).then(function (t) {
      pre.textContent = t.charCodeAt(0) === 0xFEFF ? t.slice(1) : t;
      pre.setAttribute("data-loaded", "true");
    }).catch(function () { pre.removeAttribute("data-loaded"); });
  }
  function closeSheet(refocus) {
    var s = sheet.open;
    if (location.hash.indexOf("#sheet-") === 0) {
      // opened by a link without script, or a deep link: leave :target
      location.replace("#");
      history.replaceState(history.state, "", location.pathname + location.search);
      s = s || null;
      if (refocus) { var n = document.getElementById("narration"); if (n) n.focus({ preventScroll: true }); }
    }
    if (!s) return;
    s.classList.remove("is-open");
    s.removeAttribute("aria-modal");
    sheet.open = null;
    if (refocus) restoreFocus(sheet.opener);
  }

  // ---- autoplay: steps on a timer, pauses on the first frame of each
  // decisive run (not on every frame of it)

  function note(t) { var n = q('[data-slot="autoplay-note"]'); if (n) n.textContent = t; }
  function renderAutoplay() {
    var b = q('[data-action="autoplay"]');
    if (b) b.setAttribute("aria-pressed", autoplay.on && !autoplay.paused ? "true" : "false");
    qa("[data-speed]").forEach(function (s) {
      var on = Number(s.getAttribute("data-speed")) === autoplay.delay;
      s.classList.toggle("is-active", on);
      s.setAttribute("aria-pressed", on ? "true" : "false");
    });
    if (autoplay.on && autoplay.paused) withMessages(function () { note(autoplay.on && autoplay.paused ? text("paused") : ""); });
    else note("");
  }
  function schedule() {
    clearTimeout(autoplay.timer);
    if (!autoplay.on || autoplay.paused) return;
    autoplay.timer = setTimeout(function () { if (!step("next")) stopAutoplay(); }, autoplay.delay);
  }
  function decisive() { var a = app(); return !!a && a.getAttribute("data-decisive") === "true"; }
  function startAutoplay() { withMessages(function () {}); autoplay.on = true; autoplay.paused = false; autoplay.wasDecisive = decisive(); renderAutoplay(); schedule(); }
  function stopAutoplay() { autoplay.on = false; autoplay.paused = false; clearTimeout(autoplay.timer); renderAutoplay(); }
  function resumeAutoplay() { autoplay.paused = false; renderAutoplay(); if (!step("next")) stopAutoplay(); }
  function afterStep() {
    var d = decisive();
    if (autoplay.on) {
      autoplay.paused = d && !autoplay.wasDecisive;
      renderAutoplay();
      schedule();
    }
    autoplay.wasDecisive = d;
  }

  // ---- keyboard map

  function toggleHelp() { var h = document.getElementById("keys-help"); if (h) h.hidden = !h.hidden; }

  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
    var done = false;
    if (e.key === "Escape") {
      var h = document.getElementById("keys-help");
      if (h && !h.hidden) { h.hidden = true; done = true; }
      else if (sheet.open || location.hash.indexOf("#sheet-") === 0) { closeSheet(true); done = true; }
      if (done) e.preventDefault();
      return;
    }
    if (sheet.open) return;
    switch (e.key) {
      case "ArrowRight": done = step("next"); break;
      case "ArrowLeft": done = step("prev"); break;
      case "Home": done = step("first"); break;
      case "End": done = step("last"); break;
      case " ":
        // Space steps in every view (a focused button or summary keeps
        // its own Space).
        if (/^(BUTTON|SUMMARY)$/.test(e.target.tagName)) break;
        if (autoplay.on && autoplay.paused) { resumeAutoplay(); done = true; }
        else if (autoplay.on) { stopAutoplay(); done = true; }
        else if (view() !== "notes") { done = step("next"); }
        break;
      case "c": done = follow('a[data-action="compare"]'); break;
      case "p": done = follow('a[data-action="present"]'); break;
      case "a": if (autoplay.on) stopAutoplay(); else startAutoplay(); done = true; break;
      case "f":
        if (document.fullscreenElement) document.exitFullscreen();
        else if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(function () {});
        done = true;
        break;
      case "?": toggleHelp(); done = true; break;
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
      return;
    }
    switch (t.getAttribute("data-action")) {
      case "autoplay": if (!autoplay.on) startAutoplay(); else if (autoplay.paused) resumeAutoplay(); else stopAutoplay(); break;
      case "keys": toggleHelp(); break;
      case "print": window.print(); break;
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
      if (ev.data.notes !== location.pathname) go(ev.data.notes, { push: true });
    };
  }

  // ---- a static copy (ctxsim export): no server redirects ?step=N, so the
  // step field goes to the step's page itself; a query typed into the
  // address is not applied, and the page says so.

  function isStatic() { return document.body && document.body.getAttribute("data-static") === "true"; }
  document.addEventListener("submit", function (e) {
    var f = e.target, tpl = f.getAttribute && f.getAttribute("data-step-url");
    if (!tpl) return;
    e.preventDefault();
    var input = q('input[name="step"]', f);
    var n = input ? Number(input.value) : NaN;
    if (!(n >= Number(input.min) && n <= Number(input.max) && n === Math.floor(n))) return;
    go(tpl.replace("{step}", String(n)), { push: true });
  });
  function staticQuery() {
    if (isStatic() && location.search) withMessages(staticQueryNote);
  }
  function staticQueryNote() {
    if (!app() || q('[data-notice="static-query"]')) return;
    var p = document.createElement("p");
    p.className = "static-query";
    p.setAttribute("role", "status");
    p.setAttribute("data-notice", "static-query");
    p.setAttribute("data-testid", "static-query");
    p.textContent = text("static-query");
    app().insertBefore(p, app().firstChild);
  }

  // ---- an uploaded session's pages carry a bar above #app (its privacy,
  // its report, the button that forgets it): a swap brings the next
  // page's bar, or none.

  function syncSessionBar(doc) {
    var next = doc.querySelector("[data-session-bar]"), cur = q("[data-session-bar]");
    if (cur && next) cur.replaceWith(document.importNode(next, true));
    else if (cur) cur.remove();
    else if (next) document.body.insertBefore(document.importNode(next, true), app());
  }

  // ---- the index's upload form: a file dropped on it goes into the
  // picker; files over the limit are said before anything is sent (the
  // server answers 413 only once it has read them); the button says the
  // server is reading.

  function uploadCheck(form) {
    var input = q('input[type="file"]', form), out = q('[data-slot="upload-error"]', form);
    var max = Number(form.getAttribute("data-max-bytes")), size = 0;
    Array.prototype.forEach.call((input && input.files) || [], function (f) { size += f.size; });
    var over = size > max;
    if (out) {
      out.hidden = !over;
      out.textContent = over ? text("upload-too-large").replace("{size}", (size / 1048576).toFixed(1)).replace("{max}", String(max / 1048576)) : "";
    }
    return !over;
  }
  function dropZone(e) { return e.target.closest ? e.target.closest("[data-drop]") : null; }
  document.addEventListener("change", function (e) {
    var form = e.target.closest ? e.target.closest("form[data-upload]") : null;
    if (form && e.target.type === "file") uploadCheck(form);
  });
  ["dragenter", "dragover"].forEach(function (type) {
    document.addEventListener(type, function (e) {
      var z = dropZone(e);
      if (!z) return;
      e.preventDefault();
      z.classList.add("is-over");
    });
  });
  document.addEventListener("dragleave", function (e) { var z = dropZone(e); if (z) z.classList.remove("is-over"); });
  document.addEventListener("drop", function (e) {
    var z = dropZone(e), input = z && q('input[type="file"]', z);
    if (!input) return;
    e.preventDefault();
    z.classList.remove("is-over");
    if (e.dataTransfer && e.dataTransfer.files.length) {
      input.files = e.dataTransfer.files;
      uploadCheck(input.form);
    }
  });
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.hasAttribute || !form.hasAttribute("data-upload")) return;
    if (!uploadCheck(form)) { e.preventDefault(); return; }
    var b = q('button[type="submit"]', form);
    if (b) { b.setAttribute("data-label", b.textContent); b.textContent = text("upload-sending"); b.disabled = true; }
  });
  // Back from the answer (the page kept in memory): the button is a button again.
  window.addEventListener("pageshow", function () {
    qa("form[data-upload] button[data-label]").forEach(function (b) { b.textContent = b.getAttribute("data-label"); b.disabled = false; });
  });

  // ---- room.js, only where a room is used: the presenter view (where a
  // room is opened) links it, and this loads it when a page swaps into
  // the presenter view, or a join link (#follow=CODE) or a room this tab
  // keeps needs it.

  function roomInUse() {
    if (/^#follow=/.test(location.hash)) return true;
    try { return !!(sessionStorage.getItem("ctxsim.room.presenter") || sessionStorage.getItem("ctxsim.room.follow")); } catch (e) { return false; }
  }
  function loadRoom() {
    var src = document.body.getAttribute("data-room-js");
    if (!src || window.ctxsimRoom || q('script[src="' + src + '"]') || !(roomInUse() || view() === "present")) return;
    var s = document.createElement("script");
    s.src = src;
    document.head.appendChild(s);
  }

  // ---- every page load and every swap

  function settle() {
    qa(".js-only[hidden]").forEach(function (el) { el.hidden = false; });
    renderAutoplay();
    announce();
    loadRoom();
  }
  window.ctxsimNav = { go: go, withMessages: withMessages };
  document.addEventListener("DOMContentLoaded", function () {
    autoplay.wasDecisive = decisive();
    settle();
    staticQuery();
    if (q("form[data-upload]")) withMessages(function () {}); // its notes come as soon as a file is picked
    if (location.hash.indexOf("#sheet-") === 0) {
      var s = document.getElementById(location.hash.slice(1));
      if (s) { var c = q(".sheet-close", s); if (c) c.focus({ preventScroll: true }); loadText(s); }
    }
  });
})();
