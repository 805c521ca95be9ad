// room.js: presenter rooms and audience follow (see web/rooms/rooms.go).
//
// Presenter: "Open room" in the top bar creates a room; the code and join
// URL stay in sessionStorage, and every state the tab shows is PUT to the
// room (retried with backoff). A room that is gone (404: closed, expired,
// or ended with the server process that held it) is never re-created: the
// page says so and offers a new room. Audience: /join/CODE lands on the
// presenter's state with #follow=CODE; this script keeps following over
// Server-Sent Events, across any drop, until the student steps away on
// their own, then offers "Follow presenter". After a drop a follower lands
// on the presenter's current state within a second of the network coming
// back: the stream says "retry: 1000" and resends the current state (ids,
// Last-Event-ID), and when the stream cannot reconnect by itself the room's
// state is fetched every 0.5–1 s until it answers.
// No inline scripts or styles (CSP): markup uses the stylesheet's classes.
(function () {
  "use strict";

  if (!window.fetch || !window.EventSource || !window.JSON || window.ctxsimRoom) return;
  window.ctxsimRoom = true;

  var PRESENTER_KEY = "ctxsim.room.presenter"; // {code, key}
  var FOLLOW_KEY = "ctxsim.room.follow"; // {code, mode: "following" | "exploring"}
  var VIEW = /\/(present|notes)$/; // a view of a state: the audience keeps its own

  // Words come from the catalog (messages.js, generated from catalog/*.yaml),
  // which app.js loads when a script first needs a word: the room starts
  // (and draws) once they are here.
  var started = false;
  function withMessages(fn) {
    if (window.ctxsimNav && window.ctxsimNav.withMessages) window.ctxsimNav.withMessages(fn); else fn();
  }
  function text(k) {
    var all = window.ctxsimMessages || {};
    var m = all[document.documentElement.lang] || all.en || {};
    var key = "room." + k.replace(/[A-Z]/g, function (c) { return "-" + c.toLowerCase(); });
    return m[key] || k;
  }

  function load(k) {
    try { return JSON.parse(sessionStorage.getItem(k) || "null"); } catch (e) { return null; }
  }
  function save(k, v) {
    try {
      if (v == null) sessionStorage.removeItem(k); else sessionStorage.setItem(k, JSON.stringify(v));
    } catch (e) { /* storage off: the room lasts as long as the page */ }
  }

  function app() { return document.getElementById("app"); }
  function stateURL() { var a = app(); return (a && a.getAttribute("data-state-url")) || ""; }
  function pageView() { var a = app(); return (a && a.getAttribute("data-view")) || ""; }
  function baseOf(u) { return u.replace(VIEW, ""); }
  function viewOf(u) { var m = VIEW.exec(u); return m ? m[0] : ""; }
  function langOf(u) { return u.split("/")[1] || ""; }
  // The speaker-notes window inherits this tab's sessionStorage: it must
  // neither publish nor follow.
  function inactive() { return pageView() === "notes"; }

  // backoff returns the next retry delay of o: 0.5 s doubling to 15 s, ±25%.
  function backoff(o) {
    o.retry = Math.min((o.retry || 0) + 1, 6);
    return Math.min(15000, 500 * Math.pow(2, o.retry - 1)) * (0.75 + Math.random() / 2);
  }

  // soon is the delay between two looks while the network is down: short,
  // so a follower is back within a second, and spread over 0.5–1 s.
  function soon() { return 500 + Math.random() * 500; }

  // retryAfter is the wait a 429 or 503 asks for, spread over 1–1.5 times.
  function retryAfter(r) {
    var s = Number(r.headers.get("Retry-After")) || 5;
    return Math.min(s, 120) * 1000 * (1 + Math.random() / 2);
  }

  function json(method, url, body) {
    return fetch(url, {
      method: method, credentials: "same-origin", cache: "no-store",
      headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined
    });
  }

  var presenter = null; // {code, key, published, dirty, busy, timer, retry, es, online}
  var audience = null; // {code, mode, latest, nav, navTimer, es, timer, retry, missingSince, online}
  var opening = false;
  var notice = "";
  var joinOpen = false; // the presenter's join card is shown
  var focusNext = ""; // the room action whose button takes the focus after the next render

  // ---- presenter

  function openRoom() {
    if (presenter || opening) return;
    opening = true;
    notice = "";
    render();
    var st = stateURL();
    json("POST", "/rooms", st ? { state: st } : null).then(function (r) {
      if (!r.ok) throw new Error("POST /rooms: " + r.status);
      return r.json();
    }).then(function (j) {
      opening = false;
      leaveRoom("");
      joinOpen = true;
      focusNext = "hide-join";
      var joins = j.join_urls && j.join_urls.length ? j.join_urls : [location.origin + "/join/" + j.code];
      startPresenting({ code: j.code, key: j.key, joins: joins, pick: defaultPick(joins) }, j.state || "");
    }, function () {
      opening = false;
      notice = text("openFailed");
      render();
    });
  }

  // defaultPick is the join address to show first: the one this page was
  // opened on, unless that is this machine's loopback (nobody else can
  // reach it) and the server answers on a network address too.
  function defaultPick(joins) {
    return /^(localhost|127\.|\[::1\])/.test(location.host) && joins.length > 1 ? 1 : 0;
  }

  function startPresenting(room, published) {
    save(PRESENTER_KEY, room);
    presenter = { code: room.code, key: room.key, published: published, online: true,
      joins: room.joins || [location.origin + "/join/" + room.code], pick: room.pick || 0 };
    watch();
    publish();
    render();
  }

  // publish PUTs the state shown, one request at a time, until the room
  // has it. dirty forces a PUT of an unchanged state (the room may be gone).
  function publish() {
    var p = presenter;
    if (!p || p.busy || p.timer || inactive()) return;
    var st = stateURL();
    if (!st || (st === p.published && !p.dirty)) return;
    p.busy = true;
    json("PUT", "/rooms/" + p.code, { key: p.key, state: st }).then(function (r) {
      p.busy = false;
      if (presenter !== p) return;
      if (r.ok || r.status === 400) { // 400: not a state the audience can follow: skip it
        p.published = st;
        p.dirty = false;
        p.retry = 0;
        setOnline(p, true);
        if (!p.es) watch();
        publish(); // the page may have moved on meanwhile
      } else if (r.status === 404) {
        dropRoom(text("ended")); // gone for good: offer a new room
      } else if (r.status === 403) {
        dropRoom(text("lost"));
      } else {
        retryPublish(p, r.status === 429 || r.status === 503 ? retryAfter(r) : 0);
      }
    }, function () {
      p.busy = false;
      if (presenter === p) retryPublish(p);
    });
  }

  function retryPublish(p, wait) {
    p.dirty = true;
    setOnline(p, false);
    p.timer = setTimeout(function () { p.timer = 0; publish(); }, wait || backoff(p));
  }

  // watch keeps an event stream on the presenter's own room: when it breaks
  // (network, restart) the presenter re-PUTs its state at once, which tells
  // it whether the room is still there (404: it ended with the server).
  function watch() {
    var p = presenter;
    if (!p || p.es || inactive()) return;
    var es = new EventSource("/rooms/" + p.code + "/events");
    p.es = es;
    es.addEventListener("closed", function () {
      if (presenter === p) dropRoom(text("closed"));
    });
    es.onerror = function () {
      if (presenter !== p) return;
      if (es.readyState === EventSource.CLOSED) { es.close(); p.es = null; }
      p.dirty = true;
      publish();
    };
  }

  function stopPresenting() {
    var p = presenter;
    if (!p) return;
    presenter = null;
    save(PRESENTER_KEY, null);
    clearTimeout(p.timer);
    if (p.es) p.es.close();
    return p;
  }

  function dropRoom(msg) {
    stopPresenting();
    notice = msg;
    render();
  }

  function closeRoom() {
    var p = stopPresenting();
    if (p) json("DELETE", "/rooms/" + p.code, { key: p.key }).catch(function () {});
    render();
  }

  // ---- audience

  function startFollowing(code, mode) {
    audience = { code: code, mode: mode === "exploring" ? "exploring" : "following", latest: "", online: true, fails: 0 };
    save(FOLLOW_KEY, { code: code, mode: audience.mode });
    connect();
    render();
  }

  // connect opens the room's event stream. While the stream is up the
  // browser reconnects it by itself after a drop (retry: 1000), sending
  // the last event id; the server then sends the current state unless the
  // follower has it.
  function connect() {
    var a = audience;
    if (!a || a.es || inactive()) return;
    var es = new EventSource("/rooms/" + a.code + "/events");
    var opened = false;
    a.es = es;
    es.addEventListener("open", function () {
      if (audience !== a) return;
      opened = true;
      a.fails = 0;
      a.retry = 0;
      setOnline(a, true);
    });
    es.addEventListener("state", function (ev) {
      if (audience !== a) return;
      setOnline(a, true);
      presenterAt(ev.data);
    });
    es.addEventListener("closed", function () {
      if (audience === a) leaveRoom(text("closed"));
    });
    es.onerror = function () {
      if (audience !== a) return;
      setOnline(a, false);
      // CONNECTING: the browser reconnects by itself. CLOSED: it gave up
      // (the network is down, or the server answered without a stream:
      // 404, 429, 503): look at the room's state and reopen the stream.
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        a.es = null;
        if (!opened) a.fails++;
        later(a, 0);
      }
    };
  }

  function later(a, wait) {
    if (a.timer) return;
    a.timer = setTimeout(function () { a.timer = 0; recheck(a); }, wait);
  }

  // recheck fetches the room's state, lands on it and reopens the stream:
  // at once after a drop, after a backoff when streams keep being refused
  // (the server is busy), every 0.5–1 s while the network is down. A room
  // the server does not have (404) has ended.
  function recheck(a) {
    if (audience !== a || a.es) return;
    json("GET", "/rooms/" + a.code).then(function (r) {
      if (audience !== a) return;
      if (r.ok) {
        return r.json().then(function (j) {
          if (audience !== a) return;
          setOnline(a, true);
          if (j.state) presenterAt(j.state);
          if (a.fails > 1) a.timer = setTimeout(function () { a.timer = 0; connect(); }, backoff(a));
          else connect();
        });
      }
      if (r.status === 404) { leaveRoom(text("gone")); return; }
      later(a, r.status === 429 || r.status === 503 ? retryAfter(r) : backoff(a));
    }).catch(function () {
      if (audience === a) later(a, soon());
    });
  }

  function presenterAt(url) {
    var a = audience;
    a.latest = url;
    if (a.mode === "following") go(url);
    render();
  }

  // go shows the presenter's state in this tab's own view, one navigation
  // at a time; settle() catches up with states that arrive meanwhile. A
  // navigation that fails (the network dropped again) is tried again a
  // second later; it never counts as the student stepping away.
  function go(url) {
    var a = audience;
    var cur = stateURL();
    if (!a || a.nav || !url || baseOf(cur) === url) return;
    var want = url + viewOf(cur);
    a.nav = want;
    clearTimeout(a.navTimer);
    var failed = function () {
      if (audience !== a || a.nav !== want) return;
      a.nav = null;
      clearTimeout(a.navTimer);
      a.navTimer = setTimeout(catchUp, 1000);
    };
    a.navTimer = setTimeout(failed, 10000); // no answer: try again
    if (!window.ctxsimNav || !app() || langOf(cur) !== langOf(url)) {
      location.assign(want); // another language or page kind: a full page load
      return;
    }
    window.ctxsimNav.go(want, { push: true, soft: true }).then(function () {
      if (audience === a && a.nav === want) failed(); // a later navigation won, or the page did not swap
    }, failed);
  }

  // catchUp moves a following tab to the presenter's latest state.
  function catchUp() {
    var a = audience;
    if (a && a.mode === "following" && a.latest) go(a.latest);
  }

  function setMode(mode) {
    var a = audience;
    if (!a) return;
    a.mode = mode;
    save(FOLLOW_KEY, { code: a.code, mode: mode });
    render();
  }

  function followPresenter() {
    var a = audience;
    if (!a) return;
    setMode("following");
    if (a.latest) go(a.latest); else if (!a.es) recheck(a);
  }

  function leaveRoom(msg) {
    var a = audience;
    if (!a) return;
    audience = null;
    save(FOLLOW_KEY, null);
    clearTimeout(a.timer);
    clearTimeout(a.navTimer);
    if (a.es) a.es.close();
    notice = msg;
    render();
  }

  function setOnline(o, on) {
    if (o.online === on) return;
    o.online = on;
    render();
  }

  // ---- every page load, swap and history move

  function settle() {
    if (inactive()) return;
    joinOpen = false; // a step or a mode change puts the lesson back in front
    var a = audience;
    if (a) {
      var cur = baseOf(stateURL());
      if (a.nav && baseOf(a.nav) === cur) { // our own navigation
        a.nav = null;
        clearTimeout(a.navTimer);
        catchUp(); // the presenter may have moved on meanwhile
      } else if (a.mode === "following" && a.latest && cur && cur !== a.latest) {
        setMode("exploring"); // a swap we did not ask for: the student stepped away
      }
    }
    publish();
    render();
  }

  // ---- the room slot in the top bar

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] != null) e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  function button(label, action, testid, attrs) {
    var a = { type: "button", "class": "viewlink", "data-room-action": action, "data-testid": testid };
    for (var k in attrs || {}) a[k] = attrs[k];
    return el("button", a, [label]);
  }
  function joinLink(url, cls) {
    return el("a", { "class": cls, href: url, target: "_blank", rel: "noopener", "data-testid": "room-join-url" },
      [url.replace(/^https?:\/\//, "")]);
  }

  // presenterContent: the code in the bar and a "Join" button; the join
  // card (shown when the room opens and on "Join") holds what a hall needs:
  // the code, large, and a QR code of the join address (drawn by the
  // server, /qr.svg) that a phone's camera opens, and the address itself.
  // The bar stays one line, so the window keeps its room.
  function presenterContent(kids) {
    var p = presenter;
    var join = p.joins[p.pick] || p.joins[0];
    kids.push(el("strong", { "class": "meter-value room-code", "data-testid": "room-code", title: text("roomCode") }, [p.code]));
    kids.push(button(text("joinButton"), "join", "room-show-join", { "aria-expanded": String(joinOpen), "aria-controls": "room-join" }));
    kids.push(el("div", {
      "class": "keys-help room-join", id: "room-join", role: "dialog", "aria-label": text("joinTitle"),
      "data-testid": "room-join", hidden: joinOpen ? null : ""
    }, [
      el("h2", {}, [text("joinTitle")]),
      el("div", { "class": "room-join-card" }, [
        el("img", { "class": "room-qr", src: "/qr.svg?text=" + encodeURIComponent(join), alt: text("qrAlt") + " " + join, width: "260", height: "260", "data-testid": "room-qr" }),
        el("div", { "class": "room-join-text" }, [
          el("p", {}, [text("joinHow")]),
          el("p", { "class": "room-code-big", "data-testid": "room-code-big", "aria-label": text("roomCode") }, [p.code]),
          el("p", { "class": "room-join-link" }, [joinLink(join, "")]),
          joinChoice(p)
        ])
      ]),
      button(text("ok"), "hide-join", "room-hide-join")
    ]));
    if (!p.online) kids.push(el("span", { "class": "badge badge-changed" }, [text("offline")]));
    kids.push(button(text("close"), "close", "room-close"));
  }

  // joinChoice lets the presenter pick which of the room's join addresses
  // to show (the server lists those it answers on); none when there is one.
  function joinChoice(p) {
    if (p.joins.length < 2) return el("span", {}, []);
    var sel = el("select", { "data-room-action": "pick", "data-testid": "room-join-choice", "aria-label": text("joinChoice") },
      p.joins.map(function (u, i) {
        return el("option", { value: String(i), selected: i === p.pick ? "" : null }, [u.replace(/^https?:\/\//, "").replace(/\/join\/.*$/, "")]);
      }));
    return el("label", { "class": "room-join-choice" }, [text("joinChoice") + " ", sel]);
  }

  function slotContent() {
    var kids = [];
    if (presenter) {
      presenterContent(kids);
    } else if (audience) {
      var following = audience.mode === "following";
      kids.push(el("span", {
        "class": following ? "badge badge-snapshot" : "badge badge-changed",
        "data-testid": "room-status", "data-status": audience.mode
      }, [text(audience.mode)]));
      if (following) {
        kids.push(el("span", {}, [text("followingRoom"), el("strong", { "class": "mono" }, [audience.code])]));
      } else {
        kids.push(button(text("followPresenter"), "follow", "follow-presenter"));
      }
      if (!audience.online) kids.push(el("span", { "class": "badge badge-changed" }, [text("offline")]));
      kids.push(button(text("leave"), "leave", "room-leave"));
    } else {
      if (notice) kids.push(el("span", { "class": "badge badge-changed", "data-testid": "room-notice" }, [notice]));
      kids.push(opening ? el("span", {}, [text("opening")]) : button(text("open"), "open", "room-open"));
    }
    return kids;
  }

  var rendered = new WeakMap(); // slot → the markup it shows

  // render fills every room slot, touching the DOM only when its content
  // changes, so a focused button survives events that change nothing.
  function render() {
    var slots = document.querySelectorAll("[data-room-slot]");
    if (!started || !slots.length || inactive()) return;
    var box = el("div", {}, slotContent());
    var sig = box.innerHTML;
    slots.forEach(function (slot) {
      if (rendered.get(slot) === sig) return;
      rendered.set(slot, sig);
      slot.setAttribute("role", "status"); // the slot itself is the live region: it outlives renders
      slot.textContent = "";
      var copy = box.cloneNode(true);
      while (copy.firstChild) slot.appendChild(copy.firstChild);
    });
    if (focusNext) {
      var f = document.querySelector('[data-room-slot] [data-room-action="' + focusNext + '"]');
      focusNext = "";
      if (f) f.focus();
    }
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("[data-room-action]") : null;
    if (!b) return;
    e.preventDefault();
    switch (b.getAttribute("data-room-action")) {
      case "open": openRoom(); break;
      case "close": joinOpen = false; closeRoom(); break;
      case "join": joinOpen = !joinOpen; focusNext = joinOpen ? "hide-join" : ""; render(); break;
      case "hide-join": joinOpen = false; focusNext = "join"; render(); break;
      case "follow": followPresenter(); break;
      case "leave": leaveRoom(""); break;
    }
  });

  document.addEventListener("change", function (e) {
    var t = e.target;
    if (!presenter || !t || t.getAttribute("data-room-action") !== "pick") return;
    presenter.pick = Number(t.value) || 0;
    save(PRESENTER_KEY, { code: presenter.code, key: presenter.key, joins: presenter.joins, pick: presenter.pick });
    focusNext = "pick";
    render();
  });

  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape" || !joinOpen || e.defaultPrevented) return;
    joinOpen = false;
    focusNext = "join";
    render();
    e.preventDefault();
  });

  document.addEventListener("ctxsim:swapped", settle);
  // The network is back: do not wait for the stream's next retry.
  window.addEventListener("online", function () {
    var a = audience;
    if (a && !(a.es && a.es.readyState === EventSource.OPEN)) {
      if (a.es) { a.es.close(); a.es = null; }
      clearTimeout(a.timer);
      a.timer = 0;
      recheck(a);
    }
    if (presenter) { presenter.dirty = true; publish(); }
  });
  window.addEventListener("pageshow", function (e) {
    if (!e.persisted) return; // back/forward cache: streams were closed
    if (audience && audience.es) { audience.es.close(); audience.es = null; }
    if (presenter && presenter.es) { presenter.es.close(); presenter.es = null; }
    if (audience) recheck(audience);
    if (presenter) { watch(); presenter.dirty = true; publish(); }
  });

  // ---- start: a join link's #follow=CODE, or what this tab already had

  withMessages(function start() {
    started = true;
    var room = load(PRESENTER_KEY);
    var follow = load(FOLLOW_KEY);
    var m = /^#follow=([0-9A-Za-z]{6})$/.exec(location.hash);
    if (m) {
      history.replaceState(history.state, "", location.pathname + location.search);
      var code = m[1].toUpperCase();
      if (!room || room.code !== code) { // a presenter opening its own join link stays the presenter
        room = null;
        save(PRESENTER_KEY, null);
        follow = { code: code, mode: "following" };
      }
    }
    if (room && room.code && room.key) {
      save(FOLLOW_KEY, null);
      startPresenting(room, "");
    } else if (follow && follow.code) {
      startFollowing(follow.code, follow.mode);
    }
    render();
  });
})();
